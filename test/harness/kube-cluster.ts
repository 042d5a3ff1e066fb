/**
 * A real Kubernetes control plane for tests: etcd plus kube-apiserver on 127.0.0.1 (no controller-manager,
 * scheduler or kubelet, so tests create EndpointSlices and ServiceAccounts themselves). Authorization is RBAC;
 * the admin is a static token in group system:masters; ServiceAccount tokens come from the TokenRequest API.
 * TLS is verified: the harness makes its own CA and serving certificate for 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { createApiServerKeyMaterial } from './kube-certs.js';
import { findKubeBinaries, type KubeBinaries } from './kube-available.js';
import { describeExit, startKubeProcess, type KubeProcess } from './kube-process.js';
import { createTempDir, type TempDir } from './temp-dir.js';
import { sleep } from './wait.js';

export interface KubeClusterOptions {
  /** Binaries to run (default: findKubeBinaries()). */
  binaries?: KubeBinaries;
  /** How long etcd and the API server may take to become ready, each (default 120 s: the machine is shared). */
  readyTimeoutMs?: number;
  /** Extra kube-apiserver flags, appended last (so they win over the defaults). */
  extraApiServerArgs?: readonly string[];
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (e.g. manifests for `apply -f -`). */
  input?: string;
  /** Kubeconfig to use instead of the admin one. */
  kubeconfig?: string;
}

export interface KubeCluster {
  /** https URL of the API server, e.g. https://127.0.0.1:41234 */
  readonly server: string;
  /** Bearer token of a system:masters user. */
  readonly adminToken: string;
  /** PEM of the CA that signed the API server's serving certificate. */
  readonly caCertPem: string;
  /** Path of a kubeconfig that uses adminToken. */
  readonly adminKubeconfigPath: string;
  /** Process ids of etcd and the API server (undefined while that process is not running). */
  readonly pids: { etcd: number | undefined; apiServer: number | undefined };
  /** A kubeconfig (JSON, which is valid YAML) for this cluster authenticating with `token`. */
  kubeconfig(options: { token: string; namespace?: string }): string;
  writeKubeconfig(path: string, options: { token: string; namespace?: string }): Promise<void>;
  kubectl(args: readonly string[], options?: KubectlOptions): Promise<KubectlResult>;
  /** Runs kubectl and throws (with its stderr) unless it exits 0; resolves with stdout. */
  kubectlOk(args: readonly string[], options?: KubectlOptions): Promise<string>;
  /** A token for an existing ServiceAccount, from the TokenRequest API (`kubectl create token`). */
  serviceAccountToken(namespace: string, name: string, expirationSeconds?: number): Promise<string>;
  /** Stops the API server only; etcd keeps the data. */
  stopApiServer(): Promise<void>;
  /** Starts the API server again with the same flags, ports and etcd data, and waits until it is ready. */
  startApiServer(): Promise<void>;
  /** Last log lines of both processes. */
  logs(): string;
  /** Stops both processes and removes the temporary directory. Safe to call more than once. */
  stop(): Promise<void>;
}

