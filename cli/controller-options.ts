// Options shared by the commands that translate (run, render, validate), with their defaults.
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { defaultEdgeHardening, escapedSlashesActions, type EdgeHardeningOptions, type EscapedSlashesAction } from '../envoy/edge-hardening.js';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import { defaultTranslateOptions, type TranslateOptions } from '../controller/translate/shared/options.js';
import { parsePort } from './address.js';
import { parseAddressPool } from './gateway-address-flags.js';
import { defaultNamespaceRouteBudget } from '../controller/translate/shared/options.js';

export interface TranslationFlags {
  ingressClass: string;
  controllerName: string;
  notFoundPage?: string;
  httpsRedirectPort: string;
  listenAddress: string;
  httpPort: string;
  httpsPort: string;
  normalizePath: boolean;
  mergeSlashes: boolean;
  escapedSlashesAction: EscapedSlashesAction;
  allowHeadersWithUnderscores?: boolean;
  useRemoteAddress: boolean;
  xffNumTrustedHops: string;
  maxRequestHeadersKb: string;
  maxHeadersCount: string;
  idleTimeout: string;
  requestHeadersTimeout: string;
  perConnectionBufferLimitBytes: string;
  http2MaxConcurrentStreams: string;
  http2InitialStreamWindowSize: string;
  http2InitialConnectionWindowSize: string;
  allowExternalName?: boolean;
  allowCrossNamespaceHosts?: boolean;
  defaultBackendNamespace?: string;
  namespaceRouteBudget?: string;
  nginxAnnotations?: boolean;
  /** NAMESPACE/NAME of the ingress-nginx ConfigMap. */
  nginxConfigmap?: string;
  nginxAllowCrossNamespaceResources?: boolean;
  allowUrlTarget?: string[];
  /** 'true' or 'false' (`--access-log=false`). */
  accessLog?: string;
  /** 'true' or 'false' (`--access-log-query=false`). */
  accessLogQuery?: string;
  /** Standalone: IPs (and IPv4 CIDRs) Gateways bind, one each. */
  gatewayAddressPool?: string;
}

/** `NAMESPACE/NAME`; throws a message naming the flag. */
export function parseNamespacedName(value: string, flag: string): { namespace: string; name: string } {
  const [namespace, name, extra] = value.split('/');
  if (!namespace || !name || extra !== undefined) throw new Error(`${flag} must be NAMESPACE/NAME, got ${JSON.stringify(value)}`);
  return { namespace, name };
}

/** A whole number within [min, max]; throws a message naming the flag. */
export function parseCount(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new Error(`${flag} must be a whole number ${min}-${max}, got ${JSON.stringify(value)}`);
  return n;
}

function addEdgeHardeningFlags(cmd: Command): Command {
  const d = defaultEdgeHardening;
  return cmd
    .option('--no-normalize-path', 'do not normalise paths (/a/../b) before routing')
    .option('--no-merge-slashes', 'do not merge repeated slashes (//b) before routing')
    .addOption(
      new Option('--escaped-slashes-action <action>', 'what Envoy does with %2F and %5C in paths')
        .choices([...escapedSlashesActions])
        .default(d.escapedSlashesAction),
    )
    .option('--allow-headers-with-underscores', 'accept request headers whose name contains "_" (default: 400)')
    .option('--no-use-remote-address', 'trust X-Forwarded-For from clients instead of using the peer address')
    .option('--xff-num-trusted-hops <n>', 'proxies in front of Envoy whose X-Forwarded-For entries are trusted', String(d.xffNumTrustedHops))
    .option('--max-request-headers-kb <kb>', 'request headers larger than this get 431', String(d.maxRequestHeadersKb))
    .option('--max-headers-count <n>', 'requests with more headers than this get 431', String(d.maxHeadersCount))
    .option('--idle-timeout <seconds>', 'close client connections idle this long', String(d.idleTimeoutSeconds))
    .option('--request-headers-timeout <seconds>', 'time a client has to send its request headers', String(d.requestHeadersTimeoutSeconds))
    .option(
      '--per-connection-buffer-limit-bytes <bytes>',
      'bytes Envoy buffers per client or backend connection before it stops reading (0: Envoy\'s default, 1 MiB)',
      String(d.perConnectionBufferLimitBytes),
    )
    .option('--http2-max-concurrent-streams <n>', 'HTTP/2 streams a client connection may have open at once', String(d.http2MaxConcurrentStreams))
    .option('--http2-initial-stream-window-size <bytes>', 'HTTP/2 flow-control window per client stream', String(d.http2InitialStreamWindowSize))
    .option('--http2-initial-connection-window-size <bytes>', 'HTTP/2 flow-control window per client connection', String(d.http2InitialConnectionWindowSize));
}

