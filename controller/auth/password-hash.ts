// Verifies a password against an htpasswd hash of any scheme ingress-nginx accepts (translate/shared/password-scheme.ts), with
// well-kept libraries: bcryptjs, apache-md5 ($apr1$, $1$), apache-crypt (DES), unixcrypt ($5$, $6$) and node:crypto
// ({SHA}, {SSHA}). Verification costs what the scheme costs (bcrypt: milliseconds per try, by design).
import { createHash, timingSafeEqual } from 'node:crypto';
import apacheCrypt from 'apache-crypt';
import apacheMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { encrypt as shaCrypt } from 'unixcrypt';
import { passwordScheme } from '../translate/shared/password-scheme.js';

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `password` matches `hash` (an htpasswd entry's hash of a known scheme). */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  switch (passwordScheme(hash)) {
    case 'apr1':
    case 'md5-crypt':
      return sameText(apacheMd5(password, hash), hash);
    case 'bcrypt':
      // bcryptjs's asynchronous compare yields to the event loop between rounds: xDS keeps being served.
      return bcrypt.compare(password, hash);
    case 'sha256-crypt':
    case 'sha512-crypt':
      // unixcrypt takes the settings ($5$[rounds=N$]salt) without the digest: given a whole hash with rounds= it
      // throws "Invalid salt string".
      return sameText(shaCrypt(password, hash.slice(0, hash.lastIndexOf('$'))), hash);
    case 'sha1':
      return sameText(`{SHA}${createHash('sha1').update(password, 'utf8').digest('base64')}`, hash);
    case 'ssha': {
      // base64(SHA-1(password + salt) + salt), as nginx's ngx_crypt_ssha.
      const decoded = Buffer.from(hash.slice('{SSHA}'.length), 'base64');
      if (decoded.length <= 20) return false;
      const salt = decoded.subarray(20);
      return sameBytes(createHash('sha1').update(password, 'utf8').update(salt).digest(), decoded.subarray(0, 20));
    }
    case 'plain':
      return sameText(`{PLAIN}${password}`, hash);
    case 'des-crypt':
      // crypt(3) DES uses the first 8 characters of the password only, as musl's crypt does.
      return sameText(apacheCrypt(password, hash), hash);
    case undefined:
      return false;
  }
}
