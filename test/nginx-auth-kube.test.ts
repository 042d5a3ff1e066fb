// Kubernetes mode and ingress-nginx basic auth against a real API server: the users live in Opaque Secrets, which
// the cluster source watches (in a second informer) only with opaqueSecrets (--nginx-annotations); then an
// auth-secret resolves, and a change of the Secret reaches the store. Without the flag, the Opaque informer runs
// only while an IngressClass of ours opts in (toggled here with kubectl annotate).
import { KubeConfig } from '@kubernetes/client-node';
import test from 'ava';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { ObjectStore } from '../controller/store.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { translate } from '../controller/translate/translate.js';
import type { Secret } from '../controller/translate/shared/kube-objects.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { waitFor } from './harness/wait.js';
import { nginxAnnotationsInUse } from '../controller/translate/ingress/nginx/nginx-annotations-in-use.js';
import { ingressHttpTableOf } from '../controller/translate/ingress/ingress-listeners.js';
import path from 'node:path';
import { opaqueSecretsWanted } from '../controller/sources/opaque-secrets.js';
import { findRepoRoot } from './harness/repo-root.js';

let cluster: KubeCluster | undefined;

const objects = `
apiVersion: v1
kind: Secret
metadata: {name: basic-auth, namespace: default}
type: Opaque
stringData:
  auth: "alice:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\\n"
---
apiVersion: v1
kind: Secret
metadata: {name: site-tls, namespace: default}
type: kubernetes.io/tls
stringData: {tls.crt: not-checked-here, tls.key: not-checked-here}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: envoy-ingress
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec: {controller: envoy-ingress.io/ingress-controller}
---
# A second class of ours, the one whose opt-in the toggle test switches (the Ingress above keeps the default class).
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx-compat}
spec: {controller: envoy-ingress.io/ingress-controller}
---
# Another controller's class opting in does not make us watch anything.
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: someone-else
  annotations: {envoy-ingress.io/nginx-annotations: "true"}
spec: {controller: example.com/other-controller}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: private
  namespace: default
  annotations:
    nginx.ingress.kubernetes.io/auth-type: basic
    nginx.ingress.kubernetes.io/auth-secret: basic-auth
spec:
  rules:
    - host: private.test
      http:
        paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
`;

const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined };

test.before(async (t) => {
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS, 'building or finding the kube binaries, then starting the cluster');
  await findKubeBinaries();
  t.timeout(180_000);
  cluster = await startKubeCluster();
  await cluster.kubectlOk(['apply', '-f', '-'], { input: objects });
  // Our RoutePolicy CRD (deploy/crds/): its basicAuth reads users from Opaque Secrets too.
  await cluster.kubectlOk(['apply', '--server-side', '-f', path.join(findRepoRoot(), 'deploy/crds/')]);
  await cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', 'crd/routepolicies.gateway.envoy-ingress.io']);
});

test.after.always(async () => {
  await cluster?.stop();
});

async function startSource(t: import('ava').ExecutionContext, opaqueSecrets: boolean | 'per-class' | 'wanted'): Promise<{ store: ObjectStore; source: ClusterSource }> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster!.adminKubeconfigPath);
  const store = new ObjectStore();
  const source = new ClusterSource(kubeConfig, store, silent, {
    opaqueSecrets: opaqueSecrets === 'per-class' ? (classes) => nginxAnnotationsInUse(classes, defaultTranslateOptions) : opaqueSecrets === 'wanted' ? opaqueSecretsWanted(defaultTranslateOptions) : opaqueSecrets,
    discoveryIntervalMs: 500,
  });
  t.teardown(() => source.stop());
  void source.start();
  await source.whenSynced();
  return { store, source };
}

async function sourceInto(t: import('ava').ExecutionContext, opaqueSecrets: boolean): Promise<ObjectStore> {
  return (await startSource(t, opaqueSecrets)).store;
}

const secretNames = (store: ObjectStore): string[] => store.list('Secret').map((s) => s.metadata.name).sort();

test('without opaqueSecrets only TLS Secrets are watched: the auth-secret is not found and the path answers 503', async (t) => {
  const store = await sourceInto(t, false);
  t.deepEqual(secretNames(store), ['site-tls']);
  const { ir, diagnostics } = translate(store.state(), { ...defaultTranslateOptions, nginxAnnotations: true });
  t.true(diagnostics.some((d) => d.reason === 'SecretNotFound' && d.object.name === 'private' && d.message.includes('it must be a Secret of type Opaque')));
  const route = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'private.test')?.routes[0];
  t.like(route?.action, { kind: 'direct', status: 503 });
});

