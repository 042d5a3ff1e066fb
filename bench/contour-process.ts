// Contour, the nearest peer (Envoy + xDS + the Ingress API), as the peers scenario runs it: `contour serve` in its
// own process against the scenario's kube-apiserver, and the Envoy bootstrap `contour bootstrap` writes for it.
// The binary and its CRDs come from scripts/ensure-go-tools.sh (built once from the pinned Go module, cached).
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findRepoRoot } from '../test/harness/repo-root.js';
import { LineRingBuffer } from '../test/harness/line-ring-buffer.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { terminateChild } from './terminate-child.js';

const run = promisify(execFile);

export interface ContourBuild {
  bin: string;
  crdsPath: string;
  /** What `contour version` prints as its version, e.g. v1.33.8. */
  version: string;
}

/** The pinned Contour (built on first use: minutes on 2 cores) and its CRD manifest. */
export function ensureContour(): ContourBuild {
  const script = join(findRepoRoot(), 'scripts', 'ensure-go-tools.sh');
  const out = execFileSync('bash', [script, 'contour'], { stdio: ['ignore', 'pipe', 'inherit'] }).toString();
  const paths = new Map(out.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()]));
  const bin = paths.get('contour');
  const crdsPath = paths.get('contour-crds');
  if (!bin || !crdsPath) throw new Error(`${script} contour: expected contour= and contour-crds= lines, got ${JSON.stringify(out)}`);
  // `contour version` prints to stderr.
  const version = /^version:\s*(\S+)/m.exec(spawnSync(bin, ['version'], { encoding: 'utf8' }).stderr)?.[1] ?? 'unknown';
  return { bin, crdsPath, version };
}

export interface ContourProcess {
  pid: number;
  /** The arguments after `contour serve` (ports vary per run). */
  args: string[];
  /** The Envoy bootstrap from `contour bootstrap`, with the admin API moved from a unix socket to 127.0.0.1:0. */
  bootstrap: object;
  /** Envoy's command-line arguments Contour's own Envoy Deployment adds (examples/contour/03-envoy.yaml). */
  envoyArgs: string[];
  /** Envoy's stat prefix of the xDS cluster (Contour names it by its alt_stat_name). */
  xdsStatPrefix: string;
  logs(): string;
  stop(): Promise<void>;
}

/** Flags of the run that say how Contour was configured (ports and paths left out), for the README. */
export function contourFlagsOf(args: readonly string[]): string[] {
  const varying = /^--(kubeconfig|envoy-https?-access-log|xds-port|envoy-service-https?-port|http-port|health-port|debug-http-port|stats-port)=/;
  return args.filter((a) => !varying.test(a));
}

/** Starts `contour serve` for Ingresses of class `ingressClass`; Envoy is to listen on 127.0.0.1:httpPort. */
export async function startContour(o: { build: ContourBuild; kubeconfigPath: string; ingressClass: string; httpPort: number; httpsPort: number }): Promise<ContourProcess> {
  const xdsPort = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'envoy-ingress-contour-'));
  const args = [
    `--kubeconfig=${o.kubeconfigPath}`,
    // Contour's default, /dev/stdout, cannot be opened by Envoy when its stdout is the socket node gives a child.
    `--envoy-http-access-log=${join(dir, 'access.log')}`,
    `--envoy-https-access-log=${join(dir, 'access.log')}`,
    '--insecure',
    '--disable-leader-election',
    `--ingress-class-name=${o.ingressClass}`,
    '--xds-address=127.0.0.1',
    `--xds-port=${xdsPort}`,
    '--envoy-service-http-address=127.0.0.1',
    `--envoy-service-http-port=${o.httpPort}`,
    '--envoy-service-https-address=127.0.0.1',
    `--envoy-service-https-port=${o.httpsPort}`,
    '--http-address=127.0.0.1',
    `--http-port=${await freePort()}`,
    '--health-address=127.0.0.1',
    `--health-port=${await freePort()}`,
    '--debug-http-address=127.0.0.1',
    `--debug-http-port=${await freePort()}`,
    '--stats-address=127.0.0.1',
    `--stats-port=${await freePort()}`,
  ];
  const bootstrapPath = join(dir, 'bootstrap.json');
  await run(o.build.bin, ['bootstrap', bootstrapPath, '--xds-address=127.0.0.1', `--xds-port=${xdsPort}`, `--admin-address=${join(dir, 'admin.sock')}`]);
  const generated = JSON.parse(await readFile(bootstrapPath, 'utf8')) as { admin: object; static_resources: { clusters: { name: string; alt_stat_name?: string }[] } };
  // The harness finds Envoy's admin API through --admin-address-path, which needs a TCP address.
  const bootstrap = { ...generated, admin: { ...generated.admin, address: { socket_address: { address: '127.0.0.1', port_value: 0 } } } };
  const xdsCluster = generated.static_resources.clusters.find((c) => c.name === 'contour');
  const output = new LineRingBuffer(500);
  const child = spawn(o.build.bin, ['serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => output.append('stdout', chunk));
  child.stderr.on('data', (chunk: Buffer) => output.append('stderr', chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    pid: child.pid!,
    args,
    bootstrap,
    // The bootstrap has no node: Contour's Deployment names it on the command line.
    envoyArgs: ['--service-cluster', 'projectcontour', '--service-node', `envoy-bench-${process.pid}`],
    xdsStatPrefix: `cluster.${xdsCluster?.alt_stat_name ?? 'contour'}.`,
    logs: () => output.toString(40),
    async stop() {
      await terminateChild(child, exited);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