export function edgeHardeningOptions(flags: TranslationFlags): EdgeHardeningOptions {
  return {
    normalizePath: flags.normalizePath,
    mergeSlashes: flags.mergeSlashes,
    escapedSlashesAction: flags.escapedSlashesAction,
    rejectHeadersWithUnderscores: flags.allowHeadersWithUnderscores !== true,
    useRemoteAddress: flags.useRemoteAddress,
    xffNumTrustedHops: parseCount(flags.xffNumTrustedHops, '--xff-num-trusted-hops', 0, 64),
    // Envoy's own bounds: max_request_headers_kb 1-8192, max_headers_count >= 1.
    maxRequestHeadersKb: parseCount(flags.maxRequestHeadersKb, '--max-request-headers-kb', 1, 8192),
    maxHeadersCount: parseCount(flags.maxHeadersCount, '--max-headers-count', 1, 100_000),
    idleTimeoutSeconds: parseCount(flags.idleTimeout, '--idle-timeout', 1, 86_400 * 7),
    requestHeadersTimeoutSeconds: parseCount(flags.requestHeadersTimeout, '--request-headers-timeout', 1, 3600),
    perConnectionBufferLimitBytes: parseCount(flags.perConnectionBufferLimitBytes, '--per-connection-buffer-limit-bytes', 0, 2 ** 31),
    // Envoy's bounds (HTTP/2 protocol options).
    http2MaxConcurrentStreams: parseCount(flags.http2MaxConcurrentStreams, '--http2-max-concurrent-streams', 1, 2 ** 31 - 1),
    http2InitialStreamWindowSize: parseCount(flags.http2InitialStreamWindowSize, '--http2-initial-stream-window-size', 65_535, 2 ** 31 - 1),
    http2InitialConnectionWindowSize: parseCount(flags.http2InitialConnectionWindowSize, '--http2-initial-connection-window-size', 65_535, 2 ** 31 - 1),
  };
}

