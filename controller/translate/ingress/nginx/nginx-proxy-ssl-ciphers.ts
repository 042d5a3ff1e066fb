// ingress-nginx proxy-ssl-ciphers (an OpenSSL cipher list for nginx proxy_ssl_ciphers) -> the TLS 1.2 cipher rules
// Envoy's BoringSSL takes. Envoy refuses a rule list that names a cipher or alias BoringSSL does not know, or that
// leaves no cipher, and with it the whole cluster update: so the list is evaluated here, over BoringSSL's TLS 1.2
// ciphers and aliases (ssl/ssl_cipher.cc), and passed on only when every rule is known and some cipher remains.

/** BoringSSL's TLS 1.2 ciphers, each with the aliases that select it. */
const ciphers: Readonly<Record<string, readonly string[]>> = {
  'DES-CBC3-SHA': ['kRSA', 'aRSA', 'RSA', '3DES', 'SHA1', 'SHA'],
  'AES128-SHA': ['kRSA', 'aRSA', 'RSA', 'AES128', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'AES256-SHA': ['kRSA', 'aRSA', 'RSA', 'AES256', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'AES128-GCM-SHA256': ['kRSA', 'aRSA', 'RSA', 'AES128', 'AES', 'AESGCM', 'SHA256', 'HIGH', 'FIPS'],
  'AES256-GCM-SHA384': ['kRSA', 'aRSA', 'RSA', 'AES256', 'AES', 'AESGCM', 'SHA384', 'HIGH', 'FIPS'],
  'ECDHE-ECDSA-AES128-SHA': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aECDSA', 'ECDSA', 'AES128', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'ECDHE-ECDSA-AES256-SHA': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aECDSA', 'ECDSA', 'AES256', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'ECDHE-RSA-AES128-SHA': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aRSA', 'AES128', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'ECDHE-RSA-AES256-SHA': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aRSA', 'AES256', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'ECDHE-ECDSA-AES128-GCM-SHA256': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aECDSA', 'ECDSA', 'AES128', 'AES', 'AESGCM', 'SHA256', 'HIGH', 'FIPS'],
  'ECDHE-ECDSA-AES256-GCM-SHA384': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aECDSA', 'ECDSA', 'AES256', 'AES', 'AESGCM', 'SHA384', 'HIGH', 'FIPS'],
  'ECDHE-RSA-AES128-GCM-SHA256': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aRSA', 'AES128', 'AES', 'AESGCM', 'SHA256', 'HIGH', 'FIPS'],
  'ECDHE-RSA-AES256-GCM-SHA384': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aRSA', 'AES256', 'AES', 'AESGCM', 'SHA384', 'HIGH', 'FIPS'],
  'ECDHE-ECDSA-CHACHA20-POLY1305': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aECDSA', 'ECDSA', 'CHACHA20', 'HIGH'],
  'ECDHE-RSA-CHACHA20-POLY1305': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aRSA', 'CHACHA20', 'HIGH'],
  'PSK-AES128-CBC-SHA': ['kPSK', 'aPSK', 'PSK', 'AES128', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'PSK-AES256-CBC-SHA': ['kPSK', 'aPSK', 'PSK', 'AES256', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'ECDHE-PSK-AES128-CBC-SHA': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aPSK', 'AES128', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'ECDHE-PSK-AES256-CBC-SHA': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aPSK', 'AES256', 'AES', 'SHA1', 'SHA', 'HIGH', 'FIPS'],
  'ECDHE-PSK-CHACHA20-POLY1305': ['kECDHE', 'kEECDH', 'ECDHE', 'EECDH', 'ECDH', 'aPSK', 'CHACHA20', 'HIGH'],
};
const names = Object.keys(ciphers);
const aliases = new Set(Object.values(ciphers).flat());

/** The ciphers one term selects (`A+B`: those all its parts select), or undefined for an unknown part. */
function selected(term: string): string[] | undefined {
  if (term === 'ALL' || term === 'DEFAULT') return names;
  let chosen = names;
  for (const part of term.split('+')) {
    if (Object.hasOwn(ciphers, part)) chosen = chosen.filter((c) => c === part);
    else if (aliases.has(part)) chosen = chosen.filter((c) => ciphers[c]?.includes(part) === true);
    else return undefined;
  }
  return chosen;
}

/**
 * The rules (split on ':') when BoringSSL knows every one and some cipher remains; otherwise why not. `-` and `+`
 * only remove or reorder, `!` removes for good (as in OpenSSL and BoringSSL); a leading `@STRENGTH` or other
 * directive is not known.
 */
export function boringSslCipherRules(value: string): { rules: string[] } | { problem: string } {
  const rules = value.split(':').map((r) => r.trim()).filter((r) => r !== '');
  if (rules.length === 0) return { problem: 'names no cipher' };
  const enabled = new Set<string>();
  const banned = new Set<string>();
  for (const rule of rules) {
    const op = /^[!+-]/.test(rule) ? rule[0] : '';
    const chosen = selected(op === '' ? rule : rule.slice(1));
    if (chosen === undefined) return { problem: `${JSON.stringify(rule)} names a cipher or group Envoy (BoringSSL) does not know` };
    for (const cipher of chosen) {
      if (op === '!') {
        banned.add(cipher);
        enabled.delete(cipher);
      } else if (op === '-') enabled.delete(cipher);
      else if (op === '' && !banned.has(cipher)) enabled.add(cipher);
    }
  }
  return enabled.size === 0 ? { problem: 'leaves no cipher Envoy (BoringSSL) supports' } : { rules };
}
