// The users of a basic-auth Secret (htpasswd lines), read the same way for ingress-nginx's auth-secret
// (ingress/nginx/nginx-auth.ts) and a RoutePolicy's basicAuth (gateway-api/route-policies.ts).
import { compareStrings } from '../../../ir/index.js';
import type { Secret } from './kube-objects.js';
import { passwordCostProblem, passwordScheme } from './password-scheme.js';

export type ReadUsers = { lines: string[]; skipped: string[] } | { error: string };

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(value: string): string | undefined {
  const compact = value.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !base64.test(compact)) return undefined;
  return Buffer.from(compact, 'base64').toString('utf8');
}

/**
 * The users of a basic-auth Secret as htpasswd lines whose hash is in a format ingress-nginx accepts, and a message
 * per entry left out. auth-file: the key `auth` holds an htpasswd file; auth-map: each key is a user, its value the
 * hash. Messages name an entry by its line (auth-file) or its position in key order (auth-map), never by anything
 * the Secret holds: they become Events that whoever can read the Ingress sees (issue 14).
 */
export function readUsers(secret: Secret, secretType: 'auth-file' | 'auth-map'): ReadUsers {
  const entries: { where: string; user: string; hash: string }[] = [];
  if (secretType === 'auth-file') {
    const raw = secret.data?.['auth'];
    if (raw === undefined) return { error: 'has no data "auth" (an htpasswd file)' };
    const text = decodeBase64(raw);
    if (text === undefined) return { error: 'data "auth" is not valid base64' };
    text.split(/\r?\n/).forEach((line, i) => {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) return;
      const colon = trimmed.indexOf(':');
      const where = `line ${i + 1} of data "auth"`;
      entries.push(colon === -1 ? { where, user: trimmed, hash: '' } : { where, user: trimmed.slice(0, colon), hash: trimmed.slice(colon + 1).trim() });
    });
  } else {
    const keys = Object.entries(secret.data ?? {}).sort(([a], [b]) => compareStrings(a, b));
    for (const [i, [user, raw]] of keys.entries()) {
      const hash = decodeBase64(raw);
      if (hash === undefined) return { error: `data entry ${i + 1} (in key order) is not valid base64` };
      entries.push({ where: `data entry ${i + 1} (in key order)`, user, hash: hash.trim() });
    }
  }
  const lines: string[] = [];
  const skipped: string[] = [];
  const users = new Set<string>();
  for (const { where, user, hash } of entries) {
    if (!/^[\x21-\x7e]{1,256}$/.test(user) || user.includes(':')) {
      skipped.push(`${where} is not "user:hash" with a valid user name; skipped`);
    } else if (users.has(user)) {
      skipped.push(`${where} names a user an earlier entry has; the first entry is used`);
    } else if (hash === '') {
      skipped.push(`${where} has no password hash; that user cannot log in`);
      users.add(user);
    } else if (passwordScheme(hash) === undefined) {
      skipped.push(`${where}: the user cannot log in: the password hash is in no format ingress-nginx accepts (apr1, bcrypt, SHA-256/512-crypt, MD5-crypt, DES crypt, {SHA}, {SSHA}, {PLAIN})`);
      users.add(user);
    } else if (passwordCostProblem(hash) !== undefined) {
      // Verifying it would hold a CPU for seconds per wrong password (issue 25 item 4).
      skipped.push(`${where}: the user cannot log in: ${passwordCostProblem(hash)}`);
      users.add(user);
    } else {
      lines.push(`${user}:${hash}`);
      users.add(user);
    }
  }
  return { lines, skipped };
}

