/**
 * The test Kubernetes cluster harness against real etcd, kube-apiserver and kubectl binaries: the objects the
 * controller reads round-trip through the API, RBAC denies an unbound ServiceAccount, TLS is verified, data
 * survives an API server restart, and stop() leaves no processes behind.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { httpGet } from './harness/http-client.js';
import { createApiServerKeyMaterial } from './harness/kube-certs.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS, parseEnsureBinariesOutput } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { createTestHost, type TestHost } from './harness/netns-host.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir, type TempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';

let cluster: KubeCluster | undefined;
let scratch: TempDir | undefined;
/** Backends' address: a network namespace of this run, since the API server refuses loopback endpoints. */
let testHost: TestHost | undefined;

test.before(async (t) => {
  // A cold cache compiles kube-apiserver from source first.
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS, 'building or finding the kube binaries, then starting the cluster');
  await findKubeBinaries();
  t.timeout(180_000);
  cluster = await startKubeCluster();
  scratch = await createTempDir('kube-cluster-test-');
  testHost = await createTestHost();
});

test.after.always(async () => {
  await cluster?.stop();
  await scratch?.remove();
  await testHost?.destroy();
});

function started(): KubeCluster {
  if (!cluster) throw new Error('the cluster did not start');
  return cluster;
}

function host(): TestHost {
  if (!testHost) throw new Error('the test host was not created');
  return testHost;
}

const namespace = 'shop';
const manifests = (endpointAddress: string, tlsCertPem: string, tlsKeyPem: string): string => `
apiVersion: v1
kind: Namespace
metadata:
  name: ${namespace}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${namespace}
spec:
  selector:
    app: web
  ports:
    - name: http
      port: 80
      targetPort: 8080
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc12
  namespace: ${namespace}
  labels:
    kubernetes.io/service-name: web
addressType: IPv4
ports:
  - name: http
    port: 8080
    protocol: TCP
endpoints:
  - addresses: ["${endpointAddress}"]
    conditions:
      ready: true
  - addresses: ["10.20.30.40"]
    conditions:
      ready: false
---
apiVersion: v1
kind: Secret
metadata:
  name: web-tls
  namespace: ${namespace}
type: kubernetes.io/tls
data:
  tls.crt: ${Buffer.from(tlsCertPem).toString('base64')}
  tls.key: ${Buffer.from(tlsKeyPem).toString('base64')}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: ${namespace}
spec:
  ingressClassName: envoy
  tls:
    - hosts: ["shop.example.com"]
      secretName: web-tls
  rules:
    - host: shop.example.com
      http:
        paths:
          - path: /api
            pathType: Prefix
            backend:
              service:
                name: web
                port:
                  name: http
`;

test('parseEnsureBinariesOutput reads the name=path lines and rejects incomplete output', (t) => {
  t.deepEqual(parseEnsureBinariesOutput('kube-apiserver=/a/kube-apiserver\nkubectl=/a/kubectl\netcd=/b/etcd\n'), {
    kubeApiServer: '/a/kube-apiserver',
    kubectl: '/a/kubectl',
    etcd: '/b/etcd',
  });
  t.throws(() => parseEnsureBinariesOutput('kube-apiserver=/a/kube-apiserver\n'), { message: /etcd=/ });
});

test.serial('kubectl apply stores a Namespace, Service, EndpointSlice, Secret and Ingress that read back intact', async (t) => {
  const kube = started();
  const tls = await createApiServerKeyMaterial();
  const endpointAddress = host().address;
  const applied = await kube.kubectlOk(['apply', '-f', '-'], {
    input: manifests(endpointAddress, tls.servingCertPem, tls.servingKeyPem),
  });
  t.regex(applied, /ingress\.networking\.k8s\.io\/web created/);

  const getJson = async (kind: string, name: string): Promise<Record<string, any>> =>
    JSON.parse(await kube.kubectlOk(['get', kind, name, '--namespace', namespace, '-o', 'json'])) as Record<string, any>;

  const service = await getJson('service', 'web');
  t.deepEqual(service['spec'].ports, [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }]);
  // The API server itself allocates the ClusterIP from --service-cluster-ip-range.
  t.regex(service['spec'].clusterIP, /^10\.96\./);

  const slice = await getJson('endpointslices.discovery.k8s.io', 'web-abc12');
  t.is(slice['metadata'].labels['kubernetes.io/service-name'], 'web');
  t.deepEqual(
    slice['endpoints'].map((endpoint: any) => [endpoint.addresses, endpoint.conditions.ready]),
    [[[endpointAddress], true], [['10.20.30.40'], false]],
  );
  t.deepEqual(slice['ports'], [{ name: 'http', port: 8080, protocol: 'TCP' }]);

  const secret = await getJson('secret', 'web-tls');
  t.is(secret['type'], 'kubernetes.io/tls');
  t.is(Buffer.from(secret['data']['tls.crt'], 'base64').toString(), tls.servingCertPem);

  const ingress = await getJson('ingress.networking.k8s.io', 'web');
  t.is(ingress['spec'].ingressClassName, 'envoy');
  t.deepEqual(ingress['spec'].tls, [{ hosts: ['shop.example.com'], secretName: 'web-tls' }]);
  t.deepEqual(ingress['spec'].rules[0].http.paths[0], {
    path: '/api',
    pathType: 'Prefix',
    backend: { service: { name: 'web', port: { name: 'http' } } },
  });
});

