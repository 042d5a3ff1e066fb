import test from 'ava';
import { buildResources } from '../envoy/build-resources.js';
import { HtpasswdUsers, type GatewayIR } from '../controller/translate/ir.js';
import { redactPrivateKeys, redactedValue } from './debug-views.js';

const hash = '{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=';

test('debug views redact basic-auth users (password hashes) in served route configurations and in the IR', (t) => {
  const ir: GatewayIR = {
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
              policy: { basicAuth: { users: new HtpasswdUsers(`alice:${hash}\n`), secret: { kind: 'Secret', namespace: 'default', name: 's' } } },
            },
          ],
        },
      ],
    },
    tlsServers: [],
    clusters: [{ name: 'default/web/80', service: { namespace: 'default', name: 'web', port: 80 } }],
    secrets: [],
  };
  const resources = buildResources(ir, [], { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 });
  const served = JSON.stringify(resources.routeConfigurations);
  t.true(served.includes(hash), 'Envoy gets the users');
  const shown = JSON.stringify(redactPrivateKeys(resources.routeConfigurations));
  t.false(shown.includes(hash));
  t.true(shown.includes(`"users":{"inline_string":"${redactedValue}"}`));
  t.false(JSON.stringify(redactPrivateKeys(ir)).includes(hash));
});
