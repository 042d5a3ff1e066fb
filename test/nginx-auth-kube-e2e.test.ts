// Kubernetes mode, ingress-nginx basic auth switched on per IngressClass, end to end: a real API server, the real
// CLI running as the ServiceAccount bound to deploy/'s RBAC and started WITHOUT --nginx-annotations, a real Envoy,
// and an echo backend on a test host (network namespace). Annotating the IngressClass with kubectl turns the
// nginx annotations on, which makes the controller watch Opaque Secrets (the users of auth-secret): a wrong
// password gets 401, the right one 200; removing the annotation turns them off again.
import { createHash } from 'node:crypto';
import test from 'ava';
import { stringify } from 'yaml';
import {
  backendServiceObjects,
  manifestYaml,
  oneHostIngress,
  showStackLogsOnFailure,
  startKubeControllerAndEnvoy,
  startKubeE2eStack,
  stopKubeE2eStack,
  type KubeE2eWorld,
} from './fixtures/kube-e2e-stack.js';
import { httpGet } from './harness/http-client.js';
import { waitFor } from './harness/wait.js';

let world: KubeE2eWorld | undefined;
const ns = 'private';
const hostName = 'private.example.test';
/** Another tenant: its Ingress names the `private` namespace's Secret. */
const tenant = 'tenant';
const tenantHost = 'tenant.example.test';
const strayLine = 'do-not-leak-this-line';

/** An htpasswd line in the {SHA} scheme ingress-nginx accepts (base64 of the password's SHA-1). */
const htpasswd = (user: string, password: string): string => `${user}:{SHA}${createHash('sha1').update(password).digest('base64')}\n`;

function objects(backend: { address: string; port: number }): string {
  const annotations = {
    'nginx.ingress.kubernetes.io/auth-type': 'basic',
    'nginx.ingress.kubernetes.io/auth-secret': 'basic-auth',
    'nginx.ingress.kubernetes.io/auth-realm': 'Authentication Required',
  };
  return manifestYaml([
    // A stray line without a colon: the user-name check once copied such lines into Events.
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'basic-auth', namespace: ns }, type: 'Opaque', stringData: { auth: `${htpasswd('alice', 's3cret')}${strayLine}\n` } },
    ...backendServiceObjects(ns, 'web', backend),
    oneHostIngress({ namespace: ns, name: 'private', host: hostName, service: 'web', annotations }),
  ]);
}

function w(): KubeE2eWorld {
  if (!world) throw new Error('cluster not started');
  return world;
}

async function statusOf(credentials?: string, host = hostName): Promise<number | string> {
  try {
    const res = await httpGet({
      port: w().httpPort,
      hostHeader: host,
      path: '/',
      timeoutMs: 3000,
      ...(credentials === undefined ? {} : { headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } }),
    });
    return res.status;
  } catch (err: unknown) {
    return `error ${String(err)}`;
  }
}

async function setOptIn(on: boolean): Promise<void> {
  const annotation = 'envoy-ingress.io/nginx-annotations';
  await w().cluster.kubectlOk(['annotate', '--overwrite', 'ingressclass', 'envoy-ingress', on ? `${annotation}=true` : `${annotation}-`]);
}

test.before(async (t) => {
  const stack = await startKubeE2eStack(t, 'starting the cluster, the controller and Envoy');
  const backend = await stack.host.startEcho({ service: 'web' });
  await stack.cluster.kubectlOk(['create', 'namespace', ns]);
  await stack.cluster.kubectlOk(['apply', '-f', '-'], { input: objects(backend) });
  // No --nginx-annotations: only the IngressClass's annotation can turn them on.
  const options = { identity: 'controller-auth', publishAddress: '192.0.2.20', envoyNodeId: 'envoy-auth', extraArgs: ['--log-level=debug'] };
  await startKubeControllerAndEnvoy(stack, options, (started) => (world = started));
});

test.after.always(async () => {
  if (world) await stopKubeE2eStack(world);
});

