// Kubernetes mode and ingress-nginx basic auth against a real API server: the users live in Opaque Secrets, which
// the cluster source watches (in a second informer) only with opaqueSecrets (--nginx-annotations); then an
// auth-secret resolves, and a change of the Secret reaches the store.
import { KubeConfig } from '@kubernetes/client-node';
import test from 'ava';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { ObjectStore } from '../controller/store.js';
import { defaultTranslateOptions } from '../controller/translate/options.js';
import { translate } from '../controller/translate/translate.js';
import type { Secret } from '../controller/translate/kube-objects.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { waitFor } from './harness/wait.js';

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
});

test.after.always(async () => {
  await cluster?.stop();
});

async function sourceInto(t: import('ava').ExecutionContext, opaqueSecrets: boolean): Promise<ObjectStore> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster!.adminKubeconfigPath);
  const store = new ObjectStore();
  const source = new ClusterSource(kubeConfig, store, silent, { opaqueSecrets });
  t.teardown(() => source.stop());
  void source.start();
  await source.whenSynced();
  return store;
}

const secretNames = (store: ObjectStore): string[] => store.list('Secret').map((s) => s.metadata.name).sort();

test('without opaqueSecrets only TLS Secrets are watched: the auth-secret is not found and the path answers 503', async (t) => {
  const store = await sourceInto(t, false);
  t.deepEqual(secretNames(store), ['site-tls']);
  const { ir, diagnostics } = translate(store.state(), { ...defaultTranslateOptions, nginxAnnotations: true });
  t.true(diagnostics.some((d) => d.reason === 'SecretNotFound' && d.object.name === 'private'));
  const route = ir.http.virtualHosts.find((v) => v.name === 'private.test')?.routes[0];
  t.like(route?.action, { kind: 'direct', status: 503 });
});

test('with opaqueSecrets the users are read and follow changes of the Secret', async (t) => {
  const store = await sourceInto(t, true);
  t.deepEqual(secretNames(store), ['basic-auth', 'site-tls']);
  const first = translate(store.state(), { ...defaultTranslateOptions, nginxAnnotations: true });
  t.deepEqual(first.diagnostics.filter((d) => d.object.name === 'private'), []);
  const route = first.ir.http.virtualHosts.find((v) => v.name === 'private.test')?.routes[0];
  t.is(route?.policy?.basicAuth?.users.reveal(), 'alice:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\n');
  t.true(first.references.secrets.includes('default/basic-auth'));

  await cluster!.kubectlOk(['patch', 'secret', 'basic-auth', '-n', 'default', '--type', 'merge', '-p', JSON.stringify({ stringData: { auth: 'bob:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=\n' } })]);
  await waitFor(() => Buffer.from((store.get('Secret', 'default', 'basic-auth') as Secret | undefined)?.data?.['auth'] ?? '', 'base64').toString().startsWith('bob:'), {
    description: 'the changed Secret reaches the store',
    timeoutMs: 20_000,
  });
  const second = translate(store.state(), { ...defaultTranslateOptions, nginxAnnotations: true });
  t.is(second.ir.http.virtualHosts.find((v) => v.name === 'private.test')?.routes[0]?.policy?.basicAuth?.users.reveal(), 'bob:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=\n');
});
