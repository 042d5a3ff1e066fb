/**
 * `npm run conformance`: the upstream Gateway API conformance suite (conformance/runner, pinned v1.6.3) against the
 * product as users install it, on the real node (test/harness/kube-node.ts): the images built from this checkout
 * (scripts/kube/build-images.sh) plus the suite's echo servers and CoreDNS, the Gateway API CRDs, `kubectl apply -f
 * deploy/`, then the suite's test binary with conformance/runner/options.yaml. Its ConformanceReport is copied byte
 * for byte to conformance/reports/<version>/; a summary per profile is printed. The node is stopped in every case.
 *
 * Arguments after `--` go to the suite's binary (e.g. `-run-test=HTTPRouteSimpleSameNamespace`, `-debug`); a run
 * with any of them is a partial run, so its report stays in the scratch directory and the published one is kept.
 * CONFORMANCE_REPORT_OUT=FILE: the report is copied there instead of published (npm test's run,
 * test/cluster/conformance-suite.test.ts, compares it with the published one).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { namedPaths } from '../harness/build-script.js';
import { findKubeNodeBinaries } from '../harness/kube-node-available.js';
import { systemEnv } from '../harness/kube-node-layout.js';
import { runCommand, startKubeNode, type KubeNode } from '../harness/kube-node.js';
import { findRepoRoot } from '../harness/repo-root.js';
import { createTempDir } from '../harness/temp-dir.js';
import { addressRange, startLoadBalancerAllocator, type LoadBalancerAllocator } from '../harness/load-balancer-allocator.js';
import { waitFor } from '../harness/wait.js';
import { gatewayServiceFeatures, ownAddressFeatures, staticAddressFeatures } from '../../controller/translate/gateway-api/supported-features.js';
import { reportProblems, summarizeReport, type ConformanceReport } from './report-summary.js';

const root = findRepoRoot();
const NS = 'envoy-ingress';
const CONTROLLER_NAME = 'envoy-ingress.io/gateway-controller';
/**
 * The Gateway API CRDs of the run: the experimental channel deploy/ ships as an option, since extended features we
 * claim use its fields (HTTPRoute `retry`: the standard channel's CRD prunes it, so HTTPRouteRetry cannot pass there).
 * Applied server-side: the HTTPRoute CRD is too large for client-side apply.
 */
const DEPLOY_CRDS = 'deploy/optional/gateway-api-experimental';
/** Optional manifests of deploy/ that Gateways with addresses of their own need (when present in this checkout). */
const OPTIONAL_MANIFESTS = ['deploy/optional/gateway-services-rbac.yaml'];
/** Each Gateway's own Envoy ports and Service (its own address): the flag and the range the install guide names. */
const GATEWAY_PORT_RANGE_FLAG = '--gateway-port-range';
const GATEWAY_PORT_RANGE = '20000-20999';
/** Load balancer addresses: the node's subnet (routed to its bridge), above the node's own address. */
const LOAD_BALANCER_POOL = addressRange('10.251.0', 100, 199);
const OPTIONS_FILE = path.join(root, 'conformance/runner/options.yaml');
/** The whole suite must finish within this (the go test binary's own -test.timeout). */
const SUITE_TIMEOUT_MIN = 150;

interface Doc {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: { group?: string; controllerName?: string };
}

