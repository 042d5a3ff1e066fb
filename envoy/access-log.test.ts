import test from 'ava';
import { Command } from 'commander';
import { addTranslationFlags, translationOptions, type TranslationFlags } from '../cli/controller-options.js';
import { stdoutAccessLogType } from './access-log.js';
import { buildResources } from './build-resources.js';
import type { EnvoyOptions } from './resource-types.js';
import { ingressPairIR } from './test-helpers/ingress-pair-ir.js';

const ir = ingressPairIR({ http: { name: 'http', virtualHosts: [] }, tlsServers: [], clusters: [], secrets: [] });

function connectionManagers(options: EnvoyOptions): Record<string, unknown>[] {
  const listeners = buildResources(ir, [], options).listeners;
  return listeners.flatMap((l) =>
    (l.resource['filter_chains'] as { filters: { typed_config: Record<string, unknown> }[] }[]).flatMap((c) => c.filters.map((f) => f.typed_config)),
  );
}

function envoyOptionsOf(argv: string[]): EnvoyOptions {
  const cmd = addTranslationFlags(new Command().exitOverride());
  cmd.parse(argv, { from: 'user' });
  return translationOptions(cmd.opts<TranslationFlags>()).envoy;
}

test('every connection manager logs JSON to stdout by default', (t) => {
  const hcms = connectionManagers(envoyOptionsOf([]));
  t.true(hcms.length > 0);
  for (const hcm of hcms) {
    const [log] = hcm['access_log'] as { name: string; typed_config: { '@type': string; log_format: { json_format: Record<string, string> } } }[];
    t.is(log?.name, 'envoy.access_loggers.stdout');
    t.is(log?.typed_config['@type'], stdoutAccessLogType);
    t.is(log?.typed_config.log_format.json_format['status'], '%RESPONSE_CODE%');
    t.is(log?.typed_config.log_format.json_format['route_name'], '%ROUTE_NAME%');
  }
});

test('--access-log=false leaves the access log out', (t) => {
  const options = envoyOptionsOf(['--access-log=false']);
  t.is(options.accessLog, false);
  for (const hcm of connectionManagers(options)) t.false('access_log' in hcm);
  t.throws(() => envoyOptionsOf(['--access-log=maybe']));
});

test('--access-log-query=false logs the path without its query string; on by default', (t) => {
  const pathOf = (argv: string[]) =>
    connectionManagers(envoyOptionsOf(argv)).map(
      (hcm) => (hcm['access_log'] as { typed_config: { log_format: { json_format: Record<string, string> } } }[])[0]!.typed_config.log_format.json_format['path'],
    );
  t.deepEqual(pathOf([]), ['%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%']);
  t.deepEqual(pathOf(['--access-log-query=false']), ['%PATH(NQ:ORIG_OR_PATH)%']);
});
