// The product as users run it, on a real node (test/harness/kube-node.ts: kubelet, containerd, runc, CNI,
// kube-proxy) with images built from this checkout (scripts/kube/build-images.sh): `kubectl apply -f deploy/`,
// the pods become Ready, an Ingress answers through them, its status carries the published address, the
// securityContext holds in the kernel's view, faults heal, the real pod's ServiceAccount stays within its RBAC,
// Helm installs, upgrades and rolls back without a failed request, every variant serves; and the teardown
// leaves nothing on the host. One node per machine: the tests share it and run in order.
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { namedPaths } from '../harness/build-script.js';
import { findGoTools, GO_TOOLS_BUILD_TIMEOUT_MS } from '../harness/go-tools.js';
import { KUBE_BINARIES_BUILD_TIMEOUT_MS } from '../harness/kube-available.js';
import { hostLeftovers, readHostState } from '../harness/kube-node-host-state.js';
import { findKubeNodeBinaries, nodeTestsSkipped } from '../harness/kube-node-available.js';
import { NODE_ADDRESS } from '../harness/kube-node-layout.js';
import { startKubeNode, type KubeNode } from '../harness/kube-node.js';
import {
  containerPid,
  echoBackendManifests,
  getVia,
  isReady,
  nodePortOf,
  podsOf,
  processIdentity,
  rootMountOptions,
  waitForReadyPods,
  waitServes,
} from '../harness/kube-node-workloads.js';
import { compareGrant, permissionOf, permissionsGranted, resourceEventsOf, type RbacDoc } from '../harness/rbac-audit.js';
import { addressRange, startLoadBalancerAllocator } from '../harness/load-balancer-allocator.js';
import { findRepoRoot } from '../harness/repo-root.js';
import { startRequestLoop } from '../harness/request-loop.js';
import { createTempDir, type TempDir } from '../harness/temp-dir.js';
import { createTestCA } from '../harness/test-certs.js';
import { waitFor } from '../harness/wait.js';

const run = promisify(execFile);
const root = findRepoRoot();
const serial = nodeTestsSkipped() ? test.skip : test.serial;

const NS = 'envoy-ingress';
const APP = 'app.kubernetes.io/name=envoy-ingress';
const CONTROLLER_USER = 'system:serviceaccount:envoy-ingress:envoy-ingress';
const ECHO_HOST = 'echo.node.test';
const OTHER_HOST = 'other.node.test';
/** Seconds within which a fault must be healed (pods Ready again, traffic answered). */
const RECOVERY_S = { envoyKilled: 30, controllerKilled: 30, podDeleted: 60, kubeletRestarted: 60 };

let node: KubeNode | undefined;
let dir: TempDir | undefined;
let teardownProblems: string[] | undefined;
/** `crds` and `base-manifests` of scripts/kube/gateway-api-paths.sh. */
let gatewayApi: Map<string, string> | undefined;
/** The names of the images imported into the node's containerd. */
let importedImages: ReadonlySet<string> = new Set();
const auditLog = (): string => dir!.file('audit.log');

function must(): KubeNode {
  if (!node) throw new Error('the node did not start');
  return node;
}

test.before(async (t) => {
  if (nodeTestsSkipped()) return;
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS + 10 * 60_000);
  const binaries = await findKubeNodeBinaries();
  dir = await createTempDir('envoy-ingress-node-test-');
  const imagesStarted = Date.now();
  const { stdout } = await run('bash', [path.join(root, 'scripts/kube/build-images.sh'), dir.file('images')], {
    env: { ...process.env, PAUSE_BIN: binaries.pause },
    maxBuffer: 1 << 20,
    timeout: 10 * 60_000,
  });
  // The Gateway API conformance suite's echo server, for its base manifests (built once, cached).
  const echoBasic = await run('bash', [path.join(root, 'scripts/kube/build-echo-basic.sh'), dir.file('images')], { maxBuffer: 1 << 20, timeout: 15 * 60_000 });
  // The pinned Gateway API release's CRDs and the suite's base manifests (Go module cache), and the CoreDNS image
  // those manifests also run (the UDP tests' DNS backend).
  gatewayApi = namedPaths((await run('bash', [path.join(root, 'scripts/kube/gateway-api-paths.sh')], { timeout: 5 * 60_000 })).stdout);
  const coredns = await run('bash', [path.join(root, 'scripts/kube/build-coredns.sh'), dir.file('images'), gatewayApi.get('base-manifests') ?? ''], { maxBuffer: 1 << 20, timeout: 15 * 60_000 });
  const built = [namedPaths(stdout), namedPaths(echoBasic.stdout), namedPaths(coredns.stdout)];
  importedImages = new Set(built.flatMap((m) => [...m.keys()]));
  const archives = built.flatMap((m) => [...m.values()]);
  t.log(`images built in ${((Date.now() - imagesStarted) / 1000).toFixed(1)} s`);
  node = await startKubeNode({ binaries, imageArchives: archives, audit: { path: auditLog(), users: [CONTROLLER_USER] } });
  t.log(`node Ready ${(node.readyAfterMs / 1000).toFixed(1)} s after the start (images imported)`);
  // The upgrade test rolls to "another" controller image: the same bytes under a second tag.
  await node.ctr(['images', 'tag', 'docker.io/envoy-ingress/controller:0.1.0', 'docker.io/envoy-ingress/controller:0.1.0-next']);
  // Two backends: traffic for one host must never reach the other's.
  for (const [name, host] of [['echo', ECHO_HOST], ['other', OTHER_HOST]] as const) {
    await node.kubectlOk(['apply', '-f', '-'], { input: echoBackendManifests({ namespace: 'demo', name, host, ingressClass: 'envoy-ingress' }) });
  }
});

test.after.always(async () => {
  if (node && teardownProblems === undefined) teardownProblems = await node.stop();
  await dir?.remove();
});

/** The envoy-ingress Service's http NodePort on the node's address. */
async function httpNodePort(): Promise<number> {
  return nodePortOf(must(), NS, 'envoy-ingress', 'http');
}

/** A request loop for ECHO_HOST through the node port that counts a wrong backend as a failure. */
function echoLoop(port: number, maxDurationMs: number): ReturnType<typeof startRequestLoop> {
  return startRequestLoop(
    async () => {
      const res = await getVia(NODE_ADDRESS, port, ECHO_HOST, '/loop');
      // A 200 from the other backend is wrong routing: report it as a failure with a status of its own.
      return { status: res.status === 200 && res.json?.service !== 'echo' ? 599 : res.status };
    },
    { concurrency: 2, intervalMs: 20, maxDurationMs, maxRequests: 100_000 },
  );
}

