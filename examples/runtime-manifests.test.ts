// The demo's runtime copy of examples/manifests: when the demo serves HTTP on another port than the manifests
// assume (test/demo.test.ts uses free ports), the Gateway's HTTP listener moves with it, so it still shares the
// Ingress listener and gateway.localtest.me is served there. Checked on the configuration the controller builds.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { loadAndBuild } from '../cli/render.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { manifestHttpPort, moveGatewayListeners, readManifestDir, writeRuntimeManifests } from './runtime-manifests.js';

// This file runs as dist/examples/*.test.js; the manifests stay in the source tree.
const committedManifests = fileURLToPath(new URL('../../examples/manifests', import.meta.url));
const demoHttpPort = 18080;

interface VirtualHostDump {
  name: string;
  routes: { match: { headers?: { name: string }[] }; route?: { cluster?: string; weighted_clusters?: { clusters: { name: string; weight: number }[] } } }[];
}

/** The Envoy listeners and the Ingress route table's virtual hosts the runtime copy in `dir` is served with. */
async function servedAs(dir: string): Promise<{ listeners: string[]; ingressHosts: Map<string, VirtualHostDump> }> {
  const config = await loadAndBuild(dir, {
    translate: defaultTranslateOptions,
    envoy: { listenAddress: '127.0.0.1', httpPort: demoHttpPort, httpsPort: demoHttpPort + 1 },
  });
  const listeners = config.resources.listeners.map((l) => String((l as { name?: unknown }).name));
  const ingress = config.resources.routeConfigurations.find((r) => (r as { name?: unknown }).name === 'ingress') as
    | { resource: { virtual_hosts?: VirtualHostDump[] } }
    | undefined;
  return { listeners, ingressHosts: new Map((ingress?.resource.virtual_hosts ?? []).map((vh) => [vh.name, vh])) };
}

test('the Gateway listener follows the demo HTTP port: it shares the Ingress listener, with the header rule and the split', async (t) => {
  const files = await readManifestDir(committedManifests);
  t.deepEqual(moveGatewayListeners(files, manifestHttpPort, demoHttpPort), ['demo/demo/http']);
  const out = await createTempDir('demo-runtime-');
  t.teardown(() => out.remove());
  await writeRuntimeManifests(files, out.path, []);

  const written = await readFile(path.join(out.path, 'gateway-api.yaml'), 'utf8');
  t.regex(written, new RegExp(`port: ${demoHttpPort}\\b`));
  t.regex(written, /^# gateway\.localtest\.me: the same app through the Gateway API/, 'comments kept');
  for (const file of files.filter((f) => f.name !== 'gateway-api.yaml')) {
    t.is(await readFile(path.join(out.path, file.name), 'utf8'), file.text, `${file.name} copied byte for byte`);
  }

  const { listeners, ingressHosts } = await servedAs(out.path);
  t.deepEqual(listeners, ['ingress_http'], 'no listener of its own: the Gateway joins the Ingress listener');
  const gateway = ingressHosts.get('gateway.localtest.me');
  if (gateway === undefined) return void t.fail(`the Ingress route table lacks gateway.localtest.me: ${[...ingressHosts.keys()].join(', ')}`);
  t.true(ingressHosts.has('shop.localtest.me'), 'the Ingress hosts are still served beside it');
  const [byHeader, split] = gateway.routes;
  t.deepEqual(byHeader?.match.headers?.map((h) => h.name), ['x-backend']);
  t.is(byHeader?.route?.cluster, 'demo/api/80');
  t.deepEqual(split?.route?.weighted_clusters?.clusters, [
    { name: 'demo/web/80', weight: 50 },
    { name: 'demo/blog/80', weight: 50 },
  ]);
});

test('without the move, the Gateway would listen on a port of its own, apart from the Ingress listener', async (t) => {
  const files = await readManifestDir(committedManifests);
  const out = await createTempDir('demo-runtime-');
  t.teardown(() => out.remove());
  await writeRuntimeManifests(files, out.path, []);
  const { listeners, ingressHosts } = await servedAs(out.path);
  t.deepEqual(listeners, [`gateway/http/${manifestHttpPort}`, 'ingress_http']);
  t.false(ingressHosts.has('gateway.localtest.me'));
});

test('moving to the same port changes nothing: the files are copied byte for byte', async (t) => {
  const files = await readManifestDir(committedManifests);
  t.deepEqual(moveGatewayListeners(files, manifestHttpPort, manifestHttpPort), []);
  t.true(files.every((f) => !f.changed));
});
