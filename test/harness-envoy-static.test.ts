/**
 * The Envoy harness against the real Envoy: a static bootstrap routing by Host to two echo backends, admin
 * helpers (listener ports, stats, config dump, warming), start failures, and stop.
 */
import test from 'ava';
import { useEchoBackend, useEnvoy } from './harness/ava-fixtures.js';
import type { EchoBackend } from './harness/echo-backend.js';
import { findSection, startEnvoy } from './harness/envoy-process.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { rename, writeFile } from 'node:fs/promises';

const ROUTER = {
  name: 'envoy.filters.http.router',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
};

const ADMIN = { address: { socket_address: { address: '127.0.0.1', port_value: 0 } } };

function staticCluster(name: string, backend: EchoBackend): object {
  return {
    name,
    type: 'STATIC',
    connect_timeout: '1s',
    load_assignment: {
      cluster_name: name,
      endpoints: [
        { lb_endpoints: [{ endpoint: { address: { socket_address: { address: backend.address, port_value: backend.port } } } }] },
      ],
    },
  };
}

function hostRoutingBootstrap(alpha: EchoBackend, beta: EchoBackend): object {
  return {
    admin: ADMIN,
    static_resources: {
      listeners: [
        {
          name: 'ingress_http',
          address: { socket_address: { address: '127.0.0.1', port_value: 0 } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type':
                      'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                    stat_prefix: 'ingress_http',
                    route_config: {
                      name: 'ingress_routes',
                      virtual_hosts: [
                        { name: 'alpha', domains: ['alpha.example.test'], routes: [{ match: { prefix: '/' }, route: { cluster: 'alpha' } }] },
                        { name: 'beta', domains: ['beta.example.test'], routes: [{ match: { prefix: '/' }, route: { cluster: 'beta' } }] },
                      ],
                    },
                    http_filters: [ROUTER],
                  },
                },
              ],
            },
          ],
        },
      ],
      clusters: [staticCluster('alpha', alpha), staticCluster('beta', beta)],
    },
  };
}

test('static bootstrap: Host header picks the backend, unknown host is 404, admin helpers report state', async (t) => {
  const alpha = await useEchoBackend(t, { service: 'alpha' });
  const beta = await useEchoBackend(t, { service: 'beta' });
  const envoy = await useEnvoy(t, { bootstrap: hostRoutingBootstrap(alpha, beta) });

  const port = await envoy.waitForListener('ingress_http');
  t.is(await envoy.listenerPort('ingress_http'), port);
  t.true(port > 0);

  const toAlpha = await httpGet({ port, hostHeader: 'alpha.example.test', path: '/one?x=1' });
  t.is(toAlpha.status, 200);
  t.is(toAlpha.json.service, 'alpha');
  t.is(toAlpha.json.path, '/one?x=1');
  t.is(toAlpha.json.host, 'alpha.example.test');
  t.is(toAlpha.headers['x-echo-service'], 'alpha');

  const toBeta = await httpGet({ port, hostHeader: 'beta.example.test', path: '/two', headers: { 'x-test': 'yes' } });
  t.is(toBeta.status, 200);
  t.is(toBeta.json.service, 'beta');
  t.is(toBeta.json.headers['x-test'], 'yes');

  const unknown = await httpGet({ port, hostHeader: 'nobody.example.test', path: '/' });
  t.is(unknown.status, 404);
  t.is(alpha.requests, 1);
  t.is(beta.requests, 1);

  t.deepEqual(await envoy.warmingState(), { warmingClusters: [], warmingListeners: [] });

  // Counters are read live from the admin API; the filter is a regular expression over stat names.
  const stats = await envoy.stats('^cluster\\.(alpha|beta)\\.upstream_rq_total$');
  t.deepEqual(stats, { 'cluster.alpha.upstream_rq_total': 1, 'cluster.beta.upstream_rq_total': 1 });
  const allStats = await envoy.stats();
  t.true(Object.keys(allStats).length > 100);
  t.true(Object.values(allStats).every((value) => typeof value === 'number'));

  const dump = await envoy.configDump();
  const clusters = findSection(dump, 'ClustersConfigDump');
  t.deepEqual(
    (clusters?.['static_clusters'] as Array<{ cluster: { name: string } }>).map((entry) => entry.cluster.name).sort(),
    ['alpha', 'beta'],
  );
  const withEds = await envoy.configDump({ includeEds: true });
  t.truthy(findSection(withEds, 'EndpointsConfigDump'));
  t.falsy(findSection(dump, 'EndpointsConfigDump'));

  t.is(await envoy.serverState(), 'LIVE');
  const admin = await envoy.admin('/ready');
  t.is(admin.status, 200);
  t.regex(envoy.logs(), /starting main dispatch loop/);
});

