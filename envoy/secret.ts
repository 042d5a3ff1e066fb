import type { TlsSecretIR } from '../ir/index.js';
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
