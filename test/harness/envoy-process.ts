/**
 * Runs a real Envoy for a test: bootstrap in a temp dir, admin on an OS-chosen port, output kept in a ring
 * buffer, and typed helpers over the admin API (config dump, listeners, warming, stats).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { findEnvoyBinary } from './envoy-binary.js';
import { bootstrapForThisHost } from './host-memory-monitor.js';
import { LineRingBuffer } from './line-ring-buffer.js';
import { createTempDir } from './temp-dir.js';
import { waitFor } from './wait.js';

export interface StartEnvoyOptions {
  /** The bootstrap, as the proto3 JSON object Envoy reads. Its admin address may use port 0. */
  bootstrap: object;
  /** Envoy binary (default: findEnvoyBinary()). */
  envoyBin?: string;
  /** --base-id (default: unique per process from pid and a counter). */
  baseId?: number;
  /** -l, Envoy's log level (default "info"). */
  logLevel?: string;
  /** --concurrency, worker threads (default 1: the test machine has 2 cores shared by parallel tests). */
  concurrency?: number;
  /** --drain-time-s: how long a removed or replaced listener drains (Envoy's default is 600 s). */
  drainTimeS?: number;
  /** More command-line arguments, appended last. */
  extraArgs?: string[];
  /** How long to wait for the admin API to answer (default 30 s). */
  startTimeoutMs?: number;
  /** Lines of output kept for logs() (default 2000). */
  maxLogLines?: number;
}

export interface AdminResponse {
  status: number;
  body: string;
}

/** One entry of /config_dump's `configs`, e.g. a ListenersConfigDump; fields are Envoy's proto3 JSON. */
export type ConfigDumpSection = { '@type': string } & Record<string, any>;

export interface EnvoyConfigDump {
  configs: ConfigDumpSection[];
}

export interface WarmingState {
  warmingClusters: string[];
  warmingListeners: string[];
}

export interface EnvoyExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface EnvoyProcess {
  pid: number;
  /** e.g. http://127.0.0.1:40123 */
  adminUrl: string;
  bootstrapPath: string;
  /** Settles when the process has exited (for any reason). */
  exited: Promise<EnvoyExit>;
  admin(path: string, opts?: { method?: 'GET' | 'POST' }): Promise<AdminResponse>;
  configDump(opts?: { includeEds?: boolean }): Promise<EnvoyConfigDump>;
  /**
   * The port a listener is bound to, from /listeners (the bootstrap or LDS may ask for port 0). /listeners shows
   * only active listeners: one still warming (waiting for RDS or SDS) is not there yet.
   */
  listenerPort(name: string): Promise<number>;
  /** Waits until the listener is active (bound, not only warming) and returns its port. */
  waitForListener(name: string, timeoutMs?: number): Promise<number>;
  /** Polls `predicate` (which usually asks this Envoy something); throws with Envoy's logs on timeout. */
  waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs?: number, description?: string): Promise<void>;
  /** Names of clusters and listeners that Envoy received but cannot use yet (waiting for EDS, RDS, SDS...). */
  warmingState(): Promise<WarmingState>;
  /** Counters and gauges whose name matches the regular expression `filter` (all when omitted). */
  stats(filter?: string): Promise<Record<string, number>>;
  /** Envoy's server state from /server_info: PRE_INITIALIZING, INITIALIZING, LIVE or DRAINING. */
  serverState(): Promise<string>;
  /** Waits until Envoy is LIVE (initial xDS fetches done or timed out). */
  waitForLive(timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL if it has not exited within `timeoutMs` (default 5 s); removes the temp dir. */
  stop(timeoutMs?: number): Promise<EnvoyExit>;
  /** What Envoy wrote to stdout and stderr (the last `maxLogLines`, or only the last `lastLines`). */
  logs(lastLines?: number): string;
}

