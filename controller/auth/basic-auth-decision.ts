// Whether a request's basic-auth credentials are those of a user of its route's Secret, as nginx's auth_basic
// decides: an unknown user, a wrong password, a user without a usable hash, a missing or malformed header are all
// refused alike (401). Successful verifications are remembered, failures for a few seconds (VerifiedPasswords).
import { parseBasicCredentials } from './basic-credentials.js';
import { verifyPassword } from './password-hash.js';
import { VerifiedPasswords } from './verified-passwords.js';

/**
 * allow: the credentials are right; deny: 401; unavailable: the users are not known here (503, fail closed);
 * busy: this Secret has too many checks pending (429: one tenant's storm, answered for that tenant alone).
 */
export type BasicAuthDecision = 'allow' | 'deny' | 'unavailable' | 'busy';

export async function decideBasicAuth(
  users: ReadonlyMap<string, string> | undefined,
  authorization: string | undefined,
  verified: VerifiedPasswords,
  verify: (password: string, hash: string) => Promise<boolean | 'busy'> = verifyPassword,
): Promise<BasicAuthDecision> {
  if (users === undefined) return 'unavailable';
  const credentials = parseBasicCredentials(authorization);
  if (credentials === undefined) return 'deny';
  const hash = users.get(credentials.user);
  if (hash === undefined) return 'deny';
  const key = VerifiedPasswords.keyOf(hash, credentials.password);
  if (verified.has(key)) return 'allow';
  if (verified.failedRecently(key)) return 'deny';
  const verdict = await verified.verifyOnce(key, () => verify(credentials.password, hash));
  if (verdict === 'busy') return 'busy';
  if (!verdict) {
    verified.addFailure(key);
    return 'deny';
  }
  verified.add(key);
  return 'allow';
}