const log = (line: string): void => void process.stdout.write(`conformance: ${line}\n`);
const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Runs a build script of scripts/ and returns its `name=path` lines. */
async function buildScript(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Map<string, string>> {
  const result = await runCommand('bash', [path.join(root, 'scripts', script), ...args], {
    env: { ...process.env, ...env },
    timeoutMs: 30 * 60_000,
  });
  if (result.code !== 0) throw new Error(`scripts/${script} exited ${result.code}:\n${result.stderr.trim().split('\n').slice(-25).join('\n')}`);
  return namedPaths(result.stdout);
}

/** The objects of deploy/'s top-level manifests (what `kubectl apply -f deploy/` applies). */
async function deployDocs(): Promise<Doc[]> {
  const dir = path.join(root, 'deploy');
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const docs: Doc[] = [];
  for (const file of files) {
    for (const d of parseAllDocuments(await readFile(path.join(dir, file), 'utf8'))) {
      const value = d.toJS() as Doc | null;
      if (value) docs.push(value);
    }
  }
  return docs;
}

async function main(): Promise<number> {
  const extraArgs = process.argv.slice(2);
  const partial = extraArgs.length > 0;
  const started = Date.now();
  const options = parse(readFileSync(OPTIONS_FILE, 'utf8')) as { gatewayClassName: string };
  const work = await createTempDir('envoy-ingress-conformance-');
  log(`scratch directory ${work.path}`);

  // Everything is built (or found in the cache) before the node takes the machine-wide lock.
  const binaries = await findKubeNodeBinaries();
  const images = await buildScript('kube/build-images.sh', [work.file('images')], { PAUSE_BIN: binaries.pause });
  const echoBasic = await buildScript('kube/build-echo-basic.sh', [work.file('images')]);
  const gatewayApi = await buildScript('kube/gateway-api-paths.sh', []);
  const coredns = await buildScript('kube/build-coredns.sh', [work.file('images'), gatewayApi.get('base-manifests') ?? '']);
  const suite = await buildScript('kube/build-conformance.sh', []);
  const suiteBin = suite.get('conformance');
  const version = suite.get('gateway-api-version');
  if (!suiteBin || !version) throw new Error(`scripts/kube/build-conformance.sh printed no conformance=/gateway-api-version= line`);
  const archives = [images, echoBasic, coredns].flatMap((m) => [...m.values()]);
  log(`built: ${archives.length} image archives, the suite ${version} (${seconds(started)})`);

  const docs = await deployDocs();
  const deployClass = docs.find((d) => d.kind === 'GatewayClass' && d.metadata?.name === options.gatewayClassName);

  let node: KubeNode | undefined;
  let loadBalancer: LoadBalancerAllocator | undefined;
  const stopNode = async (): Promise<void> => {
    await loadBalancer?.stop();
    loadBalancer = undefined;
    if (!node) return;
    const n = node;
    node = undefined;
    const stopping = Date.now();
    const problems = await n.stop();
    log(`node stopped (${seconds(stopping)})${problems.length ? `; teardown problems:\n${problems.join('\n')}` : ''}`);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the suite and the node`);
      suiteProcess?.kill('SIGTERM');
      void stopNode().finally(() => process.exit(130));
    });
  }

  try {
    node = await startKubeNode({ binaries, imageArchives: archives });
    const n = node;
    log(`node Ready ${(n.readyAfterMs / 1000).toFixed(1)} s after its start (images imported)`);
    // The cloud's part, as cloud-provider-kind plays it for kind: LoadBalancer Services (each Gateway's) get an
    // address from a pool in the node's subnet, which kube-proxy programs and the host reaches.
    loadBalancer = startLoadBalancerAllocator({ kubeconfigPath: n.adminKubeconfigPath, pool: LOAD_BALANCER_POOL, log });

    // As the install guide says: the Gateway API CRDs server-side (the experimental channel, DEPLOY_CRDS; the pinned
    // release's from the module cache while deploy/ has none), then deploy/, then the optional RBAC for the Services
    // the controller makes per Gateway.
    const crdDir = existsSync(path.join(root, DEPLOY_CRDS)) ? path.join(root, DEPLOY_CRDS) : gatewayApi.get('crds');
    if (!crdDir) throw new Error('scripts/kube/gateway-api-paths.sh printed no crds= line');
    await n.kubectlOk(['apply', '--server-side', '-f', crdDir]);
    log(`CRDs: kubectl apply --server-side -f ${path.relative(root, crdDir) || crdDir}`);
    await n.kubectlOk(['apply', '-f', path.join(root, 'deploy')]);
    for (const optional of OPTIONAL_MANIFESTS) {
      if (!existsSync(path.join(root, optional))) continue;
      await n.kubectlOk(['apply', '-f', path.join(root, optional)]);
      log(`applied ${optional}`);
    }
    const addressingEnabled = await enableGatewayAddresses(n, docs);
    const crdNames = (await n.kubectlOk(['get', 'crd', '-o', 'name'])).split('\n').filter((l) => l.endsWith('.gateway.networking.k8s.io'));
    if (crdNames.length === 0) throw new Error('no Gateway API CRD installed');
    await n.kubectlOk(['wait', '--for=condition=Established', '--timeout=120s', ...crdNames]);
    if (!deployClass) {
      // deploy/ ships no GatewayClass of that name: the suite's class is made here, with our controllerName.
      await n.kubectlOk(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'gateway.networking.k8s.io/v1',
          kind: 'GatewayClass',
          metadata: { name: options.gatewayClassName },
          spec: { controllerName: CONTROLLER_NAME },
        }),
      });
      log(`GatewayClass ${options.gatewayClassName} created (${CONTROLLER_NAME})`);
    }
    await n.kubectlOk(['rollout', 'status', `deployment/envoy-ingress`, '-n', NS, '--timeout=300s']);
    log(`deploy/ rolled out (${seconds(started)} since the start)`);
    // The suite reads the class's supportedFeatures once, as it starts: wait until the controller has written them.
    const features = await waitForClassAccepted(n, options.gatewayClassName, addressingEnabled ? [...gatewayServiceFeatures, ...ownAddressFeatures, ...staticAddressFeatures] : []);
    log(`GatewayClass ${options.gatewayClassName} Accepted; supportedFeatures (${features.length}): ${features.join(', ')}`);

    const reportPath = work.file('report.yaml');
    const logPath = work.file('suite.log');
    const implementationVersion = await checkoutVersion();
    const suiteArgs = [
      '-test.run=^TestConformance$',
      '-test.v',
      `-test.timeout=${SUITE_TIMEOUT_MIN}m`,
      '-test.count=1',
      `-conformance-options-file=${OPTIONS_FILE}`,
      `-version=${implementationVersion}`,
      `-report-output=${reportPath}`,
      ...extraArgs,
    ];
    log(`running ${suiteBin} ${suiteArgs.join(' ')} (full log: ${logPath})`);
    const suiteStarted = Date.now();
    const code = await runSuite(suiteBin, suiteArgs, { ...systemEnv(), KUBECONFIG: n.adminKubeconfigPath }, logPath);
    log(`the suite exited ${code} after ${seconds(suiteStarted)}`);

    if (!existsSync(reportPath)) {
      log(`no report written (the suite stopped before its tests ran; see ${logPath})`);
      return 1;
    }
    const report = parse(await readFile(reportPath, 'utf8')) as ConformanceReport;
    const problems = reportProblems(report, version);
    if (problems.length === 0) process.stdout.write(summarizeReport(report));
    const reportOut = process.env['CONFORMANCE_REPORT_OUT'];
    if (reportOut !== undefined && reportOut !== '') {
      await copyFile(reportPath, reportOut);
      log(`report copied to ${reportOut}, conformance/reports/ unchanged`);
    } else if (partial) {
      log(`partial run (arguments ${extraArgs.join(' ')}): report left at ${reportPath}, conformance/reports/ unchanged`);
    } else if (problems.length > 0) {
      // E.g. `profiles: null` when the suite's setup failed before any test: nothing to publish.
      log(`the report at ${reportPath} is not publishable (${problems.join('; ')}): conformance/reports/ unchanged`);
      return code === 0 ? 1 : code;
    } else {
      const dir = path.join(root, 'conformance/reports', version);
      await mkdir(dir, { recursive: true });
      const name = `${report.gatewayAPIChannel}-${report.implementation.version}-${report.mode}-report.yaml`;
      await copyFile(reportPath, path.join(dir, name));
      log(`report: conformance/reports/${version}/${name}`);
    }
    log(`whole run ${seconds(started)}`);
    return code;
  } finally {
    await stopNode();
    // The images go; the suite's log (and a partial run's report) stay for reading.
    await rm(work.file('images'), { recursive: true, force: true });
    log(`the suite's log: ${work.file('suite.log')}`);
  }
}

/** Waits until the class is Accepted=True at its generation with supportedFeatures; resolves with them. */
async function waitForClassAccepted(n: KubeNode, name: string, mustClaim: readonly string[]): Promise<string[]> {
  interface ClassJson {
    metadata: { generation?: number };
    status?: { conditions?: Array<{ type: string; status: string; observedGeneration?: number }>; supportedFeatures?: Array<{ name: string }> };
  }
  let last: ClassJson | undefined;
  try {
    return await waitFor(
      async () => {
        last = JSON.parse(await n.kubectlOk(['get', 'gatewayclass', name, '-o', 'json'])) as ClassJson;
        const accepted = last.status?.conditions?.find((c) => c.type === 'Accepted');
        const current = accepted?.status === 'True' && accepted.observedGeneration === last.metadata.generation;
        const features = (last.status?.supportedFeatures ?? []).map((f) => f.name);
        // The controller started with the addressing flags claims their features: until they are there, the status is
        // the previous pod's (the rollout replaced it), which the suite must not read.
        return current && features.length > 0 && mustClaim.every((f) => features.includes(f)) ? features : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000, description: `GatewayClass ${name} Accepted with supportedFeatures` },
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; its status: ${JSON.stringify(last?.status ?? null)}`, { cause: error });
  }
}

interface DeploymentDoc extends Doc {
  spec?: Doc['spec'] & { template?: { spec?: { containers?: Array<{ name: string; args?: string[] }> } } };
}

/**
 * The suite dials every Gateway on its own address: the controller must give each Gateway its own Service
 * (--gateway-port-range). When deploy/'s Deployment does not pass the flag, it is added to the running Deployment
 * here (and said in the output and the report's README).
 */
/** Adds the addressing flags to the controller unless deploy/ passes them; whether it did. */
async function enableGatewayAddresses(n: KubeNode, docs: readonly Doc[]): Promise<boolean> {
  const deployment = docs.find((d): d is DeploymentDoc => d.kind === 'Deployment' && d.metadata?.name === 'envoy-ingress') as DeploymentDoc | undefined;
  const containers = deployment?.spec?.template?.spec?.containers ?? [];
  const index = containers.findIndex((c) => c.name === 'controller');
  if (index < 0) throw new Error("deploy/ has no Deployment envoy-ingress with a container named 'controller'");
  if (containers[index]!.args?.some((a) => a.startsWith(GATEWAY_PORT_RANGE_FLAG))) return false;
  // The addresses the load balancer hands out: a Gateway's spec.addresses may ask for one of them
  // (GatewayStaticAddresses; options.yaml's usable address is in the pool, its unusable one is not).
  const args = [`${GATEWAY_PORT_RANGE_FLAG}=${GATEWAY_PORT_RANGE}`, `--gateway-load-balancer-addresses=${LOAD_BALANCER_POOL.join(',')}`];
  const patch = args.map((value) => ({ op: 'add', path: `/spec/template/spec/containers/${index}/args/-`, value }));
  await n.kubectlOk(['patch', 'deployment', 'envoy-ingress', '-n', NS, '--type=json', '-p', JSON.stringify(patch)]);
  log(`deploy/ does not pass ${GATEWAY_PORT_RANGE_FLAG}: added ${GATEWAY_PORT_RANGE_FLAG}=${GATEWAY_PORT_RANGE} and the load balancer's pool to the controller's args`);
  return true;
}

/** The checkout as a version: package.json's, with the commit (the reports' rules: a snapshot, not a branch). */
async function checkoutVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const commit = await runCommand('git', ['-C', root, 'rev-parse', '--short=12', 'HEAD']);
  const dirty = await runCommand('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no']);
  const sha = commit.code === 0 ? commit.stdout.trim() : 'unknown';
  return `v${pkg.version}-${sha}${dirty.code === 0 && dirty.stdout.trim() !== '' ? '-dirty' : ''}`;
}

/** The suite's process while it runs (stopped with the node on SIGINT/SIGTERM). */
let suiteProcess: ReturnType<typeof spawn> | undefined;

/** Runs the suite's binary: the full log to `logPath`, results and failures to stdout. Resolves with its exit code. */
function runSuite(bin: string, args: readonly string[], env: NodeJS.ProcessEnv, logPath: string): Promise<number> {
  return new Promise((resolve) => {
    const out = createWriteStream(logPath);
    const child = spawn(bin, args, { cwd: path.dirname(logPath), env, stdio: ['ignore', 'pipe', 'pipe'] });
    suiteProcess = child;
    let pending = '';
    const onData = (chunk: Buffer): void => {
      out.write(chunk);
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      // The test results as they come (one line each), not the suite's request-by-request log.
      for (const line of lines) if (/^\s*--- (PASS|FAIL|SKIP)|^(PASS|FAIL|ok|panic)\b|^\s+(Error|Messages):\s/.test(line)) process.stdout.write(`${line}\n`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('close', (code, signal) => {
      suiteProcess = undefined;
      out.end(() => resolve(code ?? (signal ? 128 : 1)));
    });
  });
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
});