test('with opaqueSecrets the users are read and follow changes of the Secret', async (t) => {
  const store = await sourceInto(t, true);
  t.deepEqual(secretNames(store), ['basic-auth', 'site-tls']);
  const first = translate(store.state(), { ...defaultTranslateOptions, nginxAnnotations: true });
  t.deepEqual(first.diagnostics.filter((d) => d.object.name === 'private'), []);
  const route = ingressHttpTableOf(first.ir).virtualHosts.find((v) => v.name === 'private.test')?.routes[0];
  t.is(route?.policy?.basicAuth?.usersId, 'default/basic-auth/auth-file');
  t.is(first.ir.basicAuthUsers?.[0]?.users.reveal(), 'alice:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\n');
  t.true(first.references.secrets.includes('default/basic-auth'));

  await cluster!.kubectlOk(['patch', 'secret', 'basic-auth', '-n', 'default', '--type', 'merge', '-p', JSON.stringify({ stringData: { auth: 'bob:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=\n' } })]);
  await waitFor(() => Buffer.from((store.get('Secret', 'default', 'basic-auth') as Secret | undefined)?.data?.['auth'] ?? '', 'base64').toString().startsWith('bob:'), {
    description: 'the changed Secret reaches the store',
    timeoutMs: 20_000,
  });
  const second = translate(store.state(), { ...defaultTranslateOptions, nginxAnnotations: true });
  t.deepEqual(second.ir.basicAuthUsers?.map((u) => [u.id, u.users.reveal()]), [['default/basic-auth/auth-file', 'bob:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=\n']]);
});

test.serial('without the flag, Opaque Secrets are watched exactly while an IngressClass of ours opts in (kubectl annotate)', async (t) => {
  const setOptIn = (value: 'true' | '-') =>
    cluster!.kubectlOk(['annotate', '--overwrite', 'ingressclass', 'nginx-compat', value === '-' ? 'envoy-ingress.io/nginx-annotations-' : 'envoy-ingress.io/nginx-annotations=true']);
  // No class of ours opts in (another controller's does): only TLS Secrets.
  const off = await startSource(t, 'per-class');
  t.false(off.source.watchingOpaqueSecrets);
  t.deepEqual(secretNames(off.store), ['site-tls']);

  await setOptIn('true');
  await waitFor(() => secretNames(off.store).includes('basic-auth'), { description: 'the opt-in starts the Opaque informer', timeoutMs: 20_000 });
  t.true(off.source.watchingOpaqueSecrets);

  // A source started while a class opts in is synced only once the Opaque Secrets are listed too.
  const on = await startSource(t, 'per-class');
  t.deepEqual(secretNames(on.store), ['basic-auth', 'site-tls']);

  await setOptIn('-');
  await waitFor(() => !off.source.watchingOpaqueSecrets && !on.source.watchingOpaqueSecrets, { description: 'removing the opt-in stops the informer', timeoutMs: 20_000 });
  // Its Secrets leave the store with it; TLS ones stay.
  t.deepEqual(secretNames(off.store), ['site-tls']);
  t.deepEqual(secretNames(on.store), ['site-tls']);
  // Opting in again lists the Opaque Secrets as they are now, including one created while they were not watched.
  await cluster!.kubectlOk(['create', 'secret', 'generic', 'later-auth', '-n', 'default', '--from-literal=auth=x']);
  await setOptIn('true');
  await waitFor(() => secretNames(off.store).includes('later-auth'), { description: 'opting in again lists the current Opaque Secrets', timeoutMs: 20_000 });
  t.deepEqual(secretNames(off.store), ['basic-auth', 'later-auth', 'site-tls']);
  // Leave the cluster as the other tests of this file expect it (serial tests run first).
  await cluster!.kubectlOk(['delete', 'secret', 'later-auth', '-n', 'default']);
  await setOptIn('-');
});

test.serial('a RoutePolicy asking for basic auth starts the Opaque Secrets informer (kube-controller\'s rule), and its removal stops it', async (t) => {
  const { store, source } = await startSource(t, 'wanted');
  t.false(source.watchingOpaqueSecrets);
  const policy = {
    apiVersion: 'gateway.envoy-ingress.io/v1alpha1',
    kind: 'RoutePolicy',
    metadata: { name: 'users', namespace: 'default' },
    spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'web' }], basicAuth: { secretRef: { name: 'basic-auth' } } },
  };
  await cluster!.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(policy) });
  await waitFor(() => secretNames(store).includes('basic-auth'), { description: 'the RoutePolicy starts the Opaque informer', timeoutMs: 30_000 });
  t.true(source.watchingOpaqueSecrets);
  await cluster!.kubectlOk(['delete', 'routepolicy', 'users', '-n', 'default']);
  await waitFor(() => !source.watchingOpaqueSecrets, { description: 'removing the RoutePolicy stops the informer', timeoutMs: 30_000 });
  t.deepEqual(secretNames(store), ['site-tls']);
});
