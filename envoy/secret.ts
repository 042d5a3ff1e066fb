import type { CertificateAuthorityIR, TlsSecretIR } from '../ir/index.js';
import { TypeUrl } from '../proto/type-urls.js';
import type { ResourceJson } from './resource-types.js';

/** An SDS Secret holding a server certificate chain and its private key (revealed only here). */
export function buildSecret(secret: TlsSecretIR): ResourceJson {
  return {
    '@type': TypeUrl.secret,
    name: secret.name,
    tls_certificate: {
      certificate_chain: { inline_string: secret.certificateChain },
      private_key: { inline_string: secret.privateKey.reveal() },
    },
  };
}

/** An SDS Secret holding trusted CA certificates (and a revocation list): a validation context. */
export function buildCertificateAuthoritySecret(ca: CertificateAuthorityIR): ResourceJson {
  const validation: ResourceJson = { trusted_ca: { inline_string: ca.certificates } };
  if (ca.revocationList !== undefined) validation['crl'] = { inline_string: ca.revocationList };
  return { '@type': TypeUrl.secret, name: ca.name, validation_context: validation };
}
