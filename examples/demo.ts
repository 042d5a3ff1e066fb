// `npm run demo`: the whole thing on one machine. Echo servers play the pods of examples/manifests, a CA and a
// certificate are generated for the TLS host, and `envoy-ingress run --envoy` serves a runtime copy of the
// manifests (Ingresses and a Gateway API Gateway with its HTTPRoute) to a real Envoy. Prints curl lines that work; DEMO_CHECK=1 runs them instead and exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDemoCA } from './demo-certificates.js';
import { type DemoCheck, demoChecks } from './demo-checks.js';
import { type EchoServer, startEchoServer } from './echo-server.js';
import {
  type BackendSlot,
  backendSlots,
  manifestHttpPort,
  missingTlsSecrets,
  moveGatewayListeners,
  readManifestDir,
  tlsSecretYaml,
  writeRuntimeManifests,
} from './runtime-manifests.js';

interface DemoConfig {
  httpPort: number;
  httpsPort: number;
  /** `manifest`: echo servers listen on the EndpointSlice ports; `auto`: the OS picks, the copy is rewritten. */
  backendPorts: 'manifest' | 'auto';
  /** Runtime directory given by the user (kept on exit); otherwise a temporary one (removed on exit). */
  dir: string | undefined;
  check: boolean;
  readyTimeoutMs: number;
}

function portFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`${name} must be a port number, got ${JSON.stringify(raw)}`);
  return port;
}

function configFrom(env: NodeJS.ProcessEnv): DemoConfig {
  const backendPorts = env['DEMO_BACKEND_PORTS'] ?? 'manifest';
  if (backendPorts !== 'manifest' && backendPorts !== 'auto') {
    throw new Error(`DEMO_BACKEND_PORTS must be "manifest" or "auto", got ${JSON.stringify(backendPorts)}`);
  }
  return {
    httpPort: portFrom(env, 'DEMO_HTTP_PORT', manifestHttpPort),
    httpsPort: portFrom(env, 'DEMO_HTTPS_PORT', 8443),
    backendPorts,
    dir: env['DEMO_DIR'] || undefined,
    check: env['DEMO_CHECK'] === '1',
    readyTimeoutMs: Number(env['DEMO_READY_TIMEOUT_S'] || 300) * 1000,
  };
}

const here = path.dirname(fileURLToPath(import.meta.url));
// This file runs as dist/examples/demo.js; the manifests stay in the source tree.
const committedManifests = path.resolve(here, '../../examples/manifests');
const cliMain = path.resolve(here, '../cli/main.js');
const connectHost = '127.0.0.1';

/** Starts an echo server per pod of each slice, adding each to `servers` at once so a failure leaks none. */
async function startBackends(config: DemoConfig, slots: BackendSlot[], servers: EchoServer[]): Promise<void> {
  for (const slot of slots) {
    // All addresses of one slice share its port: in auto mode the first server picks it, the others follow.
    let port = config.backendPorts === 'auto' ? 0 : slot.port;
    for (const pod of slot.pods) {
      const options = { service: slot.service, pod: pod.name, host: pod.address, port, status: slot.status };
      const server = await startEchoServer(options).catch((err: unknown) => {
        const inUse = (err as { code?: unknown }).code === 'EADDRINUSE';
        const hint = inUse ? ' (set DEMO_BACKEND_PORTS=auto to let the OS pick ports)' : '';
        throw new Error(`echo server for ${slot.service} pod ${pod.name} on ${pod.address}:${port}: ${String(err)}${hint}`);
      });
      servers.push(server);
      port = server.port;
    }
    if (port !== slot.port && port !== 0) slot.setPort(port);
  }
}

/** GET from Envoy's admin interface, a Unix socket (xDS is one too: nothing Envoy proxies to can reach either). */
function adminGet(adminSocket: string, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: adminSocket, path: urlPath, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('Envoy admin: no answer within 2 s')));
    req.on('error', reject);
    req.end();
  });
}

type EnvoyState = { serving: true } | { serving: false; error?: string };

interface ListenerDump {
  name?: string;
  warming_state?: unknown;
  error_state?: { details?: string };
}

/**
 * Serving once Envoy is LIVE, both listeners are bound and nothing waits for xDS (clusters, routes, secrets).
 * A listener Envoy rejected (a port in use, typically) is an error: waiting longer would not help.
 */