serial('kubectl apply -f deploy/: the controller and Envoy pods become Ready', async (t) => {
  t.timeout(5 * 60_000);
  const n = must();
  await n.kubectlOk(['apply', '-f', path.join(root, 'deploy')]);
  const started = Date.now();
  await n.kubectlOk(['rollout', 'status', 'deployment/envoy-ingress', '-n', NS, '--timeout=240s']);
  const pods = await waitForReadyPods(n, NS, APP, 2);
  t.log(`deploy/ rolled out in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  t.is(pods.length, 2);
  for (const pod of pods) t.deepEqual(pod.status.containerStatuses?.map((c) => c.ready).sort(), [true, true]);
});

serial('an Ingress answers through the pods: the Service NodePort and each pod address; hosts go to their own backend', async (t) => {
  t.timeout(4 * 60_000);
  const n = must();
  const port = await httpNodePort();
  await waitServes(NODE_ADDRESS, port, ECHO_HOST, 'echo');
  await waitServes(NODE_ADDRESS, port, OTHER_HOST, 'other');
  const res = await getVia(NODE_ADDRESS, port, ECHO_HOST, '/some/path?q=1');
  t.is(res.status, 200);
  t.is(res.json?.service, 'echo');
  t.is(res.json?.path, '/some/path?q=1');
  t.is(res.json?.host, ECHO_HOST);
  t.is((await getVia(NODE_ADDRESS, port, 'unknown.node.test')).status, 404);
  // Each pod serves on its own address too (Envoy's http port in the pod).
  for (const pod of await podsOf(n, NS, APP)) {
    const podIp = pod.status.podIP!;
    await waitServes(podIp, 8080, ECHO_HOST, 'echo', 30_000);
    t.is((await getVia(podIp, 8080, OTHER_HOST)).json?.service, 'other');
  }
});

serial('the Ingress status carries the published address: the Service\'s, then its load balancer\'s', async (t) => {
  t.timeout(3 * 60_000);
  const n = must();
  const statusIp = async (): Promise<string> =>
    (await n.kubectlOk(['get', 'ingress', 'echo', '-n', 'demo', '-o', 'jsonpath={.status.loadBalancer.ingress[*].ip}'])).trim();
  const clusterIp = (await n.kubectlOk(['get', 'service', 'envoy-ingress', '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  // No cloud load balancer on this node: the controller publishes the Service's cluster IP.
  await waitFor(async () => (await statusIp()) === clusterIp, { timeoutMs: 60_000, intervalMs: 500, description: `Ingress status ${clusterIp}` });
  // A load balancer controller filling in the Service's status (as a cloud's or MetalLB's would).
  const lbIp = '10.251.0.200';
  await n.kubectlOk(['patch', 'service', 'envoy-ingress', '-n', NS, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: lbIp }] } } })]);
  await waitFor(async () => (await statusIp()) === lbIp, { timeoutMs: 60_000, intervalMs: 500, description: `Ingress status ${lbIp}` });
  t.is(await statusIp(), lbIp);
});

serial('a LoadBalancer Service gets an address from the test-side load balancer, and the host reaches the Service on it (kube-proxy nftables programs the load balancer IP)', async (t) => {
  t.timeout(4 * 60_000);
  const n = must();
  const namespace = 'lb-test';
  await n.kubectlOk(['apply', '-f', '-'], { input: echoBackendManifests({ namespace, name: 'lb-echo', host: 'lb.node.test', ingressClass: 'none' }) });
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb-echo-lb', namespace }, spec: { type: 'LoadBalancer', selector: { app: 'lb-echo' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };
  // The pool: addresses of the node's own subnet (on the node bridge: routed to the node, as a cloud's would be).
  const lb = startLoadBalancerAllocator({ kubeconfigPath: n.adminKubeconfigPath, pool: addressRange('10.251.0', 224, 239), log: (line) => t.log(line) });
  try {
    await n.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(service) });
    const address = await waitFor(
      async () => (await n.kubectlOk(['get', 'service', 'lb-echo-lb', '-n', namespace, '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}'])).trim() || undefined,
      { timeoutMs: 60_000, intervalMs: 500, description: 'the load balancer address of lb-echo-lb' },
    );
    t.true(addressRange('10.251.0', 224, 239).includes(address), address);
    // Port 80 on the load balancer IP, from the host: kube-proxy's rules, not a NodePort or the ClusterIP.
    await waitServes(address, 80, 'lb.node.test', 'lb-echo', 120_000);
    const res = await getVia(address, 80, 'lb.node.test', '/x');
    t.is(res.json?.service, 'lb-echo');
  } finally {
    await lb.stop();
    await n.kubectl(['delete', 'namespace', namespace, '--wait=false']);
  }
});

serial('Gateways on the real node: deploy/ with --gateway-port-range, two Gateways on port 80 for one hostname each get a LoadBalancer Service and address of their own, and each address serves only its own route', async (t) => {
  t.timeout(8 * 60_000);
  const n = must();
  const ns = 'gw-test';
  const host = 'shop.gw.test';
  // The install as shipped, the Gateway API CRDs, and the optional ClusterRole the Service manager needs.
  await n.kubectlOk(['apply', '-f', path.join(root, 'deploy')]);
  await n.kubectlOk(['apply', '--server-side', '-f', path.join(root, 'deploy/gateway-api')]);
  await n.kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', 'crd/gateways.gateway.networking.k8s.io', 'crd/httproutes.gateway.networking.k8s.io']);
  await n.kubectlOk(['apply', '-f', path.join(root, 'deploy/optional/gateway-services-rbac.yaml')]);
  await n.kubectlOk(['patch', 'deployment', 'envoy-ingress', '-n', NS, '--type=json', '-p', JSON.stringify([{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--gateway-port-range=20000-20099' }])]);
  const lb = startLoadBalancerAllocator({ kubeconfigPath: n.adminKubeconfigPath, pool: addressRange('10.251.0', 224, 239), log: (line) => t.log(line) });
  try {
    await n.kubectlOk(['rollout', 'status', 'deployment/envoy-ingress', '-n', NS, '--timeout=240s']);
    await n.kubectlOk(['apply', '-f', '-'], { input: echoBackendManifests({ namespace: ns, name: 'app-a', host: 'a.unused.test', ingressClass: 'none' }) });
    await n.kubectlOk(['apply', '-f', '-'], { input: echoBackendManifests({ namespace: ns, name: 'app-b', host: 'b.unused.test', ingressClass: 'none' }) });
    const gatewayApi = 'gateway.networking.k8s.io/v1';
    const docs = [
      { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy-ingress-node-test' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
      ...['a', 'b'].flatMap((g) => [
        {
          apiVersion: gatewayApi,
          kind: 'Gateway',
          metadata: { name: g, namespace: ns },
          spec: { gatewayClassName: 'envoy-ingress-node-test', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: host }] },
        },
        {
          apiVersion: gatewayApi,
          kind: 'HTTPRoute',
          metadata: { name: `to-${g}`, namespace: ns },
          spec: { parentRefs: [{ name: g }], hostnames: [host], rules: [{ backendRefs: [{ name: `app-${g}`, port: 80 }] }] },
        },
      ]),
    ];
    await n.kubectlOk(['apply', '-f', '-'], { input: docs.map((d) => JSON.stringify(d)).join('\n---\n') });
    const addressOf = async (g: string): Promise<string | undefined> =>
      (await n.kubectlOk(['get', 'service', '-n', ns, '-l', `gateway.networking.k8s.io/gateway-name=${g}`, '-o', 'jsonpath={.items[0].status.loadBalancer.ingress[0].ip}'])).trim() || undefined;
    const ipA = await waitFor(() => addressOf('a'), { timeoutMs: 120_000, intervalMs: 500, description: "Gateway a's Service address" });
    const ipB = await waitFor(() => addressOf('b'), { timeoutMs: 60_000, intervalMs: 500, description: "Gateway b's Service address" });
    t.not(ipA, ipB);
    // The Service is in the Gateway's namespace without a selector; kube-proxy sends its traffic to the EndpointSlice
    // the controller keeps (the ready Envoy pods of the controller's namespace).
    t.is((await n.kubectlOk(['get', 'service', '-n', ns, '-l', 'gateway.networking.k8s.io/gateway-name=a', '-o', 'jsonpath={.items[0].spec.selector}'])).trim(), '');
    t.regex(
      (await n.kubectlOk(['get', 'endpointslice', '-n', ns, '-l', 'endpointslice.kubernetes.io/managed-by=gateway-services.envoy-ingress.io,gateway.networking.k8s.io/gateway-name=a', '-o', 'jsonpath={.items[0].endpoints[*].addresses[0]}'])).trim(),
      /^\d+\.\d+\.\d+\.\d+/,
    );
    await waitServes(ipA, 80, host, 'app-a', 120_000);
    await waitServes(ipB, 80, host, 'app-b', 60_000);
    for (let i = 0; i < 10; i++) {
      t.is((await getVia(ipA, 80, host)).json?.service, 'app-a');
      t.is((await getVia(ipB, 80, host)).json?.service, 'app-b');
    }
    // The Gateway's status.addresses are its Service's load balancer address.
    await waitFor(async () => (await n.kubectlOk(['get', 'gateway', 'a', '-n', ns, '-o', 'jsonpath={.status.addresses[0].value}'])).trim() === ipA, {
      timeoutMs: 60_000,
      intervalMs: 500,
      description: `Gateway a status.addresses ${ipA}`,
    });
  } finally {
    await lb.stop();
    await n.kubectl(['delete', 'namespace', ns, '--wait=false']);
    await n.kubectl(['delete', 'gatewayclass', 'envoy-ingress-node-test', '--wait=false']);
    // Back to the install as shipped for the tests after this one.
    await n.kubectl(['apply', '-f', path.join(root, 'deploy/05-deployment.yaml')]);
    await n.kubectl(['rollout', 'status', 'deployment/envoy-ingress', '-n', NS, '--timeout=240s']);
  }
});

serial('the securityContext holds in the kernel: non-root UIDs, read-only root, no capabilities, no token in Envoy', async (t) => {
  t.timeout(2 * 60_000);
  const n = must();
  const deployment = parseAllDocuments(await readFile(path.join(root, 'deploy/05-deployment.yaml'), 'utf8'))
    .map((d) => d.toJS() as { kind: string; spec: { template: { spec: { containers: Array<{ name: string; securityContext: { runAsUser: number; runAsGroup: number; readOnlyRootFilesystem: boolean; capabilities?: { add?: string[]; drop?: string[] } } }> } } } })
    .find((d) => d.kind === 'Deployment')!;
  // The pods of the last rollout only: a pod still terminating from an earlier one has no container to look into.
  const pods = await waitForReadyPods(n, NS, APP, 2);
  t.true(pods.length > 0);
  for (const pod of pods) {
    for (const container of deployment.spec.template.spec.containers) {
      const sc = container.securityContext;
      const pid = await containerPid(n, pod, container.name);
      const id = processIdentity(pid);
      const what = `${pod.metadata.name}/${container.name} (pid ${pid})`;
      t.deepEqual(id.uid, [sc.runAsUser, sc.runAsUser, sc.runAsUser, sc.runAsUser], `${what} uids`);
      t.deepEqual(id.gid, [sc.runAsGroup, sc.runAsGroup, sc.runAsGroup, sc.runAsGroup], `${what} gids`);
      t.not(sc.runAsUser, 0);
      // drop: [ALL] and nothing added: no capability in any set that matters, even the bounding set.
      t.deepEqual(sc.capabilities?.drop, ['ALL']);
      t.is(sc.capabilities?.add, undefined);
      t.is(id.capEff, 0n, `${what} CapEff`);
      t.is(id.capPrm, 0n, `${what} CapPrm`);
      t.is(id.capBnd, 0n, `${what} CapBnd`);
      t.true(id.noNewPrivs, `${what} allowPrivilegeEscalation: false`);
      t.is(id.seccomp, 2, `${what} seccomp RuntimeDefault (filter mode)`);
      t.true(sc.readOnlyRootFilesystem);
      t.true(rootMountOptions(pid).includes('ro'), `${what} root filesystem is read-only`);
      const tokenFile = `/proc/${pid}/root/var/run/secrets/kubernetes.io/serviceaccount/token`;
      if (container.name === 'envoy') t.false(existsSync(tokenFile), `${what} has a ServiceAccount token`);
      else t.true(existsSync(tokenFile), `${what} lacks the token it needs for the API`);
    }
  }
});

serial(`faults: Envoy killed -> restarted, Ready and serving within ${RECOVERY_S.envoyKilled} s; failures only in that window, never a wrong backend`, async (t) => {
  t.timeout(3 * 60_000);
  const n = must();
  const port = await httpNodePort();
  const [victim, survivor] = await waitForReadyPods(n, NS, APP, 2);
  const restartsBefore = victim!.status.containerStatuses!.find((c) => c.name === 'envoy')!.restartCount;
  const loopStarted = Date.now();
  const loop = echoLoop(port, 120_000);
  await waitFor(() => loop.snapshot().total > 10, { timeoutMs: 10_000, description: 'the loop under way' });
  process.kill(await containerPid(n, victim!, 'envoy'), 'SIGKILL');
  const killedAt = Date.now();
  // The survivor's address keeps answering throughout.
  t.is((await getVia(survivor!.status.podIP!, 8080, ECHO_HOST)).json?.service, 'echo');
  await waitFor(
    async () => {
      const pod = (await podsOf(n, NS, APP)).find((p) => p.metadata.name === victim!.metadata.name);
      const envoy = pod?.status.containerStatuses?.find((c) => c.name === 'envoy');
      return envoy && envoy.restartCount > restartsBefore && envoy.ready;
    },
    { timeoutMs: RECOVERY_S.envoyKilled * 1000, intervalMs: 250, description: 'the killed Envoy restarted and Ready' },
  );
  await waitServes(victim!.status.podIP!, 8080, ECHO_HOST, 'echo', Math.max(1000, RECOVERY_S.envoyKilled * 1000 - (Date.now() - killedAt)));
  const recoveredAt = Date.now();
  // Then some more traffic: once recovered, nothing may fail.
  await waitFor(() => Date.now() - recoveredAt > 5_000, { timeoutMs: 10_000, description: '5 s after recovery' });
  const result = await loop.stop();
  const lastFailureS = Math.max(0, ...result.failures.map((f) => (loopStarted + f.at - killedAt) / 1000));
  t.log(
    `Envoy killed: pod serving again after ${((recoveredAt - killedAt) / 1000).toFixed(1)} s; through the NodePort ${result.total} requests, ` +
      `${result.failures.length} failed (${JSON.stringify(result.byStatus)}), the last ${lastFailureS.toFixed(1)} s after the kill`,
  );
  t.false(result.failures.some((f) => f.status === 599), 'no request reached the wrong backend');
  // kube-proxy keeps sending the killed pod its share of new connections until its readiness probe fails
  // (period 2 s) or Envoy is back: those fail, and only those.
  t.true(result.failures.every((f) => loopStarted + f.at >= killedAt - 100), 'no failure before the kill');
  t.true(result.failures.every((f) => loopStarted + f.at <= recoveredAt + 1000), 'no failure after the recovery');
  t.true(lastFailureS <= RECOVERY_S.envoyKilled);
});

serial(`faults: controller killed -> restarted and Ready within ${RECOVERY_S.controllerKilled} s; Envoy keeps serving its last configuration: no failed request`, async (t) => {
  t.timeout(3 * 60_000);
  const n = must();
  const port = await httpNodePort();
  const [victim] = await waitForReadyPods(n, NS, APP, 2);
  const restartsBefore = victim!.status.containerStatuses!.find((c) => c.name === 'controller')!.restartCount;
  const loop = echoLoop(port, 120_000);
  await waitFor(() => loop.snapshot().total > 10, { timeoutMs: 10_000, description: 'the loop under way' });
  process.kill(await containerPid(n, victim!, 'controller'), 'SIGKILL');
  const killedAt = Date.now();
  // Envoy in the same pod keeps answering on the pod's address while its controller is away.
  t.is((await getVia(victim!.status.podIP!, 8080, ECHO_HOST)).json?.service, 'echo');
  await waitFor(
    async () => {
      const pod = (await podsOf(n, NS, APP)).find((p) => p.metadata.name === victim!.metadata.name);
      const controller = pod?.status.containerStatuses?.find((c) => c.name === 'controller');
      return controller && controller.restartCount > restartsBefore && controller.ready;
    },
    { timeoutMs: RECOVERY_S.controllerKilled * 1000, intervalMs: 250, description: 'the killed controller restarted and Ready' },
  );
  const recoveredS = (Date.now() - killedAt) / 1000;
  await waitFor(() => Date.now() - killedAt > recoveredS * 1000 + 5_000, { timeoutMs: 10_000, description: '5 s after recovery' });
  const result = await loop.stop();
  t.log(`controller killed: restarted and Ready after ${recoveredS.toFixed(1)} s; ${result.total} requests, ${result.failures.length} failed (${JSON.stringify(result.byStatus)})`);
  t.deepEqual(result.failures.slice(0, 5), []);
  t.is((await getVia(victim!.status.podIP!, 8080, OTHER_HOST)).json?.service, 'other');
});

serial(`faults: a deleted controller pod is replaced and Ready within ${RECOVERY_S.podDeleted} s, with no failed request through the Service`, async (t) => {
  t.timeout(4 * 60_000);
  const n = must();
  const port = await httpNodePort();
  const [victim] = await waitForReadyPods(n, NS, APP, 2);
  const loop = echoLoop(port, 150_000);
  await waitFor(() => loop.snapshot().total > 10, { timeoutMs: 10_000, description: 'the loop under way' });
  const deletedAt = Date.now();
  await n.kubectlOk(['delete', 'pod', victim!.metadata.name, '-n', NS, '--wait=false']);
  // A replacement Ready next to the survivor (the victim drains meanwhile: preStop, then SIGTERM).
  await waitFor(
    async () => {
      const pods = (await podsOf(n, NS, APP)).filter((p) => p.metadata.name !== victim!.metadata.name && !p.metadata.deletionTimestamp);
      return pods.length === 2 && pods.every((p) => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    },
    { timeoutMs: RECOVERY_S.podDeleted * 1000, intervalMs: 500, description: 'a replacement pod Ready' },
  );
  const replacedS = (Date.now() - deletedAt) / 1000;
  // Keep the loop running until the victim is gone for good.
  await waitFor(async () => !(await podsOf(n, NS, APP)).some((p) => p.metadata.name === victim!.metadata.name), {
    timeoutMs: 90_000,
    intervalMs: 1000,
    description: 'the deleted pod gone',
  });
  const result = await loop.stop();
  t.log(`controller pod deleted: replacement Ready after ${replacedS.toFixed(1)} s; ${result.total} requests, ${result.failures.length} failed (${JSON.stringify(result.byStatus)})`);
  t.deepEqual(result.failures.slice(0, 5), []);
});

serial(`faults: a kubelet restart keeps the pods serving, the node Ready again within ${RECOVERY_S.kubeletRestarted} s`, async (t) => {
  t.timeout(3 * 60_000);
  const n = must();
  const port = await httpNodePort();
  const before = await waitForReadyPods(n, NS, APP, 2);
  const loop = echoLoop(port, 120_000);
  await waitFor(() => loop.snapshot().total > 10, { timeoutMs: 10_000, description: 'the loop under way' });
  const started = Date.now();
  await n.restartKubelet();
  const readyS = (Date.now() - started) / 1000;
  // The new kubelet re-syncs every pod and probes them again: traffic must not notice that either.
  await waitFor(() => Date.now() - started > 15_000, { timeoutMs: 20_000, description: '15 s after the restart' });
  const after = await waitForReadyPods(n, NS, APP, 2, RECOVERY_S.kubeletRestarted * 1000);
  const result = await loop.stop();
  t.log(`kubelet restarted: serving its healthz with the Node Ready after ${readyS.toFixed(1)} s; ${result.total} requests, ${result.failures.length} failed (${JSON.stringify(result.byStatus)})`);
  t.true(readyS <= RECOVERY_S.kubeletRestarted);
  // The same pods, not restarted: a kubelet restart does not touch running containers.
  t.deepEqual(after.map((p) => p.metadata.uid).sort(), before.map((p) => p.metadata.uid).sort());
  const restarts = (pods: typeof before): number[] => pods.flatMap((p) => p.status.containerStatuses!.map((c) => c.restartCount)).sort();
  t.deepEqual(restarts(after), restarts(before), 'no container restarted');
  t.deepEqual(result.failures.slice(0, 5), []);
});

serial('RBAC: the real pod\'s ServiceAccount made only requests the shipped RBAC grants, all allowed', async (t) => {
  t.timeout(2 * 60_000);
  const n = must();
  // A diagnostic, so that the pod also records an Event (the one write besides Ingress status and its Lease).
  await n.kubectlOk(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'broken', namespace: 'demo' },
      spec: { ingressClassName: 'envoy-ingress', rules: [{ host: 'broken.node.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'missing', port: { number: 80 } } } }] } }] },
    }),
  });
  await waitFor(async () => (await n.kubectlOk(['get', 'events', '-n', 'demo', '--field-selector', 'involvedObject.name=broken', '-o', 'name'])).trim() !== '', {
    timeoutMs: 60_000,
    intervalMs: 1000,
    description: 'an Event on the Ingress with a missing backend Service',
  });
  await n.kubectlOk(['delete', 'ingress', 'broken', '-n', 'demo']);
  const events = resourceEventsOf(await readFile(auditLog(), 'utf8'), CONTROLLER_USER);
  t.true(events.length > 0, 'the audit log has requests of the controller\'s ServiceAccount');
  const denied = readFileSync(auditLog(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { user?: { username?: string }; annotations?: Record<string, string>; requestURI?: string; verb?: string })
    .filter((e) => e.user?.username === CONTROLLER_USER && e.annotations?.['authorization.k8s.io/decision'] !== 'allow')
    .map((e) => `${e.verb} ${e.requestURI} (${e.annotations?.['authorization.k8s.io/decision'] ?? 'no decision'})`);
  t.deepEqual(denied, []);
  // deploy/'s RBAC, and the optional Role of the Gateway Service manager that the Gateways test applied.
  const rbac = (
    await Promise.all(['deploy/02-rbac.yaml', 'deploy/optional/gateway-services-rbac.yaml'].map((file) => readFile(path.join(root, file), 'utf8')))
  ).flatMap((text) => parseAllDocuments(text).map((d) => d.toJS() as RbacDoc));
  const used = new Set(events.map(permissionOf));
  const { ungranted, unused } = compareGrant(permissionsGranted(rbac), used);
  t.log(`used by the real pod: ${[...used].sort().join(', ')}; granted, not used in this run: ${unused.join(', ') || 'none'}`);
  t.deepEqual(ungranted, []);
  // The watched kinds are really watched from the pod (its informers), through the in-cluster config.
  for (const p of ['watch networking.k8s.io/ingresses', 'watch discovery.k8s.io/endpointslices', 'update networking.k8s.io/ingresses/status', 'create core/events']) {
    t.true(used.has(p), `${p} not used`);
  }
});

serial('the Gateway API conformance echo server (echo-basic, built here) runs as in the suite\'s base manifests; its logs come through the API server', async (t) => {
  t.timeout(3 * 60_000);
  const n = must();
  const ns = 'gateway-conformance-infra';
  const labels = { app: 'infra-backend-v1' };
  await n.kubectlOk(['apply', '-f', '-'], {
    input: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'infra-backend-v1', namespace: ns, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [
                {
                  name: 'infra-backend-v1',
                  image: 'registry.k8s.io/gateway-api/echo-basic:v1.5.1',
                  env: [
                    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                    { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                  ],
                  resources: { requests: { cpu: '10m' } },
                },
              ],
            },
          },
        },
      },
    ]
      .map((d) => JSON.stringify(d))
      .join('\n---\n'),
  });
  const [pod] = await waitForReadyPods(n, ns, 'app=infra-backend-v1', 1);
  const res = await getVia(pod!.status.podIP!, 3000, 'echo.conformance.test', '/mirror-probe');
  t.is(res.status, 200);
  t.is(res.json?.path, '/mirror-probe');
  t.is(res.json?.namespace, ns);
  t.is(res.json?.pod, pod!.metadata.name);
  // The suite's mirroring tests read exactly this line from the pod's log, through the API server and the kubelet.
  await waitFor(async () => (await n.kubectlOk(['logs', '-n', ns, pod!.metadata.name])).includes('Echoing back request made to /mirror-probe to client'), {
    timeoutMs: 30_000,
    intervalMs: 500,
    description: 'the echo line in kubectl logs',
  });
  await n.kubectlOk(['delete', 'namespace', ns, '--wait=false']);
  t.pass();
});

// The Gateway API conformance suite's own fixtures (sigs.k8s.io/gateway-api/conformance v1.6.3, base/manifests.yaml)
// on this node, applied the way its Setup applies them: what a conformance run needs from the cluster before the
// first test, short of a Gateway API controller.
const GATEWAY_CLASS = 'envoy-ingress-conformance';
const CONFORMANCE_NAMESPACES = ['gateway-conformance-infra', 'gateway-conformance-app-backend', 'gateway-conformance-web-backend'];
/** The plain HTTP echo Deployments (no GRPC_/TCP_ECHO_SERVER mode) and their Services' port 8080. */
const HTTP_ECHOES = [
  ['gateway-conformance-infra', 'infra-backend-v1'],
  ['gateway-conformance-infra', 'infra-backend-v2'],
  ['gateway-conformance-infra', 'infra-backend-v3'],
  ['gateway-conformance-app-backend', 'app-backend-v1'],
  ['gateway-conformance-app-backend', 'app-backend-v2'],
  ['gateway-conformance-web-backend', 'web-backend'],
] as const;
/** The SANs the suite's Setup gives the Secrets that base/manifests.yaml references (its suite.go). */
const CONFORMANCE_SECRET_NAMES: Record<string, string[]> = {
  'tls-checks-certificate': ['abc.example.com', 'other.example.com'],
  'tls-passthrough-checks-certificate': ['abc.example.com'],
  'tls-validity-checks-certificate': ['*.org', '*.wildcard.org', 'second-example.org'],
};

interface ManifestDoc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: {
    gatewayClassName?: string;
    replicas?: number;
    listeners?: Array<{ tls?: { certificateRefs?: Array<{ name: string; namespace?: string }> } }>;
    template?: { spec: { containers: Array<{ image: string }>; volumes?: Array<{ secret?: { secretName: string } }> } };
  };
}

/** A DNS query for `name` (type A) over UDP; resolves with the reply's rcode and answer + additional counts. */
function dnsQuery(address: string, name: string): Promise<{ rcode: number; answers: number; additional: number }> {
  const id = Math.floor(Math.random() * 0xffff);
  const header = Buffer.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const qname = Buffer.concat([...name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)])), Buffer.from([0])]);
  const query = Buffer.concat([header, qname, Buffer.from([0, 1, 0, 1])]);
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no DNS answer from ${address} for ${name}`));
    }, 3_000);
    socket.on('error', (err) => {
      clearTimeout(timer);
      socket.close();
      reject(err);
    });
    socket.on('message', (msg) => {
      if (msg.length < 12 || msg.readUInt16BE(0) !== id) return;
      clearTimeout(timer);
      socket.close();
      resolve({ rcode: msg[3]! & 0x0f, answers: msg.readUInt16BE(6), additional: msg.readUInt16BE(10) });
    });
    socket.send(query, 53, address);
  });
}

