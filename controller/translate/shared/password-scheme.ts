// The password hash formats ingress-nginx accepts in an htpasswd file (nginx's auth_basic: its own ngx_crypt for
// `$apr1$`, `{PLAIN}`, `{SHA}` and `{SSHA}`, and the C library's crypt(3) for everything else, which on
// ingress-nginx's Alpine image is musl: DES, `$1$` MD5, `$2a$`/`$2b$`/`$2y$` bcrypt, `$5$` SHA-256, `$6$` SHA-512),
// recognised by their prefix and shape. Pure; the translator reads it, password-hash.ts verifies.
export type PasswordScheme = 'apr1' | 'md5-crypt' | 'bcrypt' | 'sha256-crypt' | 'sha512-crypt' | 'sha1' | 'ssha' | 'plain' | 'des-crypt';

const schemes: readonly [RegExp, PasswordScheme][] = [
  [/^\$apr1\$[./0-9A-Za-z]{0,8}\$[./0-9A-Za-z]{22}$/, 'apr1'],
  [/^\$1\$[./0-9A-Za-z]{0,8}\$[./0-9A-Za-z]{22}$/, 'md5-crypt'],
  [/^\$2[aby]\$\d\d\$[./0-9A-Za-z]{53}$/, 'bcrypt'],
  [/^\$5\$(rounds=\d+\$)?[^$]{0,16}\$[./0-9A-Za-z]{43}$/, 'sha256-crypt'],
  [/^\$6\$(rounds=\d+\$)?[^$]{0,16}\$[./0-9A-Za-z]{86}$/, 'sha512-crypt'],
  [/^\{SHA\}[A-Za-z0-9+/]{27}=$/, 'sha1'],
  [/^\{SSHA\}[A-Za-z0-9+/]{28,}={0,2}$/, 'ssha'],
  [/^\{PLAIN\}/, 'plain'],
  [/^[./0-9A-Za-z]{13}$/, 'des-crypt'],
];

/** The scheme of an htpasswd hash, or undefined when it is in no format ingress-nginx's nginx can verify. */
export function passwordScheme(hash: string): PasswordScheme | undefined {
  return schemes.find(([format]) => format.test(hash))?.[1];
}

/** Schemes whose verification costs more than a few microseconds (worth caching a success). */
export function isSlowScheme(scheme: PasswordScheme): boolean {
  return scheme === 'bcrypt' || scheme === 'sha256-crypt' || scheme === 'sha512-crypt' || scheme === 'apr1' || scheme === 'md5-crypt';
}

/** How reports name a scheme. */
export const schemeLabel: Record<PasswordScheme, string> = {
  apr1: 'apr1 (htpasswd -m, the default)',
  'md5-crypt': 'MD5-crypt ($1$)',
  bcrypt: 'bcrypt (htpasswd -B)',
  'sha256-crypt': 'SHA-256-crypt ($5$)',
  'sha512-crypt': 'SHA-512-crypt ($6$)',
  sha1: '{SHA} (htpasswd -s)',
  ssha: '{SSHA}',
  plain: '{PLAIN}',
  'des-crypt': 'crypt(3) DES (htpasswd -d)',
};

/**
 * The most work a hash may ask of one verification. Verifying costs what the hash says (bcrypt: 2^cost rounds,
 * SHA-crypt: `rounds=`), so a tenant's Secret chooses how much of the controller's CPU each wrong password takes:
 * past these a user cannot log in (a diagnostic on the Ingress) instead of being a slow path. bcrypt 14 takes
 * about 2 s here (bcryptjs), SHA-512-crypt at 1,000,000 rounds about 4 s: both above any default (htpasswd -B:
 * cost 5, up to 17 with -C; glibc's crypt: 5,000 rounds).
 */
export const passwordCostCaps = { bcryptCost: 14, shaCryptRounds: 1_000_000 } as const;

/** Why `hash` costs more than passwordCostCaps allow, or undefined when it does not. */
export function passwordCostProblem(hash: string): string | undefined {
  const scheme = passwordScheme(hash);
  if (scheme === 'bcrypt') {
    const cost = Number(hash.slice(4, 6));
    if (cost > passwordCostCaps.bcryptCost) return `bcrypt cost ${cost} is above the cap of ${passwordCostCaps.bcryptCost}`;
  } else if (scheme === 'sha256-crypt' || scheme === 'sha512-crypt') {
    const rounds = /^\$[56]\$rounds=(\d+)\$/.exec(hash)?.[1];
    if (rounds !== undefined && Number(rounds) > passwordCostCaps.shaCryptRounds) {
      return `SHA-crypt rounds=${rounds} is above the cap of ${passwordCostCaps.shaCryptRounds}`;
    }
  }
  return undefined;
}