/** ServiceAccount issuer: tokens carry it as `iss`, and it is the default audience. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/16';
const ADMIN_USER = 'envoy-ingress-test-admin';

export async function startKubeCluster(options: KubeClusterOptions = {}): Promise<KubeCluster> {
  const binaries = options.binaries ?? (await findKubeBinaries());
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const dir = await createTempDir('envoy-ingress-kube-');
  let etcd: KubeProcess | undefined;
  let apiServer: KubeProcess | undefined;
  let stopping: Promise<void> | undefined;

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await apiServer?.stop();
      await etcd?.stop();
      await dir.remove();
    })();
    return stopping;
  };

  try {
    const [etcdClientPort, etcdPeerPort, apiServerPort] = await freePorts(3);
    const keys = await createApiServerKeyMaterial();
    const adminToken = randomBytes(24).toString('hex');
    await mkdir(dir.file('certs'));
    await Promise.all([
      writeFile(dir.file('ca.crt'), keys.caCertPem),
      writeFile(dir.file('serving.crt'), keys.servingCertPem),
      writeFile(dir.file('serving.key'), keys.servingKeyPem, { mode: 0o600 }),
      writeFile(dir.file('sa.key'), keys.serviceAccountKeyPem, { mode: 0o600 }),
      writeFile(dir.file('sa.pub'), keys.serviceAccountPublicKeyPem),
      // token,user,uid,"group1,group2"
      writeFile(dir.file('tokens.csv'), `${adminToken},${ADMIN_USER},${ADMIN_USER},system:masters\n`, { mode: 0o600 }),
    ]);

    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    etcd = startKubeProcess('etcd', binaries.etcd, [
      '--name=default',
      `--data-dir=${dir.file('etcd-data')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      '--initial-cluster-state=new',
      // Test data is throw-away: skipping fsync makes etcd far lighter on a shared disk.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await waitUntilReady(etcd, readyTimeoutMs, async () => {
      const { status, body } = await get(`${etcdUrl}/health`);
      return status === 200 && body.includes('"health":"true"');
    });

    const server = `https://127.0.0.1:${apiServerPort}`;
    const apiServerArgs = [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiServerPort}`,
      `--cert-dir=${dir.file('certs')}`,
      `--tls-cert-file=${dir.file('serving.crt')}`,
      `--tls-private-key-file=${dir.file('serving.key')}`,
      `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
      `--service-account-key-file=${dir.file('sa.pub')}`,
      `--service-account-signing-key-file=${dir.file('sa.key')}`,
      '--authorization-mode=RBAC',
      `--token-auth-file=${dir.file('tokens.csv')}`,
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      // No controller-manager: nothing would create the "default" ServiceAccount this plugin waits for in pods.
      '--disable-admission-plugins=ServiceAccount',
      // The API server would publish its own address (127.0.0.1) as the `kubernetes` Service's endpoints, which
      // its validation rejects as loopback: it would only log an error every few seconds.
      '--endpoint-reconciler-type=none',
      '--profiling=false',
      ...(await auditLogArgs(dir)),
      ...(options.extraApiServerArgs ?? []),
    ];
    const startApiServerProcess = async (): Promise<void> => {
      const started = startKubeProcess('kube-apiserver', binaries.kubeApiServer, apiServerArgs);
      apiServer = started;
      await waitUntilReady(started, readyTimeoutMs, async () => {
        const { status } = await get(`${server}/readyz`, { ca: keys.caCertPem, token: adminToken });
        return status === 200;
      });
    };
    await startApiServerProcess();

    const kubeconfig = ({ token, namespace }: { token: string; namespace?: string }): string =>
      JSON.stringify(
        {
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [
            { name: 'test', cluster: { server, 'certificate-authority-data': Buffer.from(keys.caCertPem).toString('base64') } },
          ],
          users: [{ name: 'test', user: { token } }],
          contexts: [{ name: 'test', context: { cluster: 'test', user: 'test', ...(namespace ? { namespace } : {}) } }],
          'current-context': 'test',
        },
        null,
        2,
      ) + '\n';
    const writeKubeconfig = (path: string, opts: { token: string; namespace?: string }): Promise<void> =>
      writeFile(path, kubeconfig(opts), { mode: 0o600 });
    const adminKubeconfigPath = dir.file('admin.kubeconfig');
    await writeKubeconfig(adminKubeconfigPath, { token: adminToken });

    const kubectl = (args: readonly string[], opts: KubectlOptions = {}): Promise<KubectlResult> =>
      runKubectl(binaries.kubectl, dir, [`--kubeconfig=${opts.kubeconfig ?? adminKubeconfigPath}`, ...args], opts.input);
    const kubectlOk = async (args: readonly string[], opts: KubectlOptions = {}): Promise<string> => {
      const result = await kubectl(args, opts);
      if (result.code !== 0) {
        throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
      }
      return result.stdout;
    };

    return {
      server,
      adminToken,
      caCertPem: keys.caCertPem,
      adminKubeconfigPath,
      get pids() {
        return {
          etcd: etcd && !etcd.hasExited ? etcd.pid : undefined,
          apiServer: apiServer && !apiServer.hasExited ? apiServer.pid : undefined,
        };
      },
      kubeconfig,
      writeKubeconfig,
      kubectl,
      kubectlOk,
      async serviceAccountToken(namespace, name, expirationSeconds) {
        const duration = expirationSeconds === undefined ? [] : [`--duration=${expirationSeconds}s`];
        const token = (await kubectlOk(['create', 'token', name, '--namespace', namespace, ...duration])).trim();
        if (!token) throw new Error(`kubectl create token ${namespace}/${name} printed no token`);
        return token;
      },
      async stopApiServer() {
        await apiServer?.stop();
      },
      async startApiServer() {
        if (stopping) throw new Error('the cluster has been stopped');
        if (apiServer && !apiServer.hasExited) throw new Error('the API server is already running');
        await startApiServerProcess();
      },
      logs: () => describeLogs([etcd, apiServer]),
      stop,
    };
  } catch (error) {
    const logs = describeLogs([etcd, apiServer]);
    await stop().catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not start the test Kubernetes cluster: ${message}\n${logs}`, { cause: error });
  }
}

/** Polls `isReady` until it returns true; fails early, with the process's log, if the process exits. */
async function waitUntilReady(child: KubeProcess, timeoutMs: number, isReady: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'not ready yet';
  for (;;) {
    if (child.hasExited) {
      const exit = await child.exited;
      throw new Error(`${child.name} exited (${describeExit(exit)}) before it was ready`);
    }
    try {
      if (await isReady()) return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) {
      throw new Error(`${child.name} was not ready within ${timeoutMs} ms (last: ${lastError})`);
    }
    await Promise.race([sleep(200), child.exited]);
  }
}