test.serial('the API server rejects loopback EndpointSlice addresses, so backends live in a test host whose address it accepts', async (t) => {
  const kube = started();
  const slice = (address: string): string => JSON.stringify({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `probe-${address.replaceAll('.', '-')}`, namespace: 'default' },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address] }],
    ports: [{ port: 8080 }],
  });
  const loopback = await kube.kubectl(['create', '-f', '-'], { input: slice('127.0.0.2') });
  t.not(loopback.code, 0);
  t.regex(loopback.stderr, /loopback/);
  const backendHost = host();
  await kube.kubectlOk(['create', '-f', '-'], { input: slice(backendHost.address) });
  // The accepted address is where a backend can actually be served from and reached.
  const echo = await backendHost.startEcho({ service: 'probe' });
  t.teardown(() => echo.stop());
  const reply = await httpGet({ host: backendHost.address, port: echo.port, hostHeader: 'probe', path: '/' });
  t.is(reply.json.service, 'probe');
});

/** Runs scripts/kube/ensure-binaries.sh with extra environment. */
/** Runs the script with `env` on top of ours, minus the binary overrides `npm test` exports (each test sets its own). */
function runEnsureBinaries(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { KUBE_APISERVER_BIN: _a, KUBECTL_BIN: _k, ETCD_BIN: _e, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    execFile('bash', [join(findRepoRoot(), 'scripts', 'kube', 'ensure-binaries.sh')], { env: { ...inherited, ...env } }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

test('ensure-binaries.sh prints the KUBE_APISERVER_BIN, KUBECTL_BIN and ETCD_BIN overrides without building', async (t) => {
  const real = await findKubeBinaries();
  const cache = await createTempDir('kube-binaries-cache-');
  t.teardown(() => cache.remove());
  const result = await runEnsureBinaries({
    XDG_CACHE_HOME: cache.path,
    KUBE_APISERVER_BIN: real.kubeApiServer,
    KUBECTL_BIN: real.kubectl,
    ETCD_BIN: real.etcd,
  });
  t.is(result.code, 0, result.stderr);
  t.deepEqual(parseEnsureBinariesOutput(result.stdout), real);
  t.deepEqual(await readdir(cache.path), []);

  const missing = await runEnsureBinaries({ XDG_CACHE_HOME: cache.path, KUBE_APISERVER_BIN: cache.file('nope') });
  t.is(missing.code, 1);
  t.regex(missing.stderr, /KUBE_APISERVER_BIN override '.*nope' is not an executable file/);
});

test('ensure-binaries.sh names the step that failed, its log and how to retry, and leaves no binary behind', async (t) => {
  const real = await findKubeBinaries();
  const scratchDir = await createTempDir('kube-binaries-fail-');
  t.teardown(() => scratchDir.remove());
  // An empty module cache with the proxy switched off makes the very first download fail, quickly.
  const result = await runEnsureBinaries({
    XDG_CACHE_HOME: scratchDir.file('cache'),
    GOMODCACHE: scratchDir.file('gomod'),
    GOPROXY: 'off',
    KUBECTL_BIN: real.kubectl,
    ETCD_BIN: real.etcd,
  });
  t.is(result.code, 1);
  t.is(result.stdout, '');
  t.regex(result.stderr, /FAILED at step: go mod download k8s\.io\/kubernetes@v1\.\d+\.\d+/);
  t.regex(result.stderr, /module lookup disabled by GOPROXY=off/);
  const logLine = /log: (\S+build\.log)/.exec(result.stderr);
  t.truthy(logLine && existsSync(logLine[1]!));
  t.regex(result.stderr, /retry: run \S+ensure-binaries\.sh again/);
  const kubeDir = (await readdir(scratchDir.file('cache/envoy-ingress'))).find((name) => name.startsWith('kube-'));
  t.truthy(kubeDir);
  t.false(existsSync(join(scratchDir.file('cache/envoy-ingress'), kubeDir!, 'kube-apiserver')));
});

test.serial('a ServiceAccount token without an RBAC binding is Forbidden to list ingresses; the admin token is not', async (t) => {
  const kube = started();
  await kube.kubectlOk(['create', 'namespace', 'ingress-system']);
  await kube.kubectlOk(['create', 'serviceaccount', 'controller', '--namespace', 'ingress-system']);
  const token = await kube.serviceAccountToken('ingress-system', 'controller', 3600);
  const kubeconfig = scratch!.file('controller.kubeconfig');
  await kube.writeKubeconfig(kubeconfig, { token });

  const denied = await kube.kubectl(['get', 'ingresses', '--all-namespaces'], { kubeconfig });
  t.not(denied.code, 0);
  // Forbidden (not Unauthorized): the token authenticated as the ServiceAccount, RBAC said no.
  t.regex(denied.stderr, /Forbidden/);
  t.regex(denied.stderr, /system:serviceaccount:ingress-system:controller/);

  const asAdmin = await kube.kubectlOk(['get', 'ingresses', '--all-namespaces', '-o', 'name']);
  t.regex(asAdmin, /ingress\.networking\.k8s\.io\/web/);

  // Granting the permission is what changes the answer.
  await kube.kubectlOk(['create', 'clusterrole', 'ingress-reader', '--verb=list', '--resource=ingresses.networking.k8s.io']);
  await kube.kubectlOk([
    'create', 'clusterrolebinding', 'ingress-reader', '--clusterrole=ingress-reader',
    '--serviceaccount=ingress-system:controller',
  ]);
  const allowed = await waitFor(
    async () => {
      const result = await kube.kubectl(['get', 'ingresses', '--all-namespaces', '-o', 'name'], { kubeconfig });
      return result.code === 0 ? result.stdout : undefined;
    },
    { description: 'the ServiceAccount to be allowed to list ingresses after the binding', timeoutMs: 30_000, intervalMs: 200 },
  );
  t.regex(allowed, /ingress\.networking\.k8s\.io\/web/);
});

test.serial('clients verify the API server certificate against the harness CA', async (t) => {
  const kube = started();
  const config = JSON.parse(kube.kubeconfig({ token: kube.adminToken })) as {
    clusters: Array<{ cluster: Record<string, unknown> }>;
  };
  t.falsy(config.clusters[0]?.cluster['insecure-skip-tls-verify']);
  const otherCa = (await createApiServerKeyMaterial()).caCertPem;
  config.clusters[0]!.cluster['certificate-authority-data'] = Buffer.from(otherCa).toString('base64');
  const wrongCa = scratch!.file('wrong-ca.kubeconfig');
  await writeFile(wrongCa, JSON.stringify(config));

  const rejected = await kube.kubectl(['get', 'namespaces'], { kubeconfig: wrongCa });
  t.not(rejected.code, 0);
  t.regex(rejected.stderr, /certificate signed by unknown authority|x509/);
  t.regex(await kube.kubectlOk(['get', 'namespaces', '-o', 'name']), /namespace\/default/);
});

test.serial('objects survive stopping and restarting the API server on the same address', async (t) => {
  const kube = started();
  const uidBefore = await kube.kubectlOk(['get', 'ingress', 'web', '--namespace', namespace, '-o', 'jsonpath={.metadata.uid}']);
  t.truthy(uidBefore);
  const etcdPid = kube.pids.etcd;

  await kube.stopApiServer();
  t.is(kube.pids.apiServer, undefined);
  const whileDown = await kube.kubectl(['get', 'ingress', 'web', '--namespace', namespace, '--request-timeout=5s']);
  t.not(whileDown.code, 0);
  t.regex(whileDown.stderr, /refused/);

  await kube.startApiServer();
  t.is(kube.pids.etcd, etcdPid);
  const uidAfter = await kube.kubectlOk(['get', 'ingress', 'web', '--namespace', namespace, '-o', 'jsonpath={.metadata.uid}']);
  t.is(uidAfter, uidBefore);
  // The ServiceAccount's earlier token still authenticates and its RBAC binding still applies.
  const asController = await kube.kubectlOk(['get', 'ingresses', '--all-namespaces', '-o', 'name'], {
    kubeconfig: scratch!.file('controller.kubeconfig'),
  });
  t.regex(asController, /ingress\.networking\.k8s\.io\/web/);
});

test.serial('stop() ends etcd and the API server and removes the temporary files', async (t) => {
  const kube = started();
  const { etcd, apiServer } = kube.pids;
  t.truthy(etcd);
  t.truthy(apiServer);
  t.true(isAlive(etcd!));
  t.true(isAlive(apiServer!));

  await kube.stop();
  t.false(isAlive(etcd!));
  t.false(isAlive(apiServer!));
  t.deepEqual(kube.pids, { etcd: undefined, apiServer: undefined });
  t.false(existsSync(kube.adminKubeconfigPath));
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}
