// Types of two htpasswd hash packages that ship none: each is one function, (password, salt or whole hash) -> hash.
declare module 'apache-md5' {
  export default function apacheMd5(password: string, salt?: string): string;
}
declare module 'apache-crypt' {
  export default function apacheCrypt(password: string, salt?: string): string;
}