function describeLogs(processes: ReadonlyArray<KubeProcess | undefined>): string {
  return processes
    .filter((child): child is KubeProcess => child !== undefined)
    .map((child) => `--- last lines of ${child.name} (pid ${child.pid}) ---\n${tail(child.logs(), 60)}`)
    .join('\n');
}

function tail(text: string, lines: number): string {
  return text.split('\n').slice(-lines).join('\n');
}

/** Ports the OS considers free right now (bound to port 0, then released) for processes that need a number. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server));
      }),
    ),
  );
  // Hold all of them until each has a port, so the same port is not handed out twice.
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}

/** One GET with a short timeout; `ca` turns on TLS verification against that CA. */
function get(url: string, options: { ca?: string; token?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const callback = (res: import('node:http').IncomingMessage): void => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    };
    const req = url.startsWith('https:')
      ? httpsRequest(url, { headers, timeout: 5_000, ...(options.ca ? { ca: options.ca } : {}) }, callback)
      : httpRequest(url, { headers, timeout: 5_000 }, callback);
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function runKubectl(kubectl: string, dir: TempDir, args: readonly string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Keep kubectl's discovery cache out of $HOME and away from other tests' clusters.
      KUBECACHEDIR: dir.file('kube-cache'),
    };
    delete env['KUBECONFIG'];
    const child = spawn(kubectl, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    child.stdin.on('error', () => undefined); // kubectl may exit before reading all input
    child.stdin.end(input ?? '');
  });
}

/** Env var naming a directory: every API server started then writes the audit log of the controller's account there. */
export const KUBE_AUDIT_LOG_DIR = 'KUBE_AUDIT_LOG_DIR';
/** The account deploy/ gives the controller (test/fixtures/controller-identity.ts). */
export const CONTROLLER_USER = 'system:serviceaccount:envoy-ingress:envoy-ingress';

/**
 * With $KUBE_AUDIT_LOG_DIR: flags logging every request of the controller's ServiceAccount (Metadata level: verb,
 * resource, URI; no bodies) as JSON lines into a file of its own in that directory (test/rbac-proof.test.ts).
 */
async function auditLogArgs(dir: TempDir): Promise<string[]> {
  const target = process.env[KUBE_AUDIT_LOG_DIR];
  if (!target) return [];
  const policy = {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived', 'ResponseStarted'],
    rules: [{ level: 'Metadata', users: [CONTROLLER_USER] }, { level: 'None' }],
  };
  await writeFile(dir.file('audit-policy.json'), JSON.stringify(policy));
  return [
    `--audit-policy-file=${dir.file('audit-policy.json')}`,
    `--audit-log-path=${target}/audit-${process.pid}-${randomBytes(4).toString('hex')}.log`,
    '--audit-log-format=json',
    '--audit-log-mode=blocking',
  ];
}