test.serial('without the class opt-in the nginx auth annotations are not read and no Opaque Secret is watched', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await waitFor(async () => (await statusOf()) === 200, { description: 'the Ingress is served (without auth)', timeoutMs: 30_000 });
  t.false(w().controller.entries().some((e) => e['msg'] === 'watching Opaque Secrets (ingress-nginx basic auth: auth-secret)'));
});

test.serial('kubectl annotate on the IngressClass turns basic auth on: 401 for a wrong password, 200 for the right one', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await setOptIn(true);
  await w().controller.waitForLog('watching Opaque Secrets (ingress-nginx basic auth: auth-secret)');
  await waitFor(async () => (await statusOf('alice:s3cret')) === 200 && (await statusOf()) === 401, {
    description: 'basic auth enforced with the users of the Opaque Secret',
    timeoutMs: 30_000,
  });
  t.is(await statusOf('alice:wrong'), 401);
  t.is(await statusOf('bob:s3cret'), 401);
  t.is(await statusOf('alice:s3cret'), 200);
});

test.serial('removing the annotation turns the nginx annotations off again and stops watching Opaque Secrets', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await setOptIn(false);
  await w().controller.waitForLog('no longer watching Opaque Secrets: no IngressClass opts in to nginx annotations');
  await waitFor(async () => (await statusOf()) === 200, { description: 'served without auth again', timeoutMs: 30_000 });
  // Opting in again reads the users afresh (the Secret, changed meanwhile, is listed anew).
  await w().cluster.kubectlOk(['patch', 'secret', 'basic-auth', '-n', ns, '--type', 'merge', '-p', JSON.stringify({ stringData: { auth: htpasswd('bob', 'other') } })]);
  await setOptIn(true);
  await waitFor(async () => (await statusOf('bob:other')) === 200 && (await statusOf('alice:s3cret')) === 401, {
    description: 'the changed users apply after opting in again',
    timeoutMs: 30_000,
  });
  t.is(await statusOf(), 401);
});

test.serial('a tenant naming another namespace\'s Secret is refused: its paths answer 503 and no Event carries the Secret', async (t) => {
  showStackLogsOnFailure(t, () => world);
  await setOptIn(true);
  await w().cluster.kubectlOk(['create', 'namespace', tenant]);
  const steal = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name: 'steal',
      namespace: tenant,
      annotations: { 'nginx.ingress.kubernetes.io/auth-type': 'basic', 'nginx.ingress.kubernetes.io/auth-secret': `${ns}/basic-auth` },
    },
    spec: {
      ingressClassName: 'envoy-ingress',
      rules: [{ host: tenantHost, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
    },
  };
  await w().cluster.kubectlOk(['apply', '-f', '-'], { input: stringify(steal) });
  const events = async (): Promise<{ reason: string; message: string }[]> => {
    const out = await w().cluster.kubectlOk(['get', 'events', '-n', tenant, '-o', 'json']);
    return (JSON.parse(out) as { items: { reason: string; message: string }[] }).items;
  };
  await waitFor(async () => (await events()).some((e) => e.reason === 'SecretNamespaceRefused'), { description: 'the refusal Event', timeoutMs: 30_000 });
  // Closed, whatever credentials are sent: the other namespace's users never become this Ingress's.
  t.is(await statusOf(undefined, tenantHost), 503);
  t.is(await statusOf('alice:s3cret', tenantHost), 503);
  const all = JSON.stringify(await events());
  for (const word of ['alice', '{SHA}', strayLine, createHash('sha1').update('s3cret').digest('base64')]) t.false(all.includes(word), word);
  // The refusal does not tell whether the Secret exists: the same message for a name that does not.
  const message = (await events()).find((e) => e.reason === 'SecretNamespaceRefused')?.message ?? '';
  t.regex(message, /namespace "private"; an Ingress may only use Secrets of its own namespace/);
  // Nor does the controller's log.
  t.false(w().controller.logs().includes(strayLine));
});
