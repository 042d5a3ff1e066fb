// The user and password of an `Authorization: Basic ...` request header, read as nginx's auth_basic reads them:
// the scheme in any case, base64 of `user:password`, split at the first colon.

export interface BasicCredentials {
  user: string;
  password: string;
}

const basicHeader = /^basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i;

/** The credentials of the header, or undefined when there is none or it is not Basic with `user:password`. */
export function parseBasicCredentials(header: string | undefined): BasicCredentials | undefined {
  const encoded = header === undefined ? null : basicHeader.exec(header);
  if (encoded === null) return undefined;
  const decoded = Buffer.from(encoded[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
