import { type DataPlaneIR, HtpasswdUsers } from '../ir/index.js';
import test from 'ava';
import { buildResources } from '../envoy/build-resources.js';
import { redactPrivateKeys, redactedValue } from './debug-views.js';
import { ingressPairIR } from '../envoy/test-helpers/ingress-pair-ir.js';

const hash = '{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=';

test('basic-auth users (password hashes) never reach Envoy, and the IR shows them redacted', (t) => {
  const ir: DataPlaneIR = ingressPairIR({
    http: {
      name: 'http',
      virtualHosts: [
        {
          name: 'a.test',
          hostnames: ['a.test'],
          routes: [
            {
              name: 'r',
              match: { kind: 'prefix', path: '/' },
              action: { kind: 'forward', cluster: 'default/web/80' },
              policy: { basicAuth: { usersId: 'default/s/auth-file', realm: 'R', secret: { kind: 'Secret', namespace: 'default', name: 's' } } },
            },
          ],
        },
      ],
    },
    tlsServers: [],
    clusters: [{ name: 'default/web/80', service: { namespace: 'default', name: 'web', port: 80 } }],
    secrets: [],
    basicAuthUsers: [{ id: 'default/s/auth-file', users: new HtpasswdUsers(`alice:${hash}\n`) }],
  });
  const resources = buildResources(ir, [], { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 });
  const served = JSON.stringify(resources);
  // Envoy gets the users' id and realm only: the controller checks the passwords (controller/auth/).
  t.true(served.includes('"basic-auth-users":"default/s/auth-file"'));
  t.false(served.includes(hash));
  t.false(served.includes('alice'));
  const shown = JSON.stringify(redactPrivateKeys(ir));
  t.false(shown.includes(hash));
  t.true(shown.includes(`"users":"${redactedValue}"`));
});