async function envoyState(adminSocket: string): Promise<EnvoyState> {
  try {
    if ((await adminGet(adminSocket, '/ready')).status !== 200) return { serving: false };
    const dump = JSON.parse((await adminGet(adminSocket, '/config_dump')).body) as { configs?: Record<string, unknown>[] };
    const sections = dump.configs ?? [];
    const listeners = sections.flatMap((section) => (section['dynamic_listeners'] ?? []) as ListenerDump[]);
    const failed = listeners.find((l) => l.error_state !== undefined);
    if (failed !== undefined) {
      return { serving: false, error: `Envoy rejected listener ${failed.name ?? '?'}: ${failed.error_state?.details ?? ''}` };
    }
    if (sections.some((section) => Array.isArray(section['dynamic_warming_clusters']))) return { serving: false };
    if (listeners.some((l) => l.warming_state !== undefined)) return { serving: false };
    const bound = JSON.parse((await adminGet(adminSocket, '/listeners?format=json')).body) as {
      listener_statuses?: { name?: string; local_address?: { socket_address?: { port_value?: number } } }[];
    };
    const names = new Set(
      (bound.listener_statuses ?? [])
        .filter((l) => (l.local_address?.socket_address?.port_value ?? 0) > 0)
        .map((l) => l.name),
    );
    return names.has('ingress_http') && names.has('ingress_https') ? { serving: true } : { serving: false };
  } catch {
    return { serving: false }; // not up yet
  }
}

class Demo {
  #child: ChildProcess | undefined;
  #childExited: Promise<void> = Promise.resolve();
  #servers: EchoServer[] = [];
  #stopping: Promise<void> | undefined;
  readonly aborted = new AbortController();

  constructor(
    readonly config: DemoConfig,
    readonly dir: string,
  ) {}

  get manifestsDir(): string {
    return path.join(this.dir, 'manifests');
  }
  get caFile(): string {
    return path.join(this.dir, 'ca.crt');
  }
  get logFile(): string {
    return path.join(this.dir, 'envoy-ingress.log');
  }
  /** Unix sockets for xDS and Envoy's admin, in a short directory of their own (a socket path has 107 bytes). */
  readonly socketDir = mkdtempSync(path.join(tmpdir(), 'envoy-ingress-demo-'));
  get adminSocket(): string {
    return path.join(this.socketDir, 'admin.sock');
  }

