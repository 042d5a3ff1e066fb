/**
 * Where the real node lives on the host: its directories, interfaces, addresses and ports. All fixed, because
 * some of what a node touches is fixed anyway (ports 10250/10248/10257/10259, /var/lib/kubelet/device-plugins,
 * /run/containerd/s for the shims' sockets): only one node runs per machine at a time (kube-node-lock.ts), and fixed names let the next start
 * clean up after a run that was killed before its teardown.
 */

export const NODE_NAME = 'envoy-ingress-node';
/** Everything the node writes: etcd data, certificates, containerd's content, the kubelet's root, logs. */
export const NODE_DATA_DIR = '/var/lib/envoy-ingress-node';
/** Sockets and runtime state (containerd state, runc's root). Short: a socket path has at most 107 bytes. */
export const NODE_RUN_DIR = '/run/envoy-ingress-node';
export const CONTAINERD_SOCKET = `${NODE_RUN_DIR}/containerd.sock`;

/**
 * The node's own address, on an otherwise empty bridge the harness makes (the kubelet refuses a loopback node IP
 * and there is no dummy link driver here). Outside 10.250.0.0/16, which the test hosts of netns-host.ts use.
 */
export const NODE_BRIDGE = 'eikubenode0';
export const NODE_ADDRESS = '10.251.0.1';
export const NODE_SUBNET = '10.251.0.0/24';
/** The CNI bridge the bridge plugin creates, with the pod range; its first address is the pods' gateway. */
export const POD_BRIDGE = 'eikubecni0';
export const POD_CIDR = '10.244.0.0/24';
export const POD_GATEWAY = '10.244.0.1';
/** Routed to NODE_BRIDGE, so a packet that no kube-proxy rule catches ends there rather than leaving the machine. */
export const SERVICE_CIDR = '10.96.0.0/24';
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
export const API_SERVER_PORT = 6443;

/** Paths outside NODE_DATA_DIR/NODE_RUN_DIR that the node creates; removed at teardown when they were not there before. */
export const FIXED_HOST_PATHS = ['/var/lib/kubelet', '/var/lib/cni', '/run/containerd', '/var/run/nri', '/opt/containerd', '/var/log/pods', '/var/log/containers', '/etc/cni'] as const;

/** Host sysctls the node changes (the kubelet's kernel defaults, forwarding, conntrack): snapshotted and restored. */
export const NODE_SYSCTLS = [
  'net/ipv4/ip_forward',
  'net/ipv4/conf/all/route_localnet',
  'net/bridge/bridge-nf-call-iptables',
  'net/bridge/bridge-nf-call-ip6tables',
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
  'net/netfilter/nf_conntrack_max',
  'net/netfilter/nf_conntrack_tcp_timeout_established',
  'net/netfilter/nf_conntrack_tcp_timeout_close_wait',
] as const;

/**
 * PATH without npm's node_modules directories. `npm test` puts node_modules/.bin first, and a package there ships a
 * command named `nft` (@vercel/nft): kube-proxy's nftables calls ran it, changed nothing and reported success, so no
 * Service was routed. The node's components and the harness's own netfilter and mount calls use the system's tools.
 */
export const SYSTEM_PATH = (process.env['PATH'] ?? '')
  .split(':')
  .filter((dir) => dir !== '' && !dir.split('/').includes('node_modules'))
  .join(':');

/** The test process's environment with SYSTEM_PATH. */
export function systemEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: SYSTEM_PATH };
}
