import { readFile } from 'node:fs/promises';
import test from 'ava';
import { Reconciler } from '../controller/reconciler.js';
import { ObjectStore } from '../controller/store.js';
import type { KubeKind } from '../controller/translate/shared/kube-objects.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { findRepoRoot } from '../test/harness/repo-root.js';
import { AdsServer } from '../xds/ads-server.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import { createLogger } from './logger.js';
import { ControllerMetrics, metricNames } from './metrics.js';

function controlPlane() {
  const store = new ObjectStore();
  const cache = new SnapshotCache();
  const reconciler = new Reconciler(store, cache, { translate: defaultTranslateOptions, envoy: { listenAddress: '127.0.0.1', httpPort: 1, httpsPort: 2 } }, createLogger('silent'));
  const server = new AdsServer(cache);
  return { store, cache, reconciler, server };
}

function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('leader status, watch restarts and relists are read from the controller', async (t) => {
  const metrics = new ControllerMetrics({ processMetrics: false });
  let leader = false;
  const lists = new Map<KubeKind, number>([['Ingress', 1], ['Service', 3]]);
  metrics.attach({ ...controlPlane(), isLeader: () => leader, lists: () => lists });
  metrics.onWatchRestart('Service');
  metrics.onWatchRestart('Service');
  let m = (await metrics.scrape()).body;
  t.is(sample(m, metricNames.leader), 0);
  t.is(sample(m, metricNames.watchRestarts, 'kind="Service"'), 2);
  t.is(sample(m, metricNames.relists, 'kind="Ingress"'), 0);
  t.is(sample(m, metricNames.relists, 'kind="Service"'), 2);
  leader = true;
  lists.set('Ingress', 2);
  m = (await metrics.scrape()).body;
  t.is(sample(m, metricNames.leader), 1);
  t.is(sample(m, metricNames.relists, 'kind="Ingress"'), 1);
});

test('diagnostics by reason follow the current build: a fixed problem leaves the gauge', async (t) => {
  const cp = controlPlane();
  const metrics = new ControllerMetrics({ processMetrics: false });
  metrics.attach({ ...cp, isLeader: () => true });
  cp.store.upsert({ kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } });
  cp.store.upsert({
    kind: 'Ingress',
    metadata: { name: 'a', namespace: 'default' },
    spec: { ingressClassName: 'envoy-ingress', rules: [{ host: 'a.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'gone', port: { number: 80 } } } }] } }] },
  });
  cp.reconciler.markReady();
  await cp.reconciler.idle();
  let m = (await metrics.scrape()).body;
  t.is(sample(m, metricNames.diagnostics, 'reason="ServiceNotFound",severity="Warning"'), 1);
  t.is(sample(m, metricNames.watchedObjects, 'kind="Ingress"'), 1);
  t.is(sample(m, `${metricNames.translationDuration}_count`, 'build="full"'), 1);
  cp.store.upsert({ kind: 'Service', metadata: { name: 'gone', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
  await cp.reconciler.idle();
  m = (await metrics.scrape()).body;
  t.is(sample(m, metricNames.diagnostics, 'reason="ServiceNotFound",severity="Warning"'), undefined);
  // Adding the Service re-translated only the Ingress naming it (an incremental build).
  t.is(sample(m, `${metricNames.translationDuration}_count`, 'build="full"'), 1);
  t.is(sample(m, `${metricNames.translationDuration}_count`, 'build="routes"'), 1);
  t.is(sample(m, metricNames.buildFailures), 0);
  cp.reconciler.stop();
});

test('the metrics reference lists every metric', async (t) => {
  const reference = await readFile(`${findRepoRoot()}/docs/reference/metrics.md`, 'utf8');
  for (const name of Object.values(metricNames)) t.true(reference.includes(`\`${name}\``), name);
});

test('the Grafana dashboard charts every metric and names no metric that does not exist', async (t) => {
  const dashboard = JSON.parse(await readFile(`${findRepoRoot()}/deploy/dashboards/grafana-dashboard.json`, 'utf8')) as {
    panels: { targets: { expr: string }[] }[];
  };
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((target) => target.expr)).join('\n');
  const known = new Set<string>(Object.values(metricNames));
  for (const name of known) t.true(exprs.includes(name), name);
  for (const [used] of exprs.matchAll(/envoy_ingress_[a-z_]+/g)) {
    t.true(known.has(used.replace(/_(bucket|count|sum)$/, '')), used);
  }
  // Process metrics the dashboard shows are registered by the default collectors.
  const scraped = (await new ControllerMetrics().scrape()).body;
  for (const name of ['process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
    t.true(exprs.includes(name) && scraped.includes(`\n${name} `), name);
  }
});
