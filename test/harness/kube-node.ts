/**
 * A real single-node Kubernetes cluster for tests: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, containerd (with runc and the CNI bridge plugin), the kubelet and kube-proxy (nftables mode),
 * all from the pinned builds of scripts/kube/ensure-node.sh, with images imported from OCI archives
 * (scripts/kube/build-images.sh) since no registry is reachable. Pods get addresses in POD_CIDR on a bridge the
 * harness makes; the node's address sits on another bridge it makes; nothing is routed off the machine.
 *
 * Two facts of these sandboxes shape the configuration (../shared notes, real-node.md): there is no
 * CAP_SYS_RESOURCE, so containerd must not lower oom_score_adj (`restrict_oom_score_adj`), and the hierarchy is
 * cgroup v1, which kubelet 1.36 refuses unless `failCgroupV1: false`.
 *
 * One node per machine (kube-node-lock.ts). stop() removes everything it made and reports what it could not.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { createNodeKeyMaterial } from './kube-node-certs.js';
import { findKubeNodeBinaries, type KubeNodeBinaries } from './kube-node-available.js';
import { cleanUpHost, writeHostRecord } from './kube-node-cleanup.js';
import { readHostState, readSysctls, type HostState } from './kube-node-host-state.js';
import * as layout from './kube-node-layout.js';
import { acquireNodeLock, type NodeLock } from './kube-node-lock.js';
import { describeExit, startKubeProcess, type KubeProcess } from './kube-process.js';
import { sleep } from './wait.js';

export interface KubeNodeOptions {
  binaries?: KubeNodeBinaries;
  /** OCI image archives to import before the kubelet starts (the pause image among them). */
  imageArchives?: readonly string[];
  /** Audit-log the requests of these users (Metadata level, JSON lines) into this file. */
  audit?: { path: string; users: readonly string[] };
  /** How long to wait for the lock held by another test process's node (default 20 min). */
  lockTimeoutMs?: number;
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubeNode {
  readonly server: string;
  readonly adminToken: string;
  readonly caCertPem: string;
  readonly adminKubeconfigPath: string;
  readonly binaries: KubeNodeBinaries;
  /** The host as it was before the node started (after cleaning up a killed run). */
  readonly hostBefore: HostState;
  /** Milliseconds from the call of startKubeNode to the Node being Ready (images imported). */
  readonly readyAfterMs: number;
  /** A kubeconfig (JSON) for this cluster with `token`. */
  kubeconfig(options: { token: string; namespace?: string }): string;
  kubectl(args: readonly string[], options?: { input?: string; kubeconfig?: string }): Promise<CommandResult>;
  kubectlOk(args: readonly string[], options?: { input?: string; kubeconfig?: string }): Promise<string>;
  serviceAccountToken(namespace: string, name: string, expirationSeconds?: number): Promise<string>;
  /** `ctr -n k8s.io ARGS` against the node's containerd. */
  ctr(args: readonly string[]): Promise<string>;
  /** Imports OCI image archives into containerd's k8s.io namespace (what the kubelet sees). */
  importImages(archives: readonly string[]): Promise<void>;
  /** Stops the kubelet (SIGTERM) and starts it again; resolves once the Node is Ready again. */
  restartKubelet(): Promise<void>;
  /** Names of the pods' veths seen on the pod bridge so far (read now and remembered). */
  podLinks(): Promise<string[]>;
  /** Last log lines of every component. */
  logs(): string;
  /** Tears everything down; resolves with what could not be removed (empty when clean). Idempotent. */
  stop(): Promise<string[]>;
}

const ADMIN_USER = 'envoy-ingress-test-admin';