  async prepare(): Promise<string> {
    await mkdir(this.manifestsDir, { recursive: true });
    const files = await readManifestDir(committedManifests);
    await startBackends(this.config, backendSlots(files), this.#servers);
    // The Gateway's HTTP listener shares the Ingress listener only while both are on the same port.
    moveGatewayListeners(files, manifestHttpPort, this.config.httpPort);
    const ca = await createDemoCA();
    const secrets = [];
    for (const secret of missingTlsSecrets(files)) {
      const { certPem, keyPem } = await ca.issue(secret.hosts);
      secrets.push({ name: `${secret.name}.secret.yaml`, text: tlsSecretYaml(secret, certPem, keyPem) });
    }
    await writeRuntimeManifests(files, this.manifestsDir, secrets);
    await writeFile(this.caFile, ca.caPem);
    return ca.caPem;
  }

  startController(): void {
    const c = this.config;
    const args = [
      cliMain, 'run',
      '--manifests', this.manifestsDir,
      '--envoy',
      '--listen-address', connectHost,
      '--http-port', String(c.httpPort),
      '--https-port', String(c.httpsPort),
      '--https-redirect-port', String(c.httpsPort),
      // The demo namespace is the operator's: its default backend answers every host (a tenant's would not).
      '--default-backend-namespace', 'demo',
      '--envoy-admin-address', `unix:${this.adminSocket}`,
      '--xds-address', `unix:${path.join(this.socketDir, 'xds.sock')}`,
    ];
    const log = openSync(this.logFile, 'a');
    // Its own process group (Envoy joins it), so stopping can make sure nothing is left behind.
    const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    this.#child = child;
    this.#childExited = new Promise((resolve) => child.once('exit', () => resolve()));
    // Last resort if this process dies without stopping: the group must not outlive the demo.
    process.once('exit', () => this.#killGroup('SIGKILL'));
  }

  get controllerPid(): number | undefined {
    return this.#child?.pid;
  }

  async waitUntilServing(): Promise<void> {
    const deadline = Date.now() + this.config.readyTimeoutMs;
    for (;;) {
      if (this.aborted.signal.aborted) throw new Error('interrupted');
      const child = this.#child;
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`envoy-ingress exited before Envoy was serving\n${await this.logTail()}`);
      }
      const state = await envoyState(this.adminSocket);
      if (state.serving) return;
      if (state.error !== undefined) throw new Error(`${state.error}\n${await this.logTail()}`);
      if (Date.now() > deadline) {
        throw new Error(`Envoy not serving after ${this.config.readyTimeoutMs / 1000} s\n${await this.logTail()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async logTail(lines = 30): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return `--- last lines of ${this.logFile} ---\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`;
  }

  #killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
  }

  /** The controller drains and stops Envoy; whatever is still in its group after that is killed. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const child = this.#child;
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timeout = new Promise((resolve) => setTimeout(resolve, 20_000).unref());
        await Promise.race([this.#childExited, timeout]);
      }
      this.#killGroup('SIGKILL');
      await Promise.all(this.#servers.map((s) => s.close()));
      rmSync(this.socketDir, { recursive: true, force: true });
    })();
    return this.#stopping;
  }

  /** Immediate stop (a second Ctrl-C). */
  kill(): void {
    this.#killGroup('SIGKILL');
    rmSync(this.socketDir, { recursive: true, force: true });
    process.exit(130);
  }
}

function usage(demo: Demo, checks: readonly DemoCheck[]): string {
  const lines = [
    '',
    'envoy-ingress demo is serving.',
    `  Envoy        http://${connectHost}:${demo.config.httpPort}  https://${connectHost}:${demo.config.httpsPort}`,
    `  admin        curl --unix-socket ${demo.adminSocket} http://localhost/`,
    `  manifests    ${demo.manifestsDir}`,
    `  CA           ${demo.caFile}`,
    `  log          ${demo.logFile}`,
    '',
    'Try:',
  ];
  for (const check of checks) lines.push('', `# ${check.title}`, check.curl);
  lines.push(
    '',
    `Edit ${demo.manifestsDir}/*.yaml and changes apply live (e.g. point /api at the blog Service, or delete`,
    'default-backend.yaml to get the built-in 404 page). Ctrl-C stops everything.',
    '',
  );
  return lines.join('\n');
}

async function runChecks(checks: readonly DemoCheck[]): Promise<number> {
  let failed = 0;
  for (const check of checks) {
    let problem: string | undefined;
    try {
      problem = await check.run();
    } catch (err: unknown) {
      problem = err instanceof Error ? err.message : String(err);
    }
    if (problem !== undefined) failed += 1;
    process.stdout.write(`${problem === undefined ? 'PASS' : 'FAIL'}  ${check.title}\n      ${check.curl}\n`);
    if (problem !== undefined) process.stdout.write(`      -> ${problem}\n`);
  }
  process.stdout.write(`checks: ${checks.length - failed} passed, ${failed} failed\n`);
  return failed;
}

async function main(): Promise<number> {
  let config: DemoConfig;
  try {
    config = configFrom(process.env);
  } catch (err: unknown) {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const dir = config.dir ?? (await mkdtemp(path.join(tmpdir(), 'envoy-ingress-demo-')));
  const demo = new Demo(config, dir);
  const onSignal = (signal: NodeJS.Signals): void => {
    if (demo.aborted.signal.aborted) return demo.kill();
    process.stdout.write(`\n${signal}: stopping (Envoy drains for a few seconds; Ctrl-C again to kill at once)\n`);
    demo.aborted.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const caPem = await demo.prepare();
    demo.startController();
    const pid = String(demo.controllerPid);
    process.stdout.write(`envoy-ingress controller pid ${pid} (process group ${pid})\n`);
    process.stdout.write(`waiting for Envoy to be serving (the first run installs Envoy, which can take a minute)...\n`);
    await demo.waitUntilServing();
    const checks = demoChecks({ connectHost, ...config, adminSocket: demo.adminSocket, caFile: demo.caFile, caPem });
    if (config.check) return (await runChecks(checks)) === 0 ? 0 : 1;
    process.stdout.write(usage(demo, checks));
    await new Promise<void>((resolve) => demo.aborted.signal.addEventListener('abort', () => resolve(), { once: true }));
    return 0;
  } catch (err: unknown) {
    if (demo.aborted.signal.aborted) return 130;
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await demo.stop();
    if (config.dir === undefined) await rm(dir, { recursive: true, force: true });
    process.stdout.write('demo stopped\n');
  }
}

// Exit explicitly: idle keep-alive sockets of fetch() would otherwise hold the process for a few seconds.
process.exit(await main());