export function addTranslationFlags(cmd: Command): Command {
  return addEdgeHardeningFlags(cmd)
    .option('--ingress-class <name>', 'IngressClass name this controller serves', defaultTranslateOptions.ingressClassName)
    .option('--controller-name <name>', 'IngressClass spec.controller value that marks our classes', defaultTranslateOptions.controllerName)
    .option('--not-found-page <file>', 'HTML file returned with 404 when nothing matches')
    .option('--allow-external-name', 'serve ExternalName Service backends (never loopback or link-local targets)')
    .option(
      '--allow-cross-namespace-hosts',
      "merge every namespace's rules, TLS entries and host-wide annotations into a host (ingress-nginx's behaviour, for single-tenant clusters); off: the namespace of the oldest Ingress routing a host owns it",
    )
    .option('--default-backend-namespace <namespace>', 'the namespace whose rule-less Ingresses may give the default backend of every host (a tenant default backend answers only its namespace\'s hosts); default: the controller\'s own namespace (POD_NAMESPACE) when set', process.env['POD_NAMESPACE'])
    .option('--namespace-route-budget <paths>', `paths the Ingresses of one namespace may have, and again the routes its HTTPRoutes, GRPCRoutes, TLSRoutes and TCPRoutes write; past it the newest are not served (default: ${defaultNamespaceRouteBudget})`)
    .option('--nginx-annotations', 'also honour ingress-nginx annotations (nginx.ingress.kubernetes.io/*); ours win where both are set')
    .option(
      '--nginx-configmap <namespace/name>',
      "the ingress-nginx ConfigMap whose settings apply to the Ingresses of the nginx layer (watched in Kubernetes mode; a ConfigMap in the manifest directory in standalone mode)",
    )
    .option('--nginx-allow-cross-namespace-resources', 'let ingress-nginx annotations name Secrets and Services of other namespaces (auth-secret: ns/name; auth-url, mirror-target: name.ns.svc); off: refused (auth paths answer 503, mirrors are not sent)')
    .option(
      '--allow-url-target <host>',
      'a host auth-url and mirror-target may name beyond the Ingress\'s own namespace\'s Services (auth.example.com, *.example.com, oauth2-proxy.auth.svc); repeat for more',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--https-redirect-port <port>', 'port in http->https redirects', String(defaultTranslateOptions.httpsRedirectPort))
    .option('--listen-address <ip>', 'address Envoy listeners bind', '0.0.0.0')
    .option(
      '--gateway-address-pool <ips>',
      'standalone mode: comma-separated IPs and IPv4 CIDRs; each Gateway binds its listener ports on one of them (spec.addresses may pick one); without it Gateways bind on --listen-address and share ports',
    )
    .option('--http-port <port>', 'Envoy HTTP listener port', '8080')
    .option('--https-port <port>', 'Envoy HTTPS listener port', '8443')
    .addOption(new Option('--access-log <enabled>', 'Envoy writes one JSON access log line per request to its stdout').choices(['true', 'false']).default('true'))
    .addOption(
      new Option('--access-log-query <enabled>', 'the access log\'s path includes the query string (false: tokens in URLs stay out of the logs)')
        .choices(['true', 'false'])
        .default('true'),
    );
}

export function translationOptions(flags: TranslationFlags): { translate: TranslateOptions; envoy: EnvoyOptions } {
  return {
    translate: {
      ingressClassName: flags.ingressClass,
      controllerName: flags.controllerName,
      notFoundPage: flags.notFoundPage ? readFileSync(flags.notFoundPage, 'utf8') : defaultTranslateOptions.notFoundPage,
      httpsRedirectPort: parsePort(flags.httpsRedirectPort, '--https-redirect-port'),
      ...(flags.allowExternalName === true ? { allowExternalName: true } : {}),
      ...(flags.allowCrossNamespaceHosts === true ? { allowCrossNamespaceHosts: true } : {}),
      ...(flags.defaultBackendNamespace !== undefined ? { defaultBackendNamespace: flags.defaultBackendNamespace } : {}),
      ...(flags.namespaceRouteBudget !== undefined ? { namespaceRouteBudget: parseRouteBudget(flags.namespaceRouteBudget) } : {}),
      ...(flags.nginxAnnotations === true ? { nginxAnnotations: true } : {}),
      ...(flags.nginxConfigmap !== undefined ? { nginxConfigMap: parseNamespacedName(flags.nginxConfigmap, '--nginx-configmap') } : {}),
      ...(flags.nginxAllowCrossNamespaceResources === true ? { nginxAllowCrossNamespaceResources: true } : {}),
      ...(flags.allowUrlTarget !== undefined ? { allowedUrlTargets: [...flags.allowUrlTarget] } : {}),
      ...(flags.gatewayAddressPool !== undefined ? { gatewayAddressing: { mode: 'pool' as const, pool: parseAddressPool(flags.gatewayAddressPool) } } : {}),
    },
    envoy: {
      listenAddress: flags.listenAddress,
      httpPort: parsePort(flags.httpPort, '--http-port'),
      httpsPort: parsePort(flags.httpsPort, '--https-port'),
      edge: edgeHardeningOptions(flags),
      // Absent means on (the builders' default).
      ...(flags.accessLog === 'false' ? { accessLog: false } : {}),
      ...(flags.accessLogQuery === 'false' ? { accessLogQuery: false } : {}),
    },
  };
}

function parseRouteBudget(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--namespace-route-budget: ${JSON.stringify(value)} is not a whole number of paths >= 1`);
  return n;
}