export async function startKubeNode(options: KubeNodeOptions = {}): Promise<KubeNode> {
  const startedAt = Date.now();
  const binaries = options.binaries ?? (await findKubeNodeBinaries());
  const lock: NodeLock = await acquireNodeLock(options.lockTimeoutMs ?? 20 * 60_000);
  const processes = new Map<string, KubeProcess>();
  const seenLinks = new Set<string>();
  let stopping: Promise<string[]> | undefined;
  let hostBefore: HostState | undefined;

  const d = (name: string): string => join(layout.NODE_DATA_DIR, name);
  const tokens = {
    admin: randomBytes(24).toString('hex'),
    kubelet: randomBytes(24).toString('hex'),
    controllerManager: randomBytes(24).toString('hex'),
    scheduler: randomBytes(24).toString('hex'),
    proxy: randomBytes(24).toString('hex'),
  };
  const server = `https://${layout.NODE_ADDRESS}:${layout.API_SERVER_PORT}`;
  let caCertPem = '';
  const kubeconfig = ({ token, namespace }: { token: string; namespace?: string }): string =>
    JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'node', cluster: { server, 'certificate-authority-data': Buffer.from(caCertPem).toString('base64') } }],
        users: [{ name: 'node', user: { token } }],
        contexts: [{ name: 'node', context: { cluster: 'node', user: 'node', ...(namespace ? { namespace } : {}) } }],
        'current-context': 'node',
      },
      null,
      2,
    ) + '\n';
  const adminKubeconfigPath = d('admin.kubeconfig');

  const kubectl = (args: readonly string[], opts: { input?: string; kubeconfig?: string } = {}): Promise<CommandResult> =>
    runCommand(binaries.kubectl, [`--kubeconfig=${opts.kubeconfig ?? adminKubeconfigPath}`, ...args], {
      input: opts.input,
      env: { KUBECACHEDIR: d('kube-cache') },
    });
  const kubectlOk = async (args: readonly string[], opts: { input?: string; kubeconfig?: string } = {}): Promise<string> => {
    const result = await kubectl(args, opts);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
    return result.stdout;
  };
  const ctr = async (args: readonly string[]): Promise<string> => {
    const result = await runCommand(binaries.ctr, ['--address', layout.CONTAINERD_SOCKET, '--namespace', 'k8s.io', ...args]);
    if (result.code !== 0) throw new Error(`ctr ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
    return result.stdout;
  };
  const podLinks = async (): Promise<string[]> => {
    const result = await runCommand('ip', ['-o', 'link', 'show', 'master', layout.POD_BRIDGE]);
    for (const line of result.stdout.split('\n')) {
      const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
      if (name) seenLinks.add(name);
    }
    return [...seenLinks].sort();
  };
  const start = (name: string, command: string, args: readonly string[], env?: NodeJS.ProcessEnv): KubeProcess => {
    const child = startKubeProcess(name, command, args, env ?? layout.systemEnv());
    processes.set(name, child);
    return child;
  };
  const logs = (): string =>
    [...processes.values()].map((child) => `--- last lines of ${child.name} (pid ${child.pid}) ---\n${tail(child.logs(), 40)}`).join('\n');

  const stop = (): Promise<string[]> => {
    stopping ??= (async () => {
      const problems: string[] = [];
      try {
        await podLinks().catch(() => undefined);
        if (processes.get('kube-apiserver') && processes.get('kubelet') && !processes.get('kubelet')?.hasExited) {
          await drainWorkloads(kubectl, ctr).catch((error: unknown) => problems.push(`draining pods: ${String(error)}`));
        }
        for (const name of ['kube-proxy', 'kubelet', 'kube-scheduler', 'kube-controller-manager']) await processes.get(name)?.stop(10_000);
        if (processes.get('containerd') && !processes.get('containerd')?.hasExited) await removeAllContainers(ctr).catch(() => undefined);
        await processes.get('containerd')?.stop(10_000);
        await processes.get('kube-apiserver')?.stop(10_000);
        await processes.get('etcd')?.stop(10_000);
        problems.push(...(await cleanUpHost()));
      } finally {
        await lock.release();
      }
      return problems;
    })();
    return stopping;
  };

  try {
    // Whatever a killed run left goes first, then the host is read as it is without a node.
    const stale = await cleanUpHost();
    if (stale.length) throw new Error(`could not clean up what an earlier node left:\n${stale.join('\n')}`);
    hostBefore = await readHostState();
    mkdirSync(layout.NODE_DATA_DIR, { recursive: true });
    mkdirSync(layout.NODE_RUN_DIR, { recursive: true });
    writeHostRecord({
      createdPaths: layout.FIXED_HOST_PATHS.filter((p) => !existsSync(p)),
      tablesBefore: hostBefore.nftTables,
      sysctls: readSysctls(),
    });
    for (const sub of ['certs', 'etcd', 'kubelet', 'cni/net.d', 'cni/ipam', 'pod-logs', 'volume-plugins', 'containerd', 'kube-cache']) {
      mkdirSync(d(sub), { recursive: true });
    }

    await setUpNetwork();
    const keys = await createNodeKeyMaterial({
      nodeName: layout.NODE_NAME,
      nodeAddress: layout.NODE_ADDRESS,
      kubernetesServiceIp: layout.KUBERNETES_SERVICE_IP,
    });
    caCertPem = keys.ca.certPem;
    const secret = { mode: 0o600 } as const;
    await Promise.all([
      writeFile(d('certs/ca.crt'), keys.ca.certPem),
      writeFile(d('certs/ca.key'), keys.ca.keyPem, secret),
      writeFile(d('certs/apiserver.crt'), keys.apiServerServing.certPem),
      writeFile(d('certs/apiserver.key'), keys.apiServerServing.keyPem, secret),
      writeFile(d('certs/apiserver-kubelet-client.crt'), keys.apiServerKubeletClient.certPem),
      writeFile(d('certs/apiserver-kubelet-client.key'), keys.apiServerKubeletClient.keyPem, secret),
      writeFile(d('certs/kubelet.crt'), keys.kubeletServing.certPem),
      writeFile(d('certs/kubelet.key'), keys.kubeletServing.keyPem, secret),
      writeFile(d('certs/sa.key'), keys.serviceAccountKeyPem, secret),
      writeFile(d('certs/sa.pub'), keys.serviceAccountPublicKeyPem),
      // token,user,uid,"groups": each component authenticates with its own static token.
      writeFile(
        d('certs/tokens.csv'),
        [
          `${tokens.admin},${ADMIN_USER},${ADMIN_USER},system:masters`,
          `${tokens.kubelet},system:node:${layout.NODE_NAME},kubelet,system:nodes`,
          `${tokens.controllerManager},system:kube-controller-manager,kube-controller-manager`,
          `${tokens.scheduler},system:kube-scheduler,kube-scheduler`,
          `${tokens.proxy},system:kube-proxy,kube-proxy`,
        ].join('\n') + '\n',
        secret,
      ),
      writeFile(adminKubeconfigPath, kubeconfig({ token: tokens.admin }), secret),
      writeFile(d('kubelet.kubeconfig'), kubeconfig({ token: tokens.kubelet }), secret),
      writeFile(d('controller-manager.kubeconfig'), kubeconfig({ token: tokens.controllerManager }), secret),
      writeFile(d('scheduler.kubeconfig'), kubeconfig({ token: tokens.scheduler }), secret),
      writeFile(d('proxy.kubeconfig'), kubeconfig({ token: tokens.proxy }), secret),
    ]);

    // etcd and containerd do not depend on each other: start both, then the API server.
    const etcdUrl = 'http://127.0.0.1:2379';
    const etcd = start('etcd', binaries.etcd, [
      '--name=node',
      `--data-dir=${d('etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      '--listen-peer-urls=http://127.0.0.1:2380',
      '--initial-advertise-peer-urls=http://127.0.0.1:2380',
      '--initial-cluster=node=http://127.0.0.1:2380',
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await writeFile(d('containerd.toml'), containerdConfig(binaries));
    await writeFile(d('cni/net.d/10-envoy-ingress-node.conflist'), cniConfig());
    const containerd = start('containerd', binaries.containerd, ['--config', d('containerd.toml'), '--log-level', 'warn'], {
      ...process.env,
      // containerd finds its shim on PATH.
      PATH: `${join(binaries.containerdShim, '..')}:${layout.SYSTEM_PATH}`,
    });
    await waitUntil(etcd, 60_000, async () => (await httpGet(`${etcdUrl}/health`)).body.includes('"health":"true"'));

    const apiServer = start('kube-apiserver', binaries.kubeApiServer, [
      `--etcd-servers=${etcdUrl}`,
      `--bind-address=${layout.NODE_ADDRESS}`,
      `--advertise-address=${layout.NODE_ADDRESS}`,
      `--secure-port=${layout.API_SERVER_PORT}`,
      `--cert-dir=${d('certs')}`,
      `--tls-cert-file=${d('certs/apiserver.crt')}`,
      `--tls-private-key-file=${d('certs/apiserver.key')}`,
      `--client-ca-file=${d('certs/ca.crt')}`,
      `--kubelet-client-certificate=${d('certs/apiserver-kubelet-client.crt')}`,
      `--kubelet-client-key=${d('certs/apiserver-kubelet-client.key')}`,
      // logs, exec, port-forward dial the node's address, not its name (no DNS for it here).
      '--kubelet-preferred-address-types=InternalIP',
      `--service-account-issuer=https://kubernetes.default.svc.cluster.local`,
      `--service-account-key-file=${d('certs/sa.pub')}`,
      `--service-account-signing-key-file=${d('certs/sa.key')}`,
      `--token-auth-file=${d('certs/tokens.csv')}`,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      '--allow-privileged=true',
      `--service-cluster-ip-range=${layout.SERVICE_CIDR}`,
      '--profiling=false',
      ...(options.audit ? await auditArgs(options.audit, d('audit-policy.json')) : []),
    ]);
    const kubeGet = (path: string): Promise<number> => getStatus(`${server}${path}`, caCertPem, tokens.admin);
    await waitUntil(apiServer, 120_000, async () => (await kubeGet('/readyz')) === 200);

    start('kube-controller-manager', binaries.kubeControllerManager, [
      `--kubeconfig=${d('controller-manager.kubeconfig')}`,
      `--authentication-kubeconfig=${d('controller-manager.kubeconfig')}`,
      `--authorization-kubeconfig=${d('controller-manager.kubeconfig')}`,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      '--use-service-account-credentials',
      `--service-account-private-key-file=${d('certs/sa.key')}`,
      `--root-ca-file=${d('certs/ca.crt')}`,
      `--cluster-signing-cert-file=${d('certs/ca.crt')}`,
      `--cluster-signing-key-file=${d('certs/ca.key')}`,
      `--service-cluster-ip-range=${layout.SERVICE_CIDR}`,
      // Node lifecycle: a kubelet restart must not get the pods evicted.
      '--node-monitor-grace-period=60s',
      '--profiling=false',
    ]);
    start('kube-scheduler', binaries.kubeScheduler, [
      `--kubeconfig=${d('scheduler.kubeconfig')}`,
      `--authentication-kubeconfig=${d('scheduler.kubeconfig')}`,
      `--authorization-kubeconfig=${d('scheduler.kubeconfig')}`,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      '--profiling=false',
    ]);

    await waitUntil(containerd, 60_000, async () => (await runCommand(binaries.ctr, ['--address', layout.CONTAINERD_SOCKET, 'version'])).code === 0);
    if (options.imageArchives?.length) await importImagesInto(ctr, options.imageArchives);

    await writeFile(d('kubelet.yaml'), kubeletConfig());
    await writeFile(d('kube-proxy.yaml'), kubeProxyConfig());
    const kubeletArgs = [
      `--config=${d('kubelet.yaml')}`,
      `--kubeconfig=${d('kubelet.kubeconfig')}`,
      `--root-dir=${d('kubelet')}`,
      `--cert-dir=${d('kubelet/pki')}`,
      `--node-ip=${layout.NODE_ADDRESS}`,
      `--hostname-override=${layout.NODE_NAME}`,
      '--v=1',
    ];
    const startKubelet = (): KubeProcess => start('kubelet', binaries.kubelet, kubeletArgs);
    const kubelet = startKubelet();
    start('kube-proxy', binaries.kubeProxy, [`--config=${d('kube-proxy.yaml')}`, '--v=1']);

    const nodeReady = async (): Promise<boolean> => {
      const result = await kubectl(['get', 'node', layout.NODE_NAME, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
      return result.code === 0 && result.stdout.trim() === 'True';
    };
    await waitUntil(kubelet, 120_000, nodeReady);
    // Pods need the `default` ServiceAccount, which the controller-manager creates a few seconds in.
    await waitUntil(apiServer, 60_000, async () => (await kubectl(['get', 'serviceaccount', 'default', '-n', 'default'])).code === 0);
    const readyAfterMs = Date.now() - startedAt;

    return {
      server,
      adminToken: tokens.admin,
      caCertPem,
      adminKubeconfigPath,
      binaries,
      hostBefore,
      readyAfterMs,
      kubeconfig,
      kubectl,
      kubectlOk,
      async serviceAccountToken(namespace, name, expirationSeconds) {
        const duration = expirationSeconds === undefined ? [] : [`--duration=${expirationSeconds}s`];
        return (await kubectlOk(['create', 'token', name, '-n', namespace, ...duration])).trim();
      },
      ctr,
      importImages: (archives) => importImagesInto(ctr, archives),
      async restartKubelet() {
        await processes.get('kubelet')?.stop(10_000);
        const restarted = startKubelet();
        // The Node stays Ready in the API for a grace period after the kubelet stops; wait for a heartbeat from
        // the new process: its healthz.
        await waitUntil(restarted, 60_000, async () => (await httpGet('http://127.0.0.1:10248/healthz')).body.trim() === 'ok');
        await waitUntil(restarted, 60_000, nodeReady);
      },
      podLinks,
      logs,
      stop,
    };
  } catch (error) {
    const text = logs();
    const problems = await stop().catch((e: unknown) => [String(e)]);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not start the test node: ${message}\n${text}${problems.length ? `\nteardown problems:\n${problems.join('\n')}` : ''}`, {
      cause: error,
    });
  }
}

/** The node's bridge and address, the Service range routed to it, forwarding on. */
async function setUpNetwork(): Promise<void> {
  const ip = async (...args: string[]): Promise<void> => {
    const result = await runCommand('ip', args);
    if (result.code !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr.trim()}`);
  };
  await ip('link', 'add', layout.NODE_BRIDGE, 'type', 'bridge');
  await ip('addr', 'add', `${layout.NODE_ADDRESS}/24`, 'dev', layout.NODE_BRIDGE);
  await ip('link', 'set', layout.NODE_BRIDGE, 'up');
  await ip('route', 'add', layout.SERVICE_CIDR, 'dev', layout.NODE_BRIDGE);
  await writeFile('/proc/sys/net/ipv4/ip_forward', '1');
}

function containerdConfig(binaries: KubeNodeBinaries): string {
  const d = layout.NODE_DATA_DIR;
  return `version = 3
root = "${d}/containerd"
state = "${layout.NODE_RUN_DIR}/containerd"
# NRI and the /opt installer would use fixed host paths; the node needs neither.
disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.internal.v1.opt"]

[grpc]
  address = "${layout.CONTAINERD_SOCKET}"

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
[plugins."io.containerd.cri.v1.images".pinned_images]
  sandbox = "docker.io/envoy-ingress/pause:test"

[plugins."io.containerd.cri.v1.runtime"]
  # No CAP_SYS_RESOURCE here: lowering oom_score_adj fails, and with it every pod sandbox.
  restrict_oom_score_adj = true
  enable_cdi = false
  # Pods' network namespaces under containerd's state dir, not /run/netns: \`ip netns add\` (other tests) bind-mounts
  # /run/netns onto itself, which stacks a second copy of every netns mount there, and containerd's unlink then
  # fails with EBUSY: the pod never finishes terminating.
  netns_mounts_under_state_dir = true
[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "runc"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
  BinaryName = "${binaries.runc}"
  Root = "${layout.NODE_RUN_DIR}/runc"
  SystemdCgroup = false
[plugins."io.containerd.cri.v1.runtime".cni]
  bin_dirs = ["${binaries.cniBinDir}"]
  conf_dir = "${d}/cni/net.d"
  max_conf_num = 1

[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
`;
}

/** Bridge networking: pods reach each other, the node and Services, and nothing else (no default route, no masquerade). */
function cniConfig(): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'envoy-ingress-node',
      plugins: [
        {
          type: 'bridge',
          bridge: layout.POD_BRIDGE,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: join(layout.NODE_DATA_DIR, 'cni/ipam'),
            ranges: [[{ subnet: layout.POD_CIDR, gateway: layout.POD_GATEWAY }]],
            routes: [
              { dst: layout.SERVICE_CIDR, gw: layout.POD_GATEWAY },
              { dst: layout.NODE_SUBNET, gw: layout.POD_GATEWAY },
            ],
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

function kubeletConfig(): string {
  const d = layout.NODE_DATA_DIR;
  return JSON.stringify(
    {
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      // This machine's hierarchy is cgroup v1: kubelet 1.36 refuses it by default.
      failCgroupV1: false,
      cgroupDriver: 'cgroupfs',
      failSwapOn: false,
      containerRuntimeEndpoint: `unix://${layout.CONTAINERD_SOCKET}`,
      imageServiceEndpoint: `unix://${layout.CONTAINERD_SOCKET}`,
      address: layout.NODE_ADDRESS,
      port: 10250,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort: 10248,
      tlsCertFile: join(d, 'certs/kubelet.crt'),
      tlsPrivateKeyFile: join(d, 'certs/kubelet.key'),
      authentication: { anonymous: { enabled: false }, webhook: { enabled: false }, x509: { clientCAFile: join(d, 'certs/ca.crt') } },
      // Only the API server (system:masters client certificate) can connect at all.
      authorization: { mode: 'AlwaysAllow' },
      podLogsDir: join(d, 'pod-logs'),
      volumePluginDir: join(d, 'volume-plugins'),
      // The imported images cannot be pulled again: never garbage-collect them.
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
      serializeImagePulls: false,
      protectKernelDefaults: false,
      // No resolver for pods: a lookup fails inside the pod instead of going to the machine's resolver.
      resolvConf: '',
      nodeStatusUpdateFrequency: '4s',
      syncFrequency: '10s',
      fileCheckFrequency: '5s',
    },
    null,
    2,
  );
}

function kubeProxyConfig(): string {
  return JSON.stringify(
    {
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      // Its rules live in tables of its own, which makes teardown exact.
      mode: 'nftables',
      clientConnection: { kubeconfig: join(layout.NODE_DATA_DIR, 'proxy.kubeconfig') },
      hostnameOverride: layout.NODE_NAME,
      clusterCIDR: layout.POD_CIDR,
      // NodePorts on the node's own address only, not on the machine's other interfaces.
      nodePortAddresses: [`${layout.NODE_ADDRESS}/32`],
      healthzBindAddress: '127.0.0.1:10256',
      metricsBindAddress: '127.0.0.1:10249',
      // Leave the host's conntrack sysctls alone.
      conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s', udpTimeout: '0s', udpStreamTimeout: '0s' },
      oomScoreAdj: 0,
    },
    null,
    2,
  );
}

async function auditArgs(audit: { path: string; users: readonly string[] }, policyPath: string): Promise<string[]> {
  const policy = {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived', 'ResponseStarted'],
    rules: [{ level: 'Metadata', users: audit.users }, { level: 'None' }],
  };
  await writeFile(policyPath, JSON.stringify(policy));
  return [`--audit-policy-file=${policyPath}`, `--audit-log-path=${audit.path}`, '--audit-log-format=json', '--audit-log-mode=blocking'];
}

async function importImagesInto(ctr: (args: readonly string[]) => Promise<string>, archives: readonly string[]): Promise<void> {
  for (const archive of archives) await ctr(['images', 'import', '--platform', 'linux/amd64', archive]);
}

/**
 * Deletes every workload and pod (grace period 1 s: preStop hooks and long grace periods would make teardown
 * wait a minute), then waits until containerd runs no container: the kubelet has stopped each pod's sandbox, so
 * the CNI plugin has released its address and veth.
 */
async function drainWorkloads(
  kubectl: (args: readonly string[]) => Promise<CommandResult>,
  ctr: (args: readonly string[]) => Promise<string>,
): Promise<void> {
  await kubectl(['delete', 'deployments,daemonsets,statefulsets,replicasets,jobs', '--all', '--all-namespaces', '--wait=false']);
  await kubectl(['delete', 'pods', '--all', '--all-namespaces', '--grace-period=1', '--wait=false']);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const pods = await kubectl(['get', 'pods', '--all-namespaces', '-o', 'name']);
    const tasks = await ctr(['tasks', 'list', '--quiet']).catch(() => 'unknown');
    if (pods.code === 0 && pods.stdout.trim() === '' && tasks.trim() === '') return;
    await sleep(500);
  }
  throw new Error('pods or containers still there 60 s after deleting them');
}

/** Whatever the kubelet did not stop: killed and removed while containerd still runs. */
async function removeAllContainers(ctr: (args: readonly string[]) => Promise<string>): Promise<void> {
  for (const id of (await ctr(['tasks', 'list', '--quiet'])).split('\n').filter(Boolean)) {
    await ctr(['tasks', 'kill', '--signal', 'SIGKILL', id]).catch(() => undefined);
    await ctr(['tasks', 'delete', '--force', id]).catch(() => undefined);
  }
  for (const id of (await ctr(['containers', 'list', '--quiet'])).split('\n').filter(Boolean)) {
    await ctr(['containers', 'delete', id]).catch(() => undefined);
  }
}

/** Polls `ready` until true; fails at once, with the process's last lines, if the process exits. */
async function waitUntil(child: KubeProcess, timeoutMs: number, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not ready yet';
  for (;;) {
    if (child.hasExited) throw new Error(`${child.name} exited (${describeExit(await child.exited)}):\n${tail(child.logs(), 40)}`);
    try {
      if (await ready()) return;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) throw new Error(`${child.name} not ready within ${timeoutMs} ms (last: ${last})`);
    await Promise.race([sleep(250), child.exited]);
  }
}

function getStatus(url: string, ca: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, headers: { authorization: `Bearer ${token}` }, timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

export function runCommand(
  command: string,
  args: readonly string[],
  options: { input?: string | undefined; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...layout.systemEnv(), ...options.env };
    delete env['KUBECONFIG'];
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 127, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

function tail(text: string, lines: number): string {
  return text.split('\n').slice(-lines).join('\n');
}