/** A TCP connection to the port is accepted (closed again at once). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Enough Envoy output to explain an error without burying it (the full log is still in logs()). */
const ERROR_LOG_LINES = 80;
let baseIdCounter = 0;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Starts Envoy and resolves once its admin API answers (any status: Envoy may still be initializing). */
export async function startEnvoy(opts: StartEnvoyOptions): Promise<EnvoyProcess> {
  const envoyBin = opts.envoyBin ?? (await findEnvoyBinary());
  const dir = await createTempDir('envoy-ingress-envoy-');
  const bootstrapPath = dir.file('bootstrap.json');
  const adminAddressPath = dir.file('admin-address');
  await writeFile(bootstrapPath, JSON.stringify(bootstrapForThisHost(opts.bootstrap), null, 2));

  baseIdCounter += 1;
  // Unique among concurrently running test workers; irrelevant when hot restart is disabled, but harmless.
  const baseId = opts.baseId ?? (process.pid % 100_000) * 100 + (baseIdCounter % 100);
  const args = [
    '-c', bootstrapPath,
    '--admin-address-path', adminAddressPath,
    '--base-id', String(baseId),
    '--disable-hot-restart',
    '--concurrency', String(opts.concurrency ?? 1),
    '-l', opts.logLevel ?? 'info',
    ...(opts.drainTimeS !== undefined ? ['--drain-time-s', String(opts.drainTimeS)] : []),
    ...(opts.extraArgs ?? []),
  ];

  const output = new LineRingBuffer(opts.maxLogLines ?? 2000);
  const child = spawn(envoyBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  trackForCleanup(child);
  child.stdout.on('data', (chunk: Buffer) => output.append('stdout', chunk));
  child.stderr.on('data', (chunk: Buffer) => output.append('stderr', chunk));
  const logs = (lastLines?: number): string => output.toString(lastLines);

  let exitInfo: EnvoyExit | undefined;
  // Aborted when Envoy exits, so every wait on it fails at once instead of at its timeout.
  const exitedController = new AbortController();
  const exited = new Promise<EnvoyExit>((resolve) => {
    child.once('error', (error) => {
      output.append('harness', `failed to run ${envoyBin}: ${error.message}\n`);
      exitInfo = { code: null, signal: null };
      running.delete(child);
      exitedController.abort(new EnvoyExitedError(exitInfo));
      resolve(exitInfo);
    });
    child.once('close', (code, signal) => {
      output.flush();
      exitInfo = { code, signal };
      running.delete(child);
      exitedController.abort(new EnvoyExitedError(exitInfo));
      resolve(exitInfo);
    });
  });

  const failStart = async (reason: string): Promise<never> => {
    child.kill('SIGKILL');
    await exited;
    await dir.remove();
    throw new Error(`Envoy did not start: ${reason}\nargs: ${args.join(' ')}\n--- Envoy output ---\n${logs(ERROR_LOG_LINES)}`);
  };

  const address = await waitFor(
    async () => {
      const text = await readFile(adminAddressPath, 'utf8').catch(() => '');
      const trimmed = text.trim();
      // Envoy writes the whole address at once, but a reader can still see an empty file being created.
      if (!/:\d+$/.test(trimmed)) return undefined;
      await adminRequest(`http://${trimmed}`, '/server_info', 'GET');
      return trimmed;
    },
    {
      timeoutMs: opts.startTimeoutMs ?? 30_000,
      intervalMs: 50,
      description: 'the Envoy admin API to answer',
      signal: exitedController.signal,
    },
  ).catch((error: unknown) => failStart(error instanceof Error ? error.message : String(error)));
  const adminUrl = `http://${address}`;

  const admin = (path: string, adminOpts?: { method?: 'GET' | 'POST' }): Promise<AdminResponse> =>
    adminRequest(adminUrl, path, adminOpts?.method ?? 'GET');

  const adminJson = async (path: string, method: 'GET' | 'POST' = 'GET'): Promise<any> => {
    const response = await adminRequest(adminUrl, path, method);
    if (response.status !== 200) {
      throw new Error(`Envoy admin ${method} ${path} answered ${response.status}: ${response.body.slice(0, 500)}`);
    }
    return JSON.parse(response.body) as unknown;
  };

  const configDump = async (dumpOpts?: { includeEds?: boolean }): Promise<EnvoyConfigDump> =>
    (await adminJson(dumpOpts?.includeEds ? '/config_dump?include_eds' : '/config_dump')) as EnvoyConfigDump;

  /** A bound listener's port, and where to connect to it: its address, loopback for a wildcard one. */
  const boundListener = async (name: string): Promise<{ host: string; port: number } | undefined> => {
    const body = (await adminJson('/listeners?format=json')) as ListenersResponse;
    const address = body.listener_statuses?.find((listener) => listener.name === name)?.local_address?.socket_address;
    const port = address?.port_value;
    if (port === undefined || port <= 0) return undefined;
    const host = address?.address;
    return { host: host === undefined || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, port };
  };

  const listenerPort = async (name: string): Promise<number> => {
    const port = (await boundListener(name))?.port;
    if (port === undefined) throw new Error(`Envoy has no bound listener named ${JSON.stringify(name)}`);
    return port;
  };

  const waitUntil = async (
    predicate: () => boolean | Promise<boolean>,
    timeoutMs = 10_000,
    description = 'a condition on Envoy',
  ): Promise<void> => {
    try {
      await waitFor(predicate, { timeoutMs, description, signal: exitedController.signal });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message}\n--- Envoy output ---\n${logs(ERROR_LOG_LINES)}`);
    }
  };

  const waitForListener = async (name: string, timeoutMs = 10_000): Promise<number> => {
    let port: number | undefined;
    await waitUntil(
      async () => {
        const listener = await boundListener(name);
        port = listener?.port;
        // /listeners shows a listener once it is active, a moment before the workers accept on its socket.
        return listener !== undefined && (await accepts(listener.host, listener.port));
      },
      timeoutMs,
      `listener ${JSON.stringify(name)} to be active and bound`,
    );
    return port as number;
  };

  const warmingState = async (): Promise<WarmingState> => warmingStateOf(await configDump());

  const stats = async (filter?: string): Promise<Record<string, number>> => {
    const query = filter === undefined ? '' : `&filter=${encodeURIComponent(filter)}`;
    const body = (await adminJson(`/stats?format=json${query}`)) as { stats?: Array<{ name?: string; value?: unknown }> };
    const result: Record<string, number> = {};
    for (const entry of body.stats ?? []) {
      // Histograms come as one entry without name/value; counters and gauges are plain numbers.
      if (typeof entry.name === 'string' && typeof entry.value === 'number') result[entry.name] = entry.value;
    }
    return result;
  };

  const serverState = async (): Promise<string> => {
    const info = (await adminJson('/server_info')) as { state?: string };
    return info.state ?? 'UNKNOWN';
  };

  let stopping: Promise<EnvoyExit> | undefined;
  const stop = (timeoutMs = 5_000): Promise<EnvoyExit> => {
    stopping ??= (async () => {
      if (!exitInfo) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        await exited;
        clearTimeout(timer);
      }
      await dir.remove();
      return exited;
    })();
    return stopping;
  };

  return {
    pid: child.pid ?? -1,
    adminUrl,
    bootstrapPath,
    exited,
    admin,
    configDump,
    listenerPort,
    waitForListener,
    waitUntil,
    warmingState,
    stats,
    serverState,
    waitForLive: (timeoutMs = 30_000) =>
      waitUntil(async () => (await serverState()) === 'LIVE', timeoutMs, 'Envoy to be LIVE'),
    stop,
    logs,
  };
}

/** The section of a config dump with the given type, e.g. "ClustersConfigDump" or "ListenersConfigDump". */
export function findSection(dump: EnvoyConfigDump, typeName: string): ConfigDumpSection | undefined {
  return dump.configs.find((section) => section['@type'].endsWith(`.${typeName}`));
}

/** Warming clusters and listeners named in a config dump. */
export function warmingStateOf(dump: EnvoyConfigDump): WarmingState {
  const clusters = findSection(dump, 'ClustersConfigDump');
  const listeners = findSection(dump, 'ListenersConfigDump');
  const warmingClusters = ((clusters?.['dynamic_warming_clusters'] ?? []) as Array<{ cluster?: { name?: string } }>)
    .map((entry) => entry.cluster?.name ?? '');
  const warmingListeners = ((listeners?.['dynamic_listeners'] ?? []) as DynamicListener[])
    .filter((entry) => entry.warming_state !== undefined)
    .map((entry) => entry.name ?? '');
  return { warmingClusters, warmingListeners };
}

interface ListenersResponse {
  listener_statuses?: Array<{ name?: string; local_address?: { socket_address?: { address?: string; port_value?: number } } }>;
}

interface DynamicListener {
  name?: string;
  active_state?: unknown;
  warming_state?: unknown;
}

class EnvoyExitedError extends Error {
  constructor(exit: EnvoyExit) {
    super(`Envoy exited (code ${exit.code}, signal ${exit.signal})`);
  }
}

function adminRequest(baseUrl: string, path: string, method: 'GET' | 'POST'): Promise<AdminResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`Envoy admin ${method} ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Envoy must not outlive the test worker, even when a test forgets stop() or the worker crashes out. */
function trackForCleanup(child: ChildProcess): void {
  running.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const proc of running) proc.kill('SIGKILL');
  });
}