serial('the Gateway API conformance base manifests (v1.6.3) run on the node: CRDs installed, every Pod Ready, echoes answer through their ClusterIPs, logs --since-time through the API server', async (t) => {
  t.timeout(8 * 60_000);
  const n = must();
  const crdDir = gatewayApi?.get('crds');
  const manifestPath = gatewayApi?.get('base-manifests');
  if (!crdDir || !manifestPath) return t.fail(`scripts/kube/gateway-api-paths.sh gave no paths: ${JSON.stringify([...(gatewayApi ?? [])])}`);
  const started = Date.now();
  const docs = parseAllDocuments(await readFile(manifestPath, 'utf8'))
    .map((d) => d.toJS() as ManifestDoc | null)
    .filter((d): d is ManifestDoc => d !== null);

  // Every image the manifests run was built here and imported (echo-basic in all its modes, CoreDNS).
  const images = [...new Set(docs.flatMap((d) => d.spec?.template?.spec.containers.map((c) => c.image) ?? []))].sort();
  t.true(images.length >= 2, `images named: ${images.join(', ')}`);
  t.deepEqual(images.filter((i) => !importedImages.has(i)), [], 'images of base/manifests.yaml not built here');

  // The echo-basic test above deletes gateway-conformance-infra without waiting: it must be gone first.
  await waitFor(async () => (await n.kubectl(['get', 'namespace', 'gateway-conformance-infra'])).code !== 0, {
    timeoutMs: 120_000,
    intervalMs: 1000,
    description: 'gateway-conformance-infra from the previous test gone',
  });
  t.log(`the previous test's namespace gone ${((Date.now() - started) / 1000).toFixed(1)} s after the start`);

  try {
    // The standard channel's CRDs as released (server-side, as the Gateway API docs install them): the suite checks
    // their bundle-version annotation against its own and refuses a mismatch.
    await n.kubectlOk(['apply', '--server-side', '-f', crdDir]);
    const crdNames = (await readdir(crdDir))
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => parseAllDocuments(readFileSync(path.join(crdDir, f), 'utf8')).map((d) => d.toJS() as ManifestDoc | null))
      .filter((d): d is ManifestDoc => d?.kind === 'CustomResourceDefinition')
      .map((d) => d.metadata.name);
    t.true(crdNames.includes('gateways.gateway.networking.k8s.io') && crdNames.includes('httproutes.gateway.networking.k8s.io'), crdNames.join(', '));
    await n.kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', ...crdNames.map((c) => `crd/${c}`)]);
    t.log(`${crdNames.length} CRDs Established ${((Date.now() - started) / 1000).toFixed(1)} s after the start`);
    const annotations = JSON.parse(await n.kubectlOk(['get', 'crd', ...crdNames, '-o', 'json'])) as {
      items: Array<{ metadata: { name: string; annotations?: Record<string, string> } }>;
    };
    for (const crd of annotations.items) {
      t.is(crd.metadata.annotations?.['gateway.networking.k8s.io/bundle-version'], 'v1.6.3', `${crd.metadata.name} bundle-version`);
      t.is(crd.metadata.annotations?.['gateway.networking.k8s.io/channel'], 'standard', `${crd.metadata.name} channel`);
    }

    // As the suite's Applier does: every Gateway gets the class under test in spec.gatewayClassName (the manifest's
    // "{GATEWAY_CLASS_NAME}" is a placeholder it overwrites, not a template). No other placeholder may be left.
    for (const doc of docs) if (doc.kind === 'Gateway' && doc.spec) doc.spec.gatewayClassName = GATEWAY_CLASS;
    const prepared = docs.map((d) => JSON.stringify(d));
    t.deepEqual(prepared.filter((d) => /\{GATEWAY_CLASS_NAME\}|PLACEHOLDER_/.test(d)), [], 'placeholders left in the manifests');
    t.deepEqual([...new Set(docs.filter((d) => d.kind === 'Namespace').map((d) => d.metadata.name))].sort(), [...CONFORMANCE_NAMESPACES].sort());

    // The Secrets the suite's Setup creates next to the manifests that these objects reference (the pods' secret
    // volumes, the HTTPS Gateway's certificateRefs); made before the Deployments so no volume mount backs off. The
    // suite's other Secrets and ConfigMaps serve single tests, not the base objects.
    const referenced = new Set<string>();
    for (const doc of docs) {
      const ns = doc.metadata.namespace ?? 'default';
      for (const v of doc.spec?.template?.spec.volumes ?? []) if (v.secret) referenced.add(`${ns}/${v.secret.secretName}`);
      for (const l of doc.spec?.listeners ?? []) for (const ref of l.tls?.certificateRefs ?? []) referenced.add(`${ref.namespace ?? ns}/${ref.name}`);
    }
    t.true(referenced.size > 0);
    const ca = await createTestCA({ commonName: 'gateway-conformance test CA' });
    const secrets: string[] = [];
    for (const key of [...referenced].sort()) {
      const [namespace, name] = key.split('/') as [string, string];
      const cert = await ca.issue({ dnsNames: CONFORMANCE_SECRET_NAMES[name] ?? ['example.com'] });
      secrets.push(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          type: 'kubernetes.io/tls',
          metadata: { name, namespace },
          data: { 'tls.crt': b64(cert.certPem), 'tls.key': b64(cert.keyPem), 'ca.crt': b64(ca.certPem) },
        }),
      );
    }
    const applyStarted = Date.now();
    await n.kubectlOk(['apply', '-f', '-'], { input: prepared.filter((_, i) => docs[i]!.kind === 'Namespace').join('\n---\n') });
    await n.kubectlOk(['apply', '-f', '-'], { input: secrets.join('\n---\n') });
    await n.kubectlOk(['apply', '-f', '-'], { input: prepared.join('\n---\n') });

    // The suite's NamespacesMustBeReady, its pod half: at least one Pod per namespace, every Pod Ready. Its Gateway
    // half (Accepted and Programmed) cannot hold yet: no Gateway API controller exists, so the Gateways are only
    // checked to exist with the class under test.
    const expectedPods = docs.filter((d) => d.kind === 'Deployment').reduce((sum, d) => sum + (d.spec?.replicas ?? 1), 0);
    type Pod = Awaited<ReturnType<typeof podsOf>>[number];
    const conformancePods = async (): Promise<Pod[]> =>
      (await Promise.all(CONFORMANCE_NAMESPACES.map(async (ns) => (JSON.parse(await n.kubectlOk(['get', 'pods', '-n', ns, '-o', 'json'])) as { items: Pod[] }).items))).flat().filter((p) => !p.metadata.deletionTimestamp);
    const notReady = (pods: Pod[]): string[] => pods.filter((p) => !isReady(p)).map((p) => `${p.metadata.namespace}/${p.metadata.name} ${p.status.phase ?? ''}`);
    let pods: Pod[] = [];
    try {
      await waitFor(
        async () => {
          pods = await conformancePods();
          return pods.length === expectedPods && notReady(pods).length === 0;
        },
        { timeoutMs: 300_000, intervalMs: 1000, description: `${expectedPods} Ready pods in ${CONFORMANCE_NAMESPACES.join(', ')}` },
      );
    } catch (err) {
      t.log(`pods: ${pods.length} of ${expectedPods}; not Ready: ${notReady(pods).join(', ')}`);
      t.log(await n.kubectl(['get', 'events', '-A', '--field-selector', 'type=Warning']).then((r) => r.stdout));
      throw err;
    }
    t.log(`base manifests: ${expectedPods} pods Ready ${((Date.now() - applyStarted) / 1000).toFixed(1)} s after the apply`);
    for (const ns of CONFORMANCE_NAMESPACES) t.true(pods.some((p) => p.metadata.namespace === ns), `a Pod in ${ns}`);
    // No readiness probes in these manifests: Ready means started. A moment later none may have crashed.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const settled = await conformancePods();
    t.deepEqual(notReady(settled), [], 'Pods no longer Ready');
    t.deepEqual(
      settled.flatMap((p) => (p.status.containerStatuses ?? []).filter((c) => c.restartCount > 0).map((c) => `${p.metadata.name}/${c.name} restarted ${c.restartCount}x`)),
      [],
    );
    const gateways = JSON.parse(await n.kubectlOk(['get', 'gateways', '-n', 'gateway-conformance-infra', '-o', 'json'])) as { items: ManifestDoc[] };
    t.deepEqual(gateways.items.map((g) => g.spec?.gatewayClassName), docs.filter((d) => d.kind === 'Gateway').map(() => GATEWAY_CLASS));

    // Each plain HTTP echo answers through its Service's ClusterIP (kube-proxy) with the JSON naming its own pod.
    for (const [ns, app] of HTTP_ECHOES) {
      const clusterIp = (await n.kubectlOk(['get', 'service', app, '-n', ns, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
      const names = settled.filter((p) => p.metadata.namespace === ns && p.metadata.name.startsWith(`${app}-`)).map((p) => p.metadata.name);
      const res = await waitFor(
        async () => {
          const r = await getVia(clusterIp, 8080, 'echo.conformance.test', `/probe/${app}`).catch(() => undefined);
          return r?.status === 200 ? r : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500, description: `${ns}/${app} through ${clusterIp}:8080` },
      );
      t.is(res.json?.namespace, ns, `${app} namespace`);
      t.true(names.includes(String(res.json?.pod)), `${app} answered from ${String(res.json?.pod)}, not one of ${names.join(', ')}`);
      t.is(res.json?.path, `/probe/${app}`);
    }

    // The mirroring tests' hidden dependency: pod logs through the API server with sinceTime (1 s granularity),
    // read per pod of the app's label and container, looking for "Echoing back request made to <path> to client".
    // A request before the window must not show, one inside it must.
    const [mirrorNs, mirrorApp] = HTTP_ECHOES[0];
    const mirrorIp = (await n.kubectlOk(['get', 'service', mirrorApp, '-n', mirrorNs, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    const mirrorPods = settled.filter((p) => p.metadata.namespace === mirrorNs && p.metadata.name.startsWith(`${mirrorApp}-`));
    t.true(mirrorPods.length > 1, 'the app runs several pods: the logs of each are read');
    const tag = Date.now().toString(36);
    t.is((await getVia(mirrorIp, 8080, 'echo.conformance.test', `/mirror-before-${tag}`)).status, 200);
    const since = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000);
    await waitFor(() => Date.now() > since.getTime() + 100, { timeoutMs: 3_000, intervalMs: 50, description: 'the log window open' });
    t.is((await getVia(mirrorIp, 8080, 'echo.conformance.test', `/mirror-after-${tag}`)).status, 200);
    const windowLogs = async (): Promise<string> =>
      (await Promise.all(mirrorPods.map((p) => n.kubectlOk(['logs', '-n', mirrorNs, p.metadata.name, '-c', mirrorApp, `--since-time=${since.toISOString()}`])))).join('\n');
    const logs = await waitFor(
      async () => {
        const l = await windowLogs();
        return l.includes(`Echoing back request made to /mirror-after-${tag} to client`) ? l : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1000, description: 'the echo line of the request inside the window in kubectl logs --since-time' },
    );
    t.false(logs.includes(`/mirror-before-${tag}`), 'a line from before --since-time was returned');

    // The UDP tests' DNS backend: CoreDNS answers its whoami zone (foo.bar.com) on the pod address. Only that zone:
    // any other name would be forwarded to public resolvers, which pods here have no route to.
    const dnsPod = settled.find((p) => p.metadata.namespace === 'gateway-conformance-infra' && p.metadata.name.startsWith('coredns-'));
    if (!dnsPod?.status.podIP) return t.fail('no CoreDNS pod with an address');
    const dns = await dnsQuery(dnsPod.status.podIP, 'foo.bar.com');
    t.is(dns.rcode, 0);
    t.true(dns.answers + dns.additional > 0, `whoami answered nothing: ${JSON.stringify(dns)}`);
    t.log(`conformance base manifests checked ${((Date.now() - started) / 1000).toFixed(1)} s after the start`);
  } finally {
    // Leave the node as the later tests expect it: no conformance namespace, no Gateway API CRD.
    const cleanupStarted = Date.now();
    // Workloads orphaned first so that no ReplicaSet replaces a pod deleted with a 1 s grace period.
    for (const ns of CONFORMANCE_NAMESPACES) {
      await n.kubectl(['delete', 'deployments,replicasets', '--all', '-n', ns, '--cascade=orphan']);
      await n.kubectl(['delete', 'pods', '--all', '-n', ns, '--grace-period=1', '--wait=false']);
    }
    await n.kubectl(['delete', 'namespace', ...CONFORMANCE_NAMESPACES, '--ignore-not-found', '--wait=true', '--timeout=180s']);
    await n.kubectl(['delete', '-f', crdDir, '--ignore-not-found', '--wait=true', '--timeout=120s']);
    t.log(`cleanup took ${((Date.now() - cleanupStarted) / 1000).toFixed(1)} s`);
  }
  t.is((await n.kubectlOk(['get', 'crd', '-o', 'name'])).split('\n').filter((l) => l.includes('gateway.networking.k8s.io')).length, 0, 'Gateway API CRDs left');
  for (const ns of CONFORMANCE_NAMESPACES) t.not((await n.kubectl(['get', 'namespace', ns])).code, 0, `namespace ${ns} left`);
});

/**
 * Removes the product from the node quickly: workloads orphaned first, their pods deleted with a 1 s grace period
 * (the product's own drain takes over a minute and is tested above), then the rest with `uninstall`.
 */
async function removeProduct(uninstall: () => Promise<unknown>): Promise<void> {
  const n = must();
  await n.kubectl(['delete', 'deployments,daemonsets,replicasets', '--all', '-n', NS, '--cascade=orphan']);
  await n.kubectl(['delete', 'pods', '--all', '-n', NS, '--grace-period=1', '--wait=true', '--timeout=120s']);
  await uninstall();
  await waitFor(async () => (await n.kubectl(['get', 'namespace', NS])).code !== 0 || (await n.kubectl(['get', 'namespace', NS, '-o', 'jsonpath={.status.phase}'])).stdout === 'Active', {
    timeoutMs: 120_000,
    intervalMs: 1000,
    description: `namespace ${NS} gone (or still in use)`,
  });
}

async function helm(args: readonly string[]): Promise<string> {
  const { helm: helmBin } = await findGoTools();
  const home = dir!.file('helm');
  const { stdout } = await run(helmBin, [...args, '--kubeconfig', must().adminKubeconfigPath], {
    env: { ...process.env, HELM_CACHE_HOME: `${home}/cache`, HELM_CONFIG_HOME: `${home}/config`, HELM_DATA_HOME: `${home}/data` },
    maxBuffer: 16 << 20,
    timeout: 10 * 60_000,
  });
  return stdout;
}

/** Waits until exactly two Ready product pods run `image` and no other product pod is left. */
async function waitForRollout(image: string): Promise<void> {
  await waitFor(
    async () => {
      const pods = await podsOf(must(), NS, APP);
      return (
        pods.length === 2 &&
        pods.every((p) => !p.metadata.deletionTimestamp && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) &&
        pods.every((p) => (p as unknown as { spec: { containers: Array<{ name: string; image: string }> } }).spec.containers.find((c) => c.name === 'controller')?.image === image)
      );
    },
    { timeoutMs: 300_000, intervalMs: 1000, description: `two Ready pods of ${image}, no others` },
  );
}

serial('helm install (default values): the pods become Ready, the Ingress answers, its status is published', async (t) => {
  t.timeout(GO_TOOLS_BUILD_TIMEOUT_MS + 8 * 60_000);
  const n = must();
  await findGoTools();
  await removeProduct(() => n.kubectl(['delete', '-f', path.join(root, 'deploy'), '--ignore-not-found', '--wait=true', '--timeout=120s']));
  const started = Date.now();
  await helm(['install', 'envoy-ingress', path.join(root, 'deploy/helm/envoy-ingress'), '--namespace', NS, '--create-namespace', '--wait', '--timeout', '5m']);
  t.log(`helm install --wait took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await waitForReadyPods(n, NS, APP, 2);
  const port = await httpNodePort();
  await waitServes(NODE_ADDRESS, port, ECHO_HOST, 'echo');
  t.is((await getVia(NODE_ADDRESS, port, OTHER_HOST)).json?.service, 'other');
  const clusterIp = (await n.kubectlOk(['get', 'service', 'envoy-ingress', '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  await waitFor(async () => (await n.kubectlOk(['get', 'ingress', 'echo', '-n', 'demo', '-o', 'jsonpath={.status.loadBalancer.ingress[*].ip}'])).trim() === clusterIp, {
    timeoutMs: 60_000,
    intervalMs: 500,
    description: `Ingress status ${clusterIp} from the Helm install`,
  });
  t.pass();
});

serial('helm upgrade to a new controller image and helm rollback: zero failed requests through each rolling update', async (t) => {
  t.timeout(12 * 60_000);
  const port = await httpNodePort();
  for (const [step, args, image] of [
    ['upgrade', ['upgrade', 'envoy-ingress', path.join(root, 'deploy/helm/envoy-ingress'), '--namespace', NS, '--reuse-values', '--set', 'controller.image.tag=0.1.0-next'], 'envoy-ingress/controller:0.1.0-next'],
    ['rollback', ['rollback', 'envoy-ingress', '1', '--namespace', NS], 'envoy-ingress/controller:0.1.0'],
  ] as const) {
    const loop = echoLoop(port, 360_000);
    await waitFor(() => loop.snapshot().total > 10, { timeoutMs: 10_000, description: 'the loop under way' });
    const started = Date.now();
    await helm(args);
    await waitForRollout(image);
    const result = await loop.stop();
    t.log(`helm ${step}: rolled out in ${((Date.now() - started) / 1000).toFixed(1)} s; ${result.total} requests, ${result.failures.length} failed (${JSON.stringify(result.byStatus)})`);
    t.true(result.total > 100, `${step}: the loop ran`);
    t.deepEqual(result.failures.slice(0, 5), [], `${step}: failed requests`);
  }
});

/** `kubectl kustomize deploy-variants/<variant>`, as YAML. */
async function renderVariant(variant: string): Promise<string> {
  return must().kubectlOk(['kustomize', path.join(root, 'deploy-variants', variant)]);
}

let installedVariant: string | undefined = 'helm';
async function removeCurrentInstall(): Promise<void> {
  const n = must();
  if (installedVariant === 'helm') await removeProduct(() => helm(['uninstall', 'envoy-ingress', '--namespace', NS, '--wait', '--timeout', '3m']));
  else if (installedVariant) {
    const rendered = await renderVariant(installedVariant);
    await removeProduct(() => n.kubectl(['delete', '-f', '-', '--ignore-not-found', '--wait=true', '--timeout=120s'], { input: rendered }));
  }
  installedVariant = undefined;
}

serial('deploy-variants/default comes up and serves', async (t) => {
  t.timeout(8 * 60_000);
  const n = must();
  await removeCurrentInstall();
  installedVariant = 'default';
  await n.kubectlOk(['apply', '-k', path.join(root, 'deploy-variants/default')]);
  await waitForReadyPods(n, NS, APP, 2);
  await waitServes(NODE_ADDRESS, await httpNodePort(), ECHO_HOST, 'echo');
  t.pass();
});

serial('deploy-variants/split comes up and serves: Envoy DaemonSet behind the Service, xDS over mutual TLS', async (t) => {
  t.timeout(8 * 60_000);
  const n = must();
  await removeCurrentInstall();
  installedVariant = 'split';
  // The Secrets the variant expects someone (cert-manager) to create.
  const ca = await createTestCA({ commonName: 'envoy-ingress xDS test CA' });
  const server = await ca.issue({ dnsNames: ['envoy-ingress-xds.envoy-ingress.svc'] });
  const client = await ca.issue({ dnsNames: ['envoy-ingress-envoy.envoy-ingress.svc'], clientAuth: true });
  const secret = (name: string, cert: { certPem: string; keyPem: string }): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name, namespace: NS },
      data: { 'tls.crt': b64(cert.certPem), 'tls.key': b64(cert.keyPem), 'ca.crt': b64(ca.certPem) },
    });
  // No cluster DNS on the test node: the Envoy pods find the controller's Service by a hosts entry instead, for a
  // cluster IP chosen here so that everything goes in with one apply.
  const xdsIp = '10.96.0.53';
  const docs = parseAllDocuments(await renderVariant('split')).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: any });
  const xdsService = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'envoy-ingress-xds');
  const envoyDaemonSet = docs.find((d) => d.kind === 'DaemonSet');
  if (!xdsService || !envoyDaemonSet) return t.fail('the split variant has no envoy-ingress-xds Service or no DaemonSet');
  xdsService.spec.clusterIP = xdsIp;
  envoyDaemonSet.spec.template.spec.hostAliases = [{ ip: xdsIp, hostnames: ['envoy-ingress-xds.envoy-ingress.svc'] }];
  const namespaceFirst = docs.filter((d) => d.kind === 'Namespace');
  await n.kubectlOk(['apply', '-f', '-'], { input: namespaceFirst.map((d) => JSON.stringify(d)).join('\n---\n') });
  await n.kubectlOk(['apply', '-f', '-'], { input: `${secret('envoy-ingress-xds-server', server)}\n---\n${secret('envoy-ingress-xds-client', client)}` });
  await n.kubectlOk(['apply', '-f', '-'], { input: docs.map((d) => JSON.stringify(d)).join('\n---\n') });
  const envoyDs = `daemonset/${envoyDaemonSet.metadata.name}`;
  await n.kubectlOk(['rollout', 'status', envoyDs, '-n', NS, '--timeout=240s']);
  await n.kubectlOk(['rollout', 'status', 'deployment', '-n', NS, '--timeout=240s']);
  await waitServes(NODE_ADDRESS, await httpNodePort(), ECHO_HOST, 'echo', 180_000);
  t.is((await getVia(NODE_ADDRESS, await httpNodePort(), OTHER_HOST)).json?.service, 'other');
});

serial('deploy-variants/edge-nodes comes up and serves on the node\'s port 80 (hostNetwork, file capability); status has the node address', async (t) => {
  t.timeout(8 * 60_000);
  const n = must();
  await removeCurrentInstall();
  installedVariant = 'edge-nodes';
  // hostNetwork: Envoy binds on the machine itself. Only on the node's own address, never the machine's others.
  const rendered = (await renderVariant('edge-nodes'))
    .replaceAll('--listen-address=0.0.0.0', `--listen-address=${NODE_ADDRESS}`)
    .replaceAll('address: 0.0.0.0', `address: ${NODE_ADDRESS}`);
  t.false(rendered.includes('0.0.0.0'), 'every wildcard bind replaced by the node address');
  await n.kubectlOk(['apply', '-f', '-'], { input: rendered });
  const ds = (await n.kubectlOk(['get', 'daemonsets', '-n', NS, '-o', 'name'])).trim().split('\n')[0]!;
  await n.kubectlOk(['rollout', 'status', ds, '-n', NS, '--timeout=240s']);
  await waitServes(NODE_ADDRESS, 80, ECHO_HOST, 'echo', 180_000);
  await waitFor(async () => (await n.kubectlOk(['get', 'ingress', 'echo', '-n', 'demo', '-o', 'jsonpath={.status.loadBalancer.ingress[*].ip}'])).trim() === NODE_ADDRESS, {
    timeoutMs: 60_000,
    intervalMs: 500,
    description: `Ingress status ${NODE_ADDRESS} (--publish-nodes)`,
  });
  // Envoy runs as 65532 with only what the file capability grants: cap_net_bind_service (bit 10).
  const [pod] = await podsOf(n, NS, APP);
  const id = processIdentity(await containerPid(n, pod!, 'envoy'));
  t.is(id.uid[1], 65532);
  t.is(id.capEff, 1n << 10n);
});

serial('teardown leaves no process, mount, network namespace, link, netfilter rule, cgroup, directory or sysctl change', async (t) => {
  t.timeout(3 * 60_000);
  const n = must();
  const links = await n.podLinks();
  t.true(links.length > 0, 'pods had veths on the pod bridge');
  const started = Date.now();
  teardownProblems = await n.stop();
  t.log(`teardown took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  t.deepEqual(teardownProblems, []);
  const after = await readHostState();
  t.deepEqual(hostLeftovers(n.hostBefore, after, links), []);
});

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}