test('stop() ends the process and the admin API stops answering', async (t) => {
  const alpha = await useEchoBackend(t, { service: 'alpha' });
  const beta = await useEchoBackend(t, { service: 'beta' });
  const envoy = await startEnvoy({ bootstrap: hostRoutingBootstrap(alpha, beta) });
  t.teardown(() => envoy.stop());
  await envoy.waitForListener('ingress_http');

  const exit = await envoy.stop();
  t.true(exit.code === 0 || exit.signal === 'SIGTERM', JSON.stringify(exit));
  t.throws(() => process.kill(envoy.pid, 0), { code: 'ESRCH' });
  await t.throwsAsync(envoy.admin('/ready'));
  t.deepEqual(await envoy.stop(), exit);
});

test('startEnvoy rejects with Envoy output when the bootstrap is invalid', async (t) => {
  const error = await t.throwsAsync(
    startEnvoy({ bootstrap: { admin: ADMIN, static_resources: { clusters: [{ name: 'broken', type: 'NOT_A_TYPE' }] } } }),
  );
  t.regex(error.message, /Envoy did not start/);
  t.regex(error.message, /NOT_A_TYPE/);
});

test('warmingState names clusters waiting for EDS and listeners waiting for RDS; waitForListener ignores them', async (t) => {
  // CDS and LDS come from files; the EDS and RDS they need come from an xDS server that does not exist
  // (connection refused on 127.0.0.1), so both stay warming until the long initial_fetch_timeout. Resources
  // only warm when added after Envoy's initialization, so the files start empty and are filled once LIVE.
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  // Envoy's file subscription reacts to a file moved into place: write aside, then rename.
  const replaceFile = async (name: string, content: object): Promise<void> => {
    await writeFile(dir.file(`${name}.tmp`), JSON.stringify(content));
    await rename(dir.file(`${name}.tmp`), dir.file(name));
  };
  await replaceFile('cds.json', { resources: [] });
  await replaceFile('lds.json', { resources: [] });

  const envoy = await useEnvoy(t, {
    bootstrap: {
      node: { id: 'harness-test', cluster: 'harness-test' },
      admin: ADMIN,
      dynamic_resources: {
        cds_config: { path_config_source: { path: dir.file('cds.json') }, resource_api_version: 'V3' },
        lds_config: { path_config_source: { path: dir.file('lds.json') }, resource_api_version: 'V3' },
      },
      static_resources: {
        clusters: [
          {
            name: 'unreachable_xds',
            type: 'STATIC',
            connect_timeout: '1s',
            typed_extension_protocol_options: {
              'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
                '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
                explicit_http_config: { http2_protocol_options: {} },
              },
            },
            load_assignment: {
              cluster_name: 'unreachable_xds',
              endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: 1 } } } }] }],
            },
          },
        ],
      },
    },
  });
  await envoy.waitForLive();
  t.deepEqual(await envoy.warmingState(), { warmingClusters: [], warmingListeners: [] });

  const waitingSource = {
    api_config_source: {
      api_type: 'GRPC',
      transport_api_version: 'V3',
      grpc_services: [{ envoy_grpc: { cluster_name: 'unreachable_xds' } }],
    },
    resource_api_version: 'V3',
    initial_fetch_timeout: '300s',
  };
  await replaceFile('cds.json', {
    resources: [
      {
        '@type': 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
        name: 'waiting_cluster',
        type: 'EDS',
        connect_timeout: '1s',
        eds_cluster_config: { eds_config: waitingSource },
      },
    ],
  });
  await replaceFile('lds.json', {
    resources: [
      {
        '@type': 'type.googleapis.com/envoy.config.listener.v3.Listener',
        name: 'waiting_listener',
        address: { socket_address: { address: '127.0.0.1', port_value: 0 } },
        filter_chains: [
          {
            filters: [
              {
                name: 'envoy.filters.network.http_connection_manager',
                typed_config: {
                  '@type':
                    'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                  stat_prefix: 'waiting',
                  rds: { route_config_name: 'waiting_routes', config_source: waitingSource },
                  http_filters: [ROUTER],
                },
              },
            ],
          },
        ],
      },
    ],
  });

  let state = await envoy.warmingState();
  await envoy.waitUntil(
    async () => {
      state = await envoy.warmingState();
      return state.warmingClusters.length > 0 && state.warmingListeners.length > 0;
    },
    10_000,
    'the cluster and the listener to be warming',
  );
  t.deepEqual(state, { warmingClusters: ['waiting_cluster'], warmingListeners: ['waiting_listener'] });

  const error = await t.throwsAsync(envoy.waitForListener('waiting_listener', 500));
  t.regex(error.message, /waiting_listener/);
  t.regex(error.message, /--- Envoy output ---/);
});
