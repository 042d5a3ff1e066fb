// Ingresses -> Gateway API objects that this controller serves the same way, and a report of every path where
// they cannot: a GatewayClass, a Gateway per IngressClass (an HTTP listener, an HTTPS listener per TLS host with its
// certificateRef, ReferenceGrants for Secrets of other namespaces), an HTTPRoute per Ingress and host with one rule
// per Ingress path (each path keeps its own backend), the nginx annotations the Gateway API can say as filters and
// rules, and an https redirect route on the HTTP listener where the Ingress redirects. Pure: objects in, objects
// and report out. The Ingresses to convert are the ones `run` serves with the same class options.
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import {
  type ClusterState,
  type ConfigMap,
  type Gateway,
  type GatewayClass,
  type GatewayListener,
  type GRPCRoute,
  type GRPCRouteRule,
  type HTTPBackendRef,
  type HTTPHeaderMatch,
  type HTTPIngressPath,
  type HTTPRoute,
  type HTTPRouteFilter,
  type HTTPRouteMatch,
  type HTTPRouteRule,
  type Ingress,
  type IngressBackend,
  type ListenerSet,
  type ObjectRef,
  type ParentReference,
  type ReferenceGrant,
  type Secret,
  type Service,
  type TLSRoute,
  type BackendTLSPolicy,
  type RoutePolicy,
  refOf,
} from '../shared/kube-objects.js';
import { compareByAge } from '../shared/ordering.js';
import { defaultGatewayControllerName, type TranslateOptions } from '../shared/options.js';
import { parseHost } from '../shared/hostname.js';
import { Annotation } from '../ingress/annotations.js';
import { ingressClassOf, isServedByUs, legacyIngressClassAnnotation, type ClassOptions } from '../ingress/ingress-class.js';
import { nginxAnnotationsEnabled } from '../ingress/ingress-class-nginx.js';
import { ruleHost } from '../ingress/ingress-rules.js';
import { collectTlsHosts } from '../ingress/tls-hosts.js';
import { isNginxCanary, readNginxCanary, type NginxCanaryConfig } from '../ingress/nginx/nginx-canary.js';
import { cookieHeaderMatch } from '../ingress/nginx/nginx-canary-values.js';
import { defaultNginxHttpRedirectCode } from '../ingress/nginx/nginx-redirect.js';
import { configMapReport } from '../ingress/nginx/nginx-configmap-report.js';
import { nginxRegexPaths } from '../ingress/nginx/nginx-regex-hosts.js';
import { regexMatchesPath } from '../ingress/path-match-regex.js';
import { ConversionDifferences as D, type ConversionDifference } from './conversion-differences.js';
import { uncarriedOwnAnnotations } from './own-annotations.js';
import type { GatewayMigrationReport, ReportedDifference, ReportedIngress, ReportedPath } from './gateway-migration-report.js';
import { nginxRequestHeaders, readNginx, uncarriedNginxAnnotations, type NginxReading } from './nginx-conversion.js';
import { convertPath } from './path-conversion.js';
import { parseSslPassthrough, sslPassthroughAnnotation } from '../ingress/nginx/nginx-passthrough.js';
import { mirrorFilter } from './mirror-conversion.js';
import { corsConversion } from './cors-conversion.js';
import { listenerSetPlan, type ListenerSetPlan } from './listener-set-conversion.js';
import { backendTlsPolicies } from './backend-tls-conversion.js';
import { routePolicyConversion } from './route-policy-conversion.js';
import { grpcBackendProtocols, grpcMatches, nonGrpcFilters } from './grpc-conversion.js';

export interface MigrateOptions {
  /** The GatewayClass written (spec.controllerName: ours). */
  gatewayClassName: string;
  /** Where the Gateways (one per IngressClass) are written. */
  gatewayNamespace: string;
  httpPort: number;
  httpsPort: number;
  /** The port https redirects name (clients reach the HTTPS listeners on it); absent: httpsPort. */
  httpsRedirectPort?: number;
  /** The ingress-nginx ConfigMap the Ingresses are served with (run's --nginx-configmap), and what it holds. */
  nginxConfigMap?: { ref: { namespace: string; name: string }; configMap: ConfigMap | undefined };
  /** Which Ingresses are ours, and whether their nginx annotations are read: as `run` is given them. */
  classes: ClassOptions & Pick<TranslateOptions, 'nginxAnnotations' | 'gatewayControllerName' | 'defaultBackendNamespace' | 'allowCrossNamespaceHosts'>;
  /** TLS hosts' HTTPS listeners in ListenerSets of their certificates' namespaces, not on the Gateway (listener-set-conversion.ts). */
  listenerSets?: boolean;
}

export const defaultMigrateOptions: Omit<MigrateOptions, 'classes'> = {
  gatewayClassName: 'envoy-ingress',
  gatewayNamespace: 'default',
  httpPort: 80,
  httpsPort: 443,
};

export type GatewayApiObject = GatewayClass | Gateway | ListenerSet | HTTPRoute | GRPCRoute | TLSRoute | ReferenceGrant | BackendTLSPolicy | RoutePolicy;

export interface MigrationResult {
  /** GatewayClass, Gateways, ListenerSets, ReferenceGrants, BackendTLSPolicies, then HTTPRoutes, GRPCRoutes and TLSRoutes. */
  objects: GatewayApiObject[];
  /** The Ingresses the objects replace (every other object is kept as it is). */
  converted: ObjectRef[];
  report: GatewayMigrationReport;
}

const gatewayApiVersion = 'gateway.networking.k8s.io/v1';
const routePolicyApiVersion = 'gateway.envoy-ingress.io/v1alpha1';

const httpListenerName = 'http';
/** The Gateway API CRDs' limits: rules per HTTPRoute, listeners per Gateway. */
const maxRulesPerRoute = 16;
const maxListenersPerGateway = 64;
const defaultHttpsListenerName = 'https';

/** A DNS-label-safe name part for a host. */
function hostSlug(host: string): string {
  return host === '*' ? 'any-host' : host.replace(/^\*\./, 'wildcard.').replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
}

function truncateName(name: string): string {
  return name.length <= 253 ? name : name.slice(0, 253).replace(/[-.]+$/, '');
}

function diff(d: ConversionDifference, extra?: string): ReportedDifference {
  return { id: d.id, message: extra === undefined ? d.message : `${d.message} (${extra})`, action: d.action };
}

/** An ssl-passthrough host as the nginx layer serves it (nginx-passthrough.ts): the oldest Ingress naming the host asked. */
interface PassthroughHost {
  ingress: Ingress;
  /** Its `/` path, else its first: every TLS connection of the host goes to that path's backend. */
  path: HTTPIngressPath;
}

/** The ssl-passthrough hosts, by host, as collectSslPassthrough picks them (oldest Ingress naming a host decides). */
function passthroughHosts(served: readonly Ingress[], nginxOn: (ingress: Ingress) => boolean): Map<string, PassthroughHost> {
  const owners = new Map<string, Ingress>();
  for (const ingress of served) {
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, () => undefined);
      if (host !== undefined && host !== '*' && !owners.has(host)) owners.set(host, ingress);
    });
  }
  const result = new Map<string, PassthroughHost>();
  for (const ingress of served) {
    const value = ingress.metadata.annotations?.[sslPassthroughAnnotation];
    if (value === undefined || !nginxOn(ingress) || parseSslPassthrough(value) !== true) continue;
    const byHost = new Map<string, HTTPIngressPath[]>();
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, () => undefined);
      if (host === undefined || host === '*' || owners.get(host) !== ingress) return;
      byHost.set(host, [...(byHost.get(host) ?? []), ...(rule.http?.paths ?? [])]);
    });
    for (const [host, paths] of byHost) {
      const path = paths.find((p) => (p.path === undefined || p.path === '' ? '/' : p.path) === '/') ?? paths[0];
      if (path?.backend.service !== undefined) result.set(host, { ingress, path });
    }
  }
  return result;
}

interface ClassGateway {
  className: string;
  gateway: Gateway;
  /** Host -> its HTTP listener, for a class without the catch-all HTTP listener. */
  httpListeners: Map<string, string>;
  /** TLS host -> its HTTPS listener's name. */
  httpsListeners: Map<string, string>;
  /** ssl-passthrough host -> its TLS (Passthrough) listener's name. */
  passthroughListeners: Map<string, string>;
  /** The listener of a TLS entry without hosts (the default certificate), if any. */
  defaultHttps?: string;
  /** Secret namespace -> Secret names the Gateway refers to there (for ReferenceGrants). */
  secretsByNamespace: Map<string, Set<string>>;
  /** With --listener-sets: where the TLS hosts' HTTPS listeners are instead. */
  listenerSets?: ListenerSetPlan;
}

function className(ingress: Ingress, options: MigrateOptions, ingressClasses: ClusterState['ingressClasses']): string {
  return ingressClassOf(ingress, ingressClasses, options.classes)?.metadata.name ?? ingress.metadata.annotations?.[legacyIngressClassAnnotation] ?? options.classes.ingressClassName;
}

/**
 * One Gateway per IngressClass. The first class gets a catch-all HTTP listener; further classes get an HTTP
 * listener per host (listeners of several Gateways on one port may not claim the same hostname). An HTTPS listener
 * per TLS host whose Secret the Ingress translator would serve (collectTlsHosts: same namespace, valid, oldest
 * Ingress first), and one without hostname for a TLS entry without hosts (the default certificate).
 */
function classGateway(name: string, ingresses: readonly Ingress[], secrets: readonly Secret[], options: MigrateOptions, first: boolean, passthrough: ReadonlyMap<string, PassthroughHost>): ClassGateway {
  const listeners: GatewayListener[] = [];
  const httpListeners = new Map<string, string>();
  if (first) listeners.push({ name: httpListenerName, port: options.httpPort, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } });
  else {
    for (const ingress of ingresses) {
      (ingress.spec?.rules ?? []).forEach((rule, i) => {
        const host = ruleHost(rule, i, () => undefined);
        if (host === undefined || host === '*' || httpListeners.has(host)) return;
        const listenerName = truncateName(`http-${hostSlug(host)}`);
        httpListeners.set(host, listenerName);
        listeners.push({ name: listenerName, hostname: host, port: options.httpPort, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } });
      });
    }
  }
  const httpsListeners = new Map<string, string>();
  const secretsByNamespace = new Map<string, Set<string>>();
  const sets = options.listenerSets === true ? listenerSetPlan({ name, namespace: options.gatewayNamespace }, options.classes.allowCrossNamespaceHosts === true, truncateName) : undefined;
  const tlsListener = (listenerName: string, hostname: string | undefined, secretResource: string): void => {
    const [secretNamespace = 'default', secretName = ''] = secretResource.split('/', 2);
    if (sets !== undefined && hostname !== undefined) {
      // The set's own namespace: its certificateRef needs no namespace and no ReferenceGrant.
      sets.add(secretNamespace, hostname, { name: listenerName, hostname, port: options.httpsPort, protocol: 'HTTPS', tls: { mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: secretName }] } } as GatewayListener);
      return;
    }
    const ref = { group: '', kind: 'Secret', name: secretName, ...(secretNamespace === options.gatewayNamespace ? {} : { namespace: secretNamespace }) };
    listeners.push({
      name: listenerName,
      ...(hostname === undefined ? {} : { hostname }),
      port: options.httpsPort,
      protocol: 'HTTPS',
      tls: { mode: 'Terminate', certificateRefs: [ref] },
      allowedRoutes: { namespaces: { from: 'All' } },
    } as GatewayListener);
    if (secretNamespace !== options.gatewayNamespace) {
      const names = secretsByNamespace.get(secretNamespace) ?? new Set<string>();
      names.add(secretName);
      secretsByNamespace.set(secretNamespace, names);
    }
  };
  const tls = collectTlsHosts(ingresses, secrets, []);
  let defaultHttps: string | undefined;
  if (tls.defaultCertificate !== undefined) {
    defaultHttps = defaultHttpsListenerName;
    tlsListener(defaultHttps, undefined, tls.defaultCertificate.secret.name);
  }
  // ssl-passthrough hosts: a TLS listener in Passthrough mode each (no terminating listener may claim them, as on the
  // Ingress side, where Envoy picks the passthrough filter chain by SNI).
  const passthroughListeners = new Map<string, string>();
  for (const [host, entry] of passthrough) {
    if (!ingresses.includes(entry.ingress)) continue;
    const listenerName = truncateName(`tls-passthrough-${hostSlug(host)}`);
    passthroughListeners.set(host, listenerName);
    listeners.push({ name: listenerName, hostname: host, port: options.httpsPort, protocol: 'TLS', tls: { mode: 'Passthrough' }, allowedRoutes: { namespaces: { from: 'All' } } } as GatewayListener);
  }
  for (const [host, entry] of tls.hosts) {
    if (passthroughListeners.has(host)) continue;
    const listenerName = truncateName(`https-${hostSlug(host)}`);
    httpsListeners.set(host, listenerName);
    tlsListener(listenerName, host, entry.secret.name);
  }
  const gateway: Gateway = {
    apiVersion: gatewayApiVersion,
    kind: 'Gateway',
    metadata: { name, namespace: options.gatewayNamespace },
    spec: { gatewayClassName: options.gatewayClassName, listeners, ...(sets === undefined || sets.sets().length === 0 ? {} : { allowedListeners: { namespaces: { from: 'All' as const } } }) },
  };
  return { className: name, gateway, httpListeners, httpsListeners, passthroughListeners, ...(defaultHttps === undefined ? {} : { defaultHttps }), secretsByNamespace, ...(sets === undefined ? {} : { listenerSets: sets }) };
}

/**
 * Where a route without hostnames (rules without a host, the cluster-wide default backend) attaches: the listeners
 * without hostname only. Attached to the whole Gateway it would join every host's listener and, as old as that
 * host's own route, could win its requests; an Ingress's host-less rules never serve a host another rule names.
 */
function catchAllParents(gw: ClassGateway, gatewayRef: ParentReference): ParentReference[] {
  const listeners = (gw.gateway.spec?.listeners ?? []).filter((l) => l.hostname === undefined);
  return listeners.map((l) => ({ ...gatewayRef, sectionName: l.name }));
}

function referenceGrants(gateway: ClassGateway, options: MigrateOptions): ReferenceGrant[] {
  return [...gateway.secretsByNamespace].sort(([a], [b]) => (a < b ? -1 : 1)).map(([namespace, names]) => ({
    apiVersion: 'gateway.networking.k8s.io/v1beta1',
    kind: 'ReferenceGrant',
    metadata: { name: truncateName(`gateway-${gateway.className}-certificates`), namespace },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: options.gatewayNamespace }],
      to: [...names].sort().map((name) => ({ group: '', kind: 'Secret', name })),
    },
  }));
}

/** The backendRef of an Ingress backend, or why there is none. */
function backendRef(backend: IngressBackend | undefined, namespace: string, services: ReadonlyMap<string, Service>): { ref?: HTTPBackendRef; problem?: ReportedDifference } {
  const service = backend?.service;
  if (service === undefined) return { problem: diff(D.resourceBackend) };
  const found = services.get(`${namespace}/${service.name}`);
  let port = service.port?.number;
  if (port === undefined && service.port?.name !== undefined) port = found?.spec?.ports?.find((p) => p.name === service.port?.name)?.port;
  if (found?.spec?.type === 'ExternalName') {
    return { ref: { name: service.name, port: port ?? 1 }, problem: diff(D.externalNameBackend, `${namespace}/${service.name}`) };
  }
  if (found === undefined || port === undefined || !(found.spec?.ports ?? []).some((p) => p.port === port)) {
    // Kept as written (port 0 is not valid: the ref stays unresolved, answered 500 by the Gateway).
    return { ref: { name: service.name, port: port ?? 1 }, problem: diff(D.missingBackend, `${namespace}/${service.name}`) };
  }
  return { ref: { name: service.name, port } };
}

interface PathEntry {
  ingress: Ingress;
  host: string;
  path: HTTPIngressPath;
  match?: HTTPRouteMatch;
  regex: boolean;
  reported: ReportedPath;
}

/** The redirect of permanent-redirect / temporal-redirect as a RequestRedirect filter, or why it cannot be one. */
function urlRedirectFilter(reading: NginxReading): { filter?: HTTPRouteFilter; differences: ReportedDifference[] } {
  const action = reading.mapping.redirects?.redirect;
  if (action === undefined) return { differences: [] };
  const differences = [diff(D.redirectKeepsQuery)];
  if (action.kind === 'redirect') {
    const path = action.path?.kind === 'replace' ? action.path.path : undefined;
    if (action.query?.kind === 'replace') differences.push({ id: 'permanent-redirect', message: 'the redirect URL\'s query has no RequestRedirect field: the Location carries the request\'s query instead', action: 'redirect to a URL without a query' });
    return {
      filter: { type: 'RequestRedirect', requestRedirect: { statusCode: action.statusCode, ...(path === undefined ? {} : { path: { type: 'ReplaceFullPath', replaceFullPath: path } }) } },
      differences,
    };
  }
  if (action.kind !== 'direct') return { differences };
  const location = action.headers?.find((h) => h.name === 'location')?.value;
  const code = action.status;
  if (location === undefined || ![301, 302, 303, 307, 308].includes(code)) {
    return { differences: [{ id: 'permanent-redirect', message: `a ${code} answer with the URL as its body has no Gateway API equivalent; the path is forwarded to its backend instead`, action: 'use a 301, 302, 303, 307 or 308 code' }] };
  }
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return { differences: [{ id: 'relative-redirects', message: 'a relative Location has no Gateway API equivalent (RequestRedirect writes an absolute one); the path is forwarded to its backend instead', action: 'redirect to an absolute URL' }] };
  }
  if (url.search !== '') differences.push({ id: 'permanent-redirect', message: 'the redirect URL\'s query has no RequestRedirect field: the Location carries the request\'s query instead', action: 'redirect to a URL without a query' });
  const scheme = url.protocol.replace(/:$/, '');
  return {
    filter: {
      type: 'RequestRedirect',
      requestRedirect: {
        ...(scheme === 'http' || scheme === 'https' ? { scheme } : {}),
        hostname: url.hostname,
        ...(url.port === '' ? {} : { port: Number(url.port) }),
        path: { type: 'ReplaceFullPath', replaceFullPath: url.pathname === '' ? '/' : url.pathname },
        statusCode: code,
      },
    },
    differences,
  };
}

/** rewrite-target `/$2` on a path `PREFIX(/|$)(.*)`: exactly a prefix replacement with "/". */
function prefixCaptureRewrite(path: string | undefined, target: string): string | undefined {
  if (target !== '/$2' || path === undefined) return undefined;
  const m = /^(\/[A-Za-z0-9\-._~/]*?)\/?\(\/\|\$\)\(\.\*\)$/.exec(path);
  return m === null ? undefined : m[1] === '' ? '/' : m[1];
}

/** Prefix /foo and /foo/ on one host: the Ingress gives /foo/ every request under /foo, the Gateway API the older route. */
function markPrefixTrailingSlash(entries: readonly PathEntry[]): void {
  const byKey = new Map<string, PathEntry[]>();
  for (const e of entries) {
    if (e.match?.path?.type !== 'PathPrefix') continue;
    const key = `${e.host}\n${e.match.path.value}`;
    byKey.set(key, [...(byKey.get(key) ?? []), e]);
  }
  for (const list of byKey.values()) {
    if (new Set(list.map((e) => e.path.path ?? '/')).size < 2) continue;
    for (const e of list) e.reported.differences.push(diff(D.prefixTrailingSlash));
  }
}

/** ReferenceGrants letting HTTPRoutes of a namespace use another namespace's default backend Service. */
function serviceReferenceGrants(grants: ReadonlySet<string>): ReferenceGrant[] {
  const byPair = new Map<string, { to: string; from: string; names: Set<string> }>();
  for (const key of [...grants].sort()) {
    const [to = '', from = '', name = ''] = key.split('\n');
    const pair = byPair.get(`${to}\n${from}`) ?? { to, from, names: new Set<string>() };
    pair.names.add(name);
    byPair.set(`${to}\n${from}`, pair);
  }
  return [...byPair.values()].map(({ to, from, names }) => ({
    apiVersion: 'gateway.networking.k8s.io/v1beta1',
    kind: 'ReferenceGrant',
    metadata: { name: truncateName(`httproutes-of-${from}-default-backend`), namespace: to },
    spec: { from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: from }], to: [...names].sort().map((name) => ({ group: '', kind: 'Service', name })) },
  }));
}

interface CanaryPath {
  ingress: Ingress;
  namespace: string;
  config: NginxCanaryConfig;
  path: HTTPIngressPath;
  /** The HTTPRoute (namespace/name) whose rule it joined, and that rule's index. */
  attachedTo?: string;
  rule?: number;
}

/** A canary joins the main path of the same host, path and pathType as written (nginx-canary.ts). */
function canaryKey(host: string, path: HTTPIngressPath): string {
  return `${host}\n${path.path === undefined || path.path === '' ? '/' : path.path}\n${path.pathType ?? 'ImplementationSpecific'}`;
}

function dedupe(differences: readonly ReportedDifference[]): ReportedDifference[] {
  const seen = new Set<string>();
  return differences.filter((d) => {
    const key = `${d.id}\n${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Where a host mixes regex and prefix paths: the Ingress tries the longer path first, the Gateway API every regex
 * before any prefix. A regex path that matches a longer prefix path of its host takes that path's requests now.
 */
function markRegexPrecedence(entries: readonly PathEntry[]): void {
  const byHost = new Map<string, PathEntry[]>();
  for (const e of entries) if (e.match !== undefined) byHost.set(e.host, [...(byHost.get(e.host) ?? []), e]);
  for (const list of byHost.values()) {
    const regexes = list.filter((e) => e.regex);
    const prefixes = list.filter((e) => e.match?.path?.type === 'PathPrefix');
    for (const r of regexes) {
      const regex = r.match?.path?.value ?? '';
      const length = (r.path.path ?? '/').length;
      for (const p of prefixes) {
        const value = p.match?.path?.value ?? '/';
        if (value.length < length || !regexMatchesPath({ kind: 'regex', path: r.path.path ?? '/', regex }, value)) continue;
        const extra = `${r.path.path ?? '/'} and ${value} on ${r.host}`;
        r.reported.differences.push(diff(D.regexPrecedence, extra));
        p.reported.differences.push(diff(D.regexPrecedence, extra));
      }
    }
  }
}

/** The ConfigMap keys the nginx layer honours: none of them reaches a Gateway API route. */
function configMapSettings(options: MigrateOptions): ReportedDifference | undefined {
  if (options.nginxConfigMap === undefined) return undefined;
  const { ref, configMap } = options.nginxConfigMap;
  const honoured = configMapReport(ref, configMap).keys.filter((k) => k.status === 'honoured').map((k) => k.key);
  if (honoured.length === 0) return undefined;
  return {
    id: 'nginx-configmap',
    message: `the ingress-nginx ConfigMap ${ref.namespace}/${ref.name} sets ${honoured.join(', ')} for the Ingresses read with the nginx layer; the Gateway API routes do not get these settings`,
    action: 'carry what matters through the listener options of the controller (flags) or the backends, or accept its loss',
  };
}

/** nginx's backend-protocol as written (upper-cased), or undefined. */
function backendProtocolOf(ingress: Ingress): string | undefined {
  return ingress.metadata.annotations?.[`nginx.ingress.kubernetes.io/backend-protocol`]?.trim().toUpperCase();
}

/** What backend-protocol does that no route carries: TLS to the backend (HTTPS, GRPCS), h2c without gRPC (H2C). */
function backendProtocolDifferences(ingress: Ingress, reading: NginxReading): ReportedDifference[] {
  if (reading.mapping.own[Annotation.backendProtocol] === undefined) return [];
  const protocol = backendProtocolOf(ingress);
  // HTTPS, GRPCS: a BackendTLSPolicy where proxy-ssl-secret gives a CA (backend-tls-conversion.ts).
  if (protocol === 'H2C') return [{ id: 'backend-protocol', message: 'backend-protocol H2C: the HTTPRoute\'s backend is spoken to over HTTP/1.1', action: 'give the Service port appProtocol kubernetes.io/h2c' }];
  return [];
}

/** Converts the Ingresses `run` would serve with `options.classes`; `state` is read, never changed. */
export function migrateIngresses(state: Pick<ClusterState, 'ingresses' | 'ingressClasses' | 'services' | 'secrets'>, options: MigrateOptions): MigrationResult {
  const served = state.ingresses.filter((i) => isServedByUs(i, state.ingressClasses, options.classes)).sort(compareByAge);
  const nginxOn = (ingress: Ingress): boolean => nginxAnnotationsEnabled(ingress, state.ingressClasses, options.classes);
  const regexPaths = nginxRegexPaths(served, nginxOn);
  const services = new Map(state.services.map((s) => [`${namespaceOf(s.metadata)}/${s.metadata.name}`, s]));

  // Gateways, one per class, in the order their classes first appear among the Ingresses (oldest first).
  const byClass = new Map<string, Ingress[]>();
  for (const ingress of served) {
    const name = className(ingress, options, state.ingressClasses);
    byClass.set(name, [...(byClass.get(name) ?? []), ingress]);
  }
  // Every class of ours gets its Gateway, with or without Ingresses (the Ingress listeners answer 404 meanwhile too);
  // the flag's class name always counts as ours (the legacy annotation needs no IngressClass object).
  for (const c of [...state.ingressClasses].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    if (c.spec?.controller === options.classes.controllerName && !byClass.has(c.metadata.name)) byClass.set(c.metadata.name, []);
  }
  if (byClass.size === 0) byClass.set(options.classes.ingressClassName, []);
  const passthrough = passthroughHosts(served, nginxOn);
  const gateways = new Map([...byClass].map(([name, ingresses], i) => [name, classGateway(name, ingresses, state.secrets, options, i === 0, passthrough)]));

  // server-alias names the whole server (host) in ingress-nginx: every Ingress's paths of the host answer them.
  const aliasesByHost = new Map<string, string[]>();
  for (const ingress of served) {
    if (!nginxOn(ingress)) continue;
    const aliases = readNginx(ingress).mapping.serverNames?.aliases ?? [];
    if (aliases.length === 0) continue;
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, () => undefined);
      if (host === undefined || host === '*') return;
      aliasesByHost.set(host, [...new Set([...(aliasesByHost.get(host) ?? []), ...aliases])].filter((a) => a !== host));
    });
  }
  const configMapDifference = configMapSettings(options);
  const tooManyListeners = [...gateways.values()].filter((g) => (g.gateway.spec?.listeners ?? []).length > maxListenersPerGateway);
  // Default backends outside the nginx layer (default-backend.ts, tenant-default-backends.ts): the cluster-wide one
  // from --default-backend-namespace (any namespace with --allow-cross-namespace-hosts), else per namespace the
  // oldest Ingress with rules that sets one, for that namespace's hosts.
  const plain = served.filter((i) => !nginxOn(i) && i.spec?.defaultBackend !== undefined);
  const globalDefault = plain.find((i) => options.classes.allowCrossNamespaceHosts === true || namespaceOf(i.metadata) === options.classes.defaultBackendNamespace);
  const tenantDefaults = new Map<string, Ingress>();
  if (options.classes.allowCrossNamespaceHosts !== true) {
    for (const i of plain) if ((i.spec?.rules ?? []).length > 0 && !tenantDefaults.has(namespaceOf(i.metadata))) tenantDefaults.set(namespaceOf(i.metadata), i);
  }
  // Hosts where some Ingress has a "/" prefix path of its own: no default backend rule there.
  const rootPathHosts = new Set<string>();
  for (const ingress of served) {
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, () => undefined);
      if (host !== undefined && (rule.http?.paths ?? []).some((p) => (p.path ?? '/') === '/' && p.pathType !== 'Exact')) rootPathHosts.add(host);
    });
  }
  // Routes' backendRefs to another namespace's default backend Service: route namespace + Service.
  const serviceGrants = new Set<string>();
  // ingress-nginx canaries, by host and path as written (the oldest canary of a path; one per path).
  const canaries = new Map<string, CanaryPath>();
  for (const ingress of served) {
    if (!nginxOn(ingress) || !isNginxCanary(ingress)) continue;
    const config = readNginxCanary(ingress, []);
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, () => undefined);
      if (host === undefined) return;
      for (const path of rule.http?.paths ?? []) {
        const key = canaryKey(host, path);
        if (!canaries.has(key)) canaries.set(key, { ingress, namespace: namespaceOf(ingress.metadata), config, path });
      }
    });
  }
  const canaryIngresses: { ingress: Ingress; gateway: string; hosts: Map<string, HTTPIngressPath[]> }[] = [];
  const routes: (HTTPRoute | GRPCRoute | TLSRoute)[] = [];
  // By namespace/name: the oldest Ingress's policy for a Service port.
  const tlsPolicies = new Map<string, BackendTLSPolicy>();
  const routePolicies: RoutePolicy[] = [];
  const reports: ReportedIngress[] = [];
  const allEntries: PathEntry[] = [];
  for (const ingress of served) {
    const namespace = namespaceOf(ingress.metadata);
    const gw = gateways.get(className(ingress, options, state.ingressClasses)) as ClassGateway;
    const gatewayRef = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: gw.gateway.metadata.name, namespace: options.gatewayNamespace };
    const nginx = nginxOn(ingress);
    // The routes keep their Ingress's age: the Gateway API settles ties between routes by age, as Ingress does.
    const created = ingress.metadata.creationTimestamp;
    const stamp = created === undefined || new Date(created).getTime() === 0 ? {} : { creationTimestamp: created };
    const reading = nginx ? readNginx(ingress) : undefined;
    const ingressDifferences: ReportedDifference[] = uncarriedOwnAnnotations(ingress);
    const entries: PathEntry[] = [];

    // Hosts in rule order, each with its paths.
    const hosts = new Map<string, HTTPIngressPath[]>();
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, () => undefined);
      if (host === undefined) return;
      hosts.set(host, [...(hosts.get(host) ?? []), ...(rule.http?.paths ?? [])]);
    });

    if (reading !== undefined && isNginxCanary(ingress)) {
      // A canary's paths join the main Ingress's rules (below, where the main path is converted); reported after.
      canaryIngresses.push({ ingress, gateway: `${options.gatewayNamespace}/${gw.gateway.metadata.name}`, hosts });
      continue;
    }

    // What applies to every path of the Ingress.
    const filters: HTTPRouteFilter[] = [];
    let redirectFilter: HTTPRouteFilter | undefined;
    let appRoot: string | undefined;
    let captureTarget: string | undefined;
    let timeouts: HTTPRouteRule['timeouts'];
    // Source ranges, authentication and affinity: a RoutePolicy on the Ingress's HTTPRoutes and GRPCRoutes (written
    // once they are named).
    const policyConversion = reading === undefined ? undefined : routePolicyConversion(ingress, services, state.secrets);
    const routesBefore = routes.length;
    if (reading !== undefined) {
      ingressDifferences.push(...(policyConversion?.differences ?? []));
      ingressDifferences.push(...uncarriedNginxAnnotations(ingress, reading.diagnostics, policyConversion?.carried));
      const headers = nginxRequestHeaders(reading.mapping);
      if (headers.length > 0) filters.push({ type: 'RequestHeaderModifier', requestHeaderModifier: { set: headers } });
      const rewrite: HTTPRouteFilter['urlRewrite'] = {};
      if (reading.mapping.hostRewrite !== undefined) rewrite.hostname = reading.mapping.hostRewrite;
      if (reading.mapping.rewrite?.kind === 'regex') rewrite.path = { type: 'ReplaceFullPath', replaceFullPath: reading.mapping.rewrite.substitution };
      if (rewrite.hostname !== undefined || rewrite.path !== undefined) filters.push({ type: 'URLRewrite', urlRewrite: rewrite });
      const redirect = urlRedirectFilter(reading);
      redirectFilter = redirect.filter;
      ingressDifferences.push(...redirect.differences);
      const root = reading.mapping.regex?.appRoot;
      if (root !== undefined) {
        appRoot = root.path.path;
        if (root.query.kind === 'replace') ingressDifferences.push({ id: 'app-root', message: 'the app-root\'s query has no RequestRedirect field', action: 'use an app-root without a query' });
        // The app-root redirect names no port: the spec's Location then carries the listener's (see its message).
        if (options.httpPort !== 80) ingressDifferences.push(diff(D.appRootListenerPort));
      }
      captureTarget = reading.mapping.regex?.captureRewrite?.target;
      ingressDifferences.push(...backendProtocolDifferences(ingress, reading));
      const protocol = reading.mapping.own[Annotation.backendProtocol] === undefined ? undefined : backendProtocolOf(ingress);
      if (protocol === 'HTTPS' || protocol === 'GRPCS') {
        const backends = (ingress.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []).flatMap((p) => {
          const ref = backendRef(p.backend, namespace, services).ref;
          return ref === undefined ? [] : [{ service: ref.name, port: ref.port ?? 0 }];
        });
        const converted = backendTlsPolicies(ingress, protocol, backends, services, state.secrets);
        for (const policy of converted.policies) {
          const key = `${namespace}/${policy.metadata.name}`;
          const existing = tlsPolicies.get(key);
          if (existing === undefined) tlsPolicies.set(key, policy);
          else if (JSON.stringify(existing.spec) !== JSON.stringify(policy.spec)) {
            // One policy per Service port: an older Ingress's settings apply to this one's requests too.
            ingressDifferences.push({ id: 'backend-tls-policy', message: `the BackendTLSPolicy ${key} of an older Ingress (another CA or hostname) applies to this Ingress's backend too: a Service port has one policy`, action: 'give this Ingress\'s backend its own Service (or port), with its own BackendTLSPolicy' });
          }
        }
        ingressDifferences.push(...converted.differences);
      }
      // proxy-read-timeout / proxy-send-timeout (the larger, as the Ingress's idle timeout): a per-try bound.
      const idle = reading.mapping.own[Annotation.idleTimeout];
      if (idle !== undefined) {
        timeouts = { backendRequest: idle === '0' ? '0s' : idle };
        const seconds = idle === '0' ? 'no' : `a ${idle}`;
        ingressDifferences.push({
          id: 'proxy-read-timeout',
          message: `proxy-read-timeout / proxy-send-timeout become timeouts.backendRequest (${seconds} bound): it bounds each try's whole exchange with the backend, while nginx's (and the Ingress's) timeouts bound the time between two reads or writes; an answer that streams longer in total is cut now, a stalled one waits as before (GRPCRoute rules have no timeouts: none there)`,
          action: 'none for answers shorter than the timeout; for long streams or downloads raise backendRequest (or set it to 0s)',
        });
      }
      const mirror = mirrorFilter(ingress, services);
      if (mirror.filter !== undefined) filters.push(mirror.filter);
      ingressDifferences.push(...mirror.differences);
      const cors = corsConversion(ingress, reading.mapping.cors);
      filters.push(...cors.filters);
      ingressDifferences.push(...cors.differences);
      if (configMapDifference !== undefined) ingressDifferences.push(configMapDifference);
    }

    // https redirects: ours (301) or ingress-nginx's (308), per Ingress as the translator decides them.
    const annotations = { ...reading?.mapping.own, ...ingress.metadata.annotations };
    const sslRedirect = annotations[Annotation.sslRedirect] !== 'false';
    const forceSslRedirect = annotations[Annotation.forceSslRedirect] === 'true';
    const redirectCode = nginx ? defaultNginxHttpRedirectCode : 301;
    const preserveTrailingSlash = reading?.mapping.redirects?.preserveTrailingSlash === true;

    // backend-protocol GRPC / GRPCS: the paths a GRPCRoute method match can say become GRPCRoute rules.
    const grpcProtocol = reading !== undefined && reading.mapping.own[Annotation.backendProtocol] !== undefined ? backendProtocolOf(ingress) : undefined;
    const grpc = grpcProtocol !== undefined && grpcBackendProtocols.has(grpcProtocol);

    const hostNames = [...hosts.keys()];
    for (const [host, paths] of hosts) {
      const routeName = truncateName(hostNames.length === 1 ? ingress.metadata.name : `${ingress.metadata.name}-${hostSlug(host)}`);
      const httpsListener = gw.httpsListeners.get(host) ?? gw.defaultHttps;
      const tls = gw.httpsListeners.has(host);
      const redirectsHttp = (tls && sslRedirect) || forceSslRedirect;
      const hostDifferences: ReportedDifference[] = [];
      const passthroughListener = passthrough.get(host)?.ingress === ingress ? gw.passthroughListeners.get(host) : undefined;
      if (passthroughListener !== undefined) {
        // Every TLS connection of the host goes to one backend; plain HTTP keeps serving the rules (the HTTPRoute).
        const chosen = passthrough.get(host) as PassthroughHost;
        const { ref } = backendRef(chosen.path.backend, namespace, services);
        routes.push({
          apiVersion: gatewayApiVersion,
          kind: 'TLSRoute',
          metadata: { name: truncateName(`${routeName}-tls-passthrough`), namespace, ...stamp },
          spec: { parentRefs: [{ ...gatewayRef, sectionName: passthroughListener }], hostnames: [host], rules: [{ ...(ref === undefined ? {} : { backendRefs: [ref] }) }] },
        });
      }
      if (host.startsWith('*.')) hostDifferences.push(diff(D.wildcardHostDepth));
      if (tooManyListeners.includes(gw)) hostDifferences.push(diff(D.tooManyListeners));
      if (host === '*' && !(gw.gateway.spec?.listeners ?? []).some((l) => l.name === httpListenerName)) {
        hostDifferences.push(diff(D.hostConflict, 'rules without a host of a second IngressClass'));
      }
      if (nginx && (host === '*' || host.startsWith('*.'))) hostDifferences.push(diff(D.forwardedHost));
      if (forceSslRedirect && !tls && httpsListener === undefined) hostDifferences.push(diff(D.tlsRedirectNoCertificate));
      if (redirectsHttp && nginx && !preserveTrailingSlash) hostDifferences.push(diff(D.httpsRedirectTrailingSlash));
      // Several HTTPS listeners: each serves only its own hosts over its connections (421 for the others).
      if (httpsListener !== undefined && gw.httpsListeners.size + (gw.defaultHttps === undefined ? 0 : 1) > 1) hostDifferences.push(diff(D.misdirectedRequest));
      // --listener-sets: the set listeners covering the host (a Gateway parentRef reached them on the Gateway).
      const setParents = gw.listenerSets?.parentsFor(host, namespace) ?? { parents: [], foreign: [] };
      if (!redirectsHttp && host !== '*' && setParents.foreign.length > 0) hostDifferences.push(diff(D.listenerSetNamespace, setParents.foreign.map((r) => `ListenerSet ${r.namespace}/${r.name} listener ${r.sectionName}`).join(', ')));

      const rules: HTTPRouteRule[] = [];
      const grpcRules: GRPCRouteRule[] = [];
      const grpcRouteName = truncateName(`${routeName}-grpc`);
      const redirectRules: HTTPRouteRule[] = [];
      const hostFilters = [...filters];
      if (nginx && host !== '*' && !host.startsWith('*.')) {
        // ingress-nginx sends the client's Host as X-Forwarded-Host; for one exact host that is a fixed value.
        const existing = hostFilters.find((f) => f.type === 'RequestHeaderModifier');
        const set = [...(existing?.requestHeaderModifier?.set ?? []), { name: 'X-Forwarded-Host', value: host }];
        const others = hostFilters.filter((f) => f.type !== 'RequestHeaderModifier');
        hostFilters.splice(0, hostFilters.length, { type: 'RequestHeaderModifier', requestHeaderModifier: { set } }, ...others);
      }
      if (appRoot !== undefined) {
        rules.push({ matches: [{ path: { type: 'Exact', value: '/' } }], filters: [{ type: 'RequestRedirect', requestRedirect: { path: { type: 'ReplaceFullPath', replaceFullPath: appRoot }, statusCode: 302 } }] });
      }
      for (const path of paths) {
        const reported: ReportedPath = { host, path: path.path ?? '/', pathType: path.pathType ?? 'ImplementationSpecific', result: 'same', differences: [...ingressDifferences, ...hostDifferences] };
        if ((aliasesByHost.get(host) ?? []).length > 0) reported.aliases = aliasesByHost.get(host) ?? [];
        const converted = convertPath(path, nginx, regexPaths(ingress, host));
        if (!converted.valid) {
          reported.differences.push(diff(D.invalidPath, converted.error));
          entries.push({ ingress, host, path, regex: false, reported });
          continue;
        }
        const match: HTTPRouteMatch = { path: converted.match };
        let ruleFilters = [...hostFilters];
        if (captureTarget !== undefined) {
          const prefix = converted.regex ? prefixCaptureRewrite(path.path, captureTarget) : undefined;
          if (prefix !== undefined) {
            // PREFIX(/|$)(.*) -> /$2 is a prefix match with ReplacePrefixMatch "/" (case-insensitivity aside).
            match.path = { type: 'PathPrefix', value: prefix };
            ruleFilters.push({ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } });
            reported.differences.push({ id: 'rewrite-target', message: 'PREFIX(/|$)(.*) with rewrite-target /$2 becomes PathPrefix PREFIX with ReplacePrefixMatch "/": the same requests, except that the prefix is now matched case-sensitively and by whole path segments', action: 'none, unless clients send the prefix in another case' });
          } else reported.differences.push(diff(D.captureRewrite));
        }
        const rule: HTTPRouteRule = { matches: [match] };
        if (redirectFilter !== undefined) {
          rule.filters = [redirectFilter];
        } else {
          const { ref, problem } = backendRef(path.backend, namespace, services);
          if (problem !== undefined) reported.differences.push(problem);
          if (ref !== undefined) rule.backendRefs = [ref];
          if (ruleFilters.length > 0) rule.filters = ruleFilters;
          if (timeouts !== undefined) rule.timeouts = timeouts;
          if (grpc) {
            const methods = grpcMatches(path, nginx, regexPaths(ingress, host));
            const unfit = nonGrpcFilters(ruleFilters);
            const canaryHere = canaries.has(canaryKey(host, path));
            if ('matches' in methods && unfit.length === 0 && !canaryHere) {
              grpcRules.push({ ...(methods.matches.length === 0 ? {} : { matches: methods.matches }), ...(ruleFilters.length > 0 ? { filters: ruleFilters } : {}), ...(ref === undefined ? {} : { backendRefs: [ref] }) });
              reported.route = `${namespace}/${grpcRouteName}`;
              reported.rule = grpcRules.length - 1;
              if (redirectsHttp) {
                redirectRules.push({ matches: [{ path: converted.match }], filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', ...((options.httpsRedirectPort ?? options.httpsPort) === 443 ? {} : { port: options.httpsRedirectPort ?? options.httpsPort }), statusCode: redirectCode } }] });
              }
              entries.push({ ingress, host, path, match, regex: converted.regex, reported });
              continue;
            }
            const why =
              'problem' in methods
                ? methods.problem
                : unfit.length > 0
                  ? `a GRPCRoute rule takes no ${unfit.join(', ')} filter`
                  : 'a canary joins this path (weights and header matches of a canary stay on the HTTPRoute)';
            reported.differences.push({ id: 'backend-protocol', message: `backend-protocol ${grpcProtocol}: this path stays on the HTTPRoute, whose backend is spoken to over HTTP/1.1, not gRPC (${why})`, action: 'write a GRPCRoute for this path by hand (a path / or /<service>, or Exact /<service>/<method>), or give the Service port appProtocol kubernetes.io/h2c' });
          }
          // An ingress-nginx canary of this host and path (as written): its header and cookie rules first (rule
          // order settles their precedence, as the canary's own order), its weight as a share of this rule.
          const canary = nginx ? canaries.get(canaryKey(host, path)) : undefined;
          if (canary !== undefined && ref !== undefined && !canary.attachedTo) {
            const canaryRef = backendRef(canary.path.backend, canary.namespace, services).ref;
            if (canaryRef !== undefined && canary.namespace === namespace && canaryRef.name !== ref.name) {
              canary.attachedTo = `${namespace}/${routeName}`;
              const variant = (headers: HTTPHeaderMatch[], to: HTTPBackendRef): HTTPRouteRule => ({
                matches: [{ ...match, headers }],
                backendRefs: [to],
                ...(ruleFilters.length > 0 ? { filters: ruleFilters } : {}),
              });
              const { header, cookie, weight, totalWeight } = canary.config;
              if (header !== undefined) {
                if (header.brokenPattern === true) rules.push(variant([{ type: 'RegularExpression', name: header.name, value: '.*' }], ref));
                else if (header.value !== undefined) rules.push(variant([{ type: 'Exact', name: header.name, value: header.value }], canaryRef));
                else if (header.regex !== undefined) rules.push(variant([{ type: 'RegularExpression', name: header.name, value: header.regex }], canaryRef));
                else {
                  rules.push(variant([{ type: 'Exact', name: header.name, value: 'always' }], canaryRef));
                  rules.push(variant([{ type: 'Exact', name: header.name, value: 'never' }], ref));
                }
              }
              if (cookie !== undefined) {
                const cookieMatch = (value: string): HTTPHeaderMatch => {
                  const m = cookieHeaderMatch(cookie, value);
                  return { type: 'RegularExpression', name: 'Cookie', value: m.value };
                };
                rules.push(variant([cookieMatch('always')], canaryRef));
                rules.push(variant([cookieMatch('never')], ref));
              }
              if (weight > 0) rule.backendRefs = [{ ...ref, weight: totalWeight - weight }, { ...canaryRef, weight }];
              canary.rule = rules.length;
            }
          }
        }
        ruleFilters = [];
        reported.route = `${namespace}/${routeName}`;
        reported.rule = rules.length;
        rules.push(rule);
        if (redirectsHttp) {
          redirectRules.push({ matches: [{ path: converted.match }], filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', ...((options.httpsRedirectPort ?? options.httpsPort) === 443 ? {} : { port: options.httpsRedirectPort ?? options.httpsPort }), statusCode: redirectCode } }] });
        }
        entries.push({ ingress, host, path, match, regex: converted.regex, reported });
      }
      // What no path of the host matches: the Ingress's own default backend (nginx layer: host-scoped), else its
      // namespace's tenant default backend or the cluster-wide one, as the Ingress translator picks them.
      const fallback = nginx ? (ingress.spec?.defaultBackend === undefined ? undefined : ingress) : (tenantDefaults.get(namespace) ?? globalDefault);
      if (fallback?.spec?.defaultBackend !== undefined && !rootPathHosts.has(host)) {
        const fallbackNamespace = namespaceOf(fallback.metadata);
        const { ref } = backendRef(fallback.spec.defaultBackend, fallbackNamespace, services);
        if (ref !== undefined) {
          if (fallbackNamespace !== namespace) serviceGrants.add(`${fallbackNamespace}\n${namespace}\n${ref.name}`);
          rules.push({ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [fallbackNamespace === namespace ? ref : { ...ref, namespace: fallbackNamespace }] });
        }
      }
      if (rules.length === 0 && grpcRules.length === 0) continue;
      const hostnames = host === '*' ? [] : [host, ...(aliasesByHost.get(host) ?? [])];
      // A host's HTTPS listener in a ListenerSet is reached through the set only (a Gateway parentRef never reaches it).
      const setParent = gw.listenerSets?.parentOf(host);
      const mainParents: ParentReference[] = redirectsHttp
        ? httpsListener === undefined
          ? []
          : [setParent ?? { ...gatewayRef, sectionName: httpsListener }]
        : host === '*'
          ? catchAllParents(gw, gatewayRef)
          : [gatewayRef, ...setParents.parents];
      // An HTTPRoute holds at most 16 rules (the CRD's limit): more paths go to routes `<name>-2`, `-3`... of the
      // same age, which the Gateway API ranks like one route's rules (path first; ties by name, then rule order).
      const chunks = (list: HTTPRouteRule[]): HTTPRouteRule[][] => Array.from({ length: Math.ceil(list.length / maxRulesPerRoute) }, (_, i) => list.slice(i * maxRulesPerRoute, (i + 1) * maxRulesPerRoute));
      const chunkName = (base: string, i: number): string => truncateName(i === 0 ? base : `${base}-${i + 1}`);
      if (mainParents.length > 0) {
        chunks(rules).forEach((part, i) => {
          routes.push({ apiVersion: gatewayApiVersion, kind: 'HTTPRoute', metadata: { name: chunkName(routeName, i), namespace, ...stamp }, spec: { parentRefs: mainParents, ...(hostnames.length > 0 ? { hostnames } : {}), rules: part } });
        });
        // The GRPCRoute rules of the host (16 a route as well: the GRPCRoute CRD's limit).
        for (let i = 0; i * maxRulesPerRoute < grpcRules.length; i++) {
          const part = grpcRules.slice(i * maxRulesPerRoute, (i + 1) * maxRulesPerRoute);
          routes.push({ apiVersion: gatewayApiVersion, kind: 'GRPCRoute', metadata: { name: chunkName(grpcRouteName, i), namespace, ...stamp }, spec: { parentRefs: mainParents, ...(hostnames.length > 0 ? { hostnames } : {}), rules: part } });
        }
        for (const e of entries) {
          if (e.host !== host || e.reported.rule === undefined) continue;
          const base = e.reported.route === `${namespace}/${routeName}` ? routeName : e.reported.route === `${namespace}/${grpcRouteName}` ? grpcRouteName : undefined;
          if (base === undefined) continue;
          const i = Math.floor(e.reported.rule / maxRulesPerRoute);
          e.reported.route = `${namespace}/${chunkName(base, i)}`;
          e.reported.rule = e.reported.rule % maxRulesPerRoute;
        }
      }
      chunks(redirectRules).forEach((part, i) => {
        routes.push({
          apiVersion: gatewayApiVersion,
          kind: 'HTTPRoute',
          metadata: { name: chunkName(`${routeName}-https-redirect`, i), namespace, ...stamp },
          spec: { parentRefs: [{ ...gatewayRef, sectionName: gw.httpListeners.get(host) ?? httpListenerName }], ...(hostnames.length > 0 ? { hostnames } : {}), rules: part },
        });
      });
    }

    // The cluster-wide default backend (an nginx-layer Ingress without rules, or --default-backend-namespace's
    // oldest) answers every host no rule names: a catch-all route.
    const catchAll = nginx ? hosts.size === 0 : ingress === globalDefault;
    if (catchAll && ingress.spec?.defaultBackend !== undefined) {
      const reported: ReportedPath = { host: '*', path: '/', pathType: 'spec.defaultBackend', result: 'same', differences: [...ingressDifferences] };
      const { ref, problem } = backendRef(ingress.spec.defaultBackend, namespace, services);
      if (problem !== undefined) reported.differences.push(problem);
      const name = truncateName(hosts.size === 0 ? ingress.metadata.name : `${ingress.metadata.name}-default-backend`);
      reported.route = `${namespace}/${name}`;
      reported.rule = 0;
      const parents = catchAllParents(gw, gatewayRef);
      if (parents.length === 0) reported.differences.push(diff(D.hostConflict, 'the default backend of a second IngressClass'));
      else routes.push({
        apiVersion: gatewayApiVersion,
        kind: 'HTTPRoute',
        metadata: { name, namespace, ...stamp },
        spec: { parentRefs: parents, rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], ...(ref === undefined ? {} : { backendRefs: [ref] }) }] },
      });
      entries.push({ ingress, host: '*', path: { path: '/', backend: ingress.spec.defaultBackend }, regex: false, reported });
    } else if (hosts.size === 0 && ingress.spec?.defaultBackend !== undefined) {
      // Not served by the Ingress translator either (DefaultBackendNotClusterWide or DefaultBackendConflict).
      entries.push({ ingress, host: '*', path: { path: '/', backend: ingress.spec.defaultBackend }, regex: false, reported: { host: '*', path: '/', pathType: 'spec.defaultBackend', result: 'same', differences: [] } });
    }
    if (policyConversion?.spec !== undefined) {
      // One policy per 16 HTTPRoutes and GRPCRoutes of the Ingress (targetRefs' limit), as old as the Ingress. (The
      // https-redirect routes are among them: a policy on a redirect rule changes nothing.)
      const targets = routes.slice(routesBefore).flatMap((r) => (r.kind === 'HTTPRoute' || r.kind === 'GRPCRoute' ? [{ kind: r.kind, name: r.metadata.name }] : []));
      for (let i = 0; i * maxRulesPerRoute < targets.length; i++) {
        const name = truncateName(i === 0 ? `${ingress.metadata.name}-policy` : `${ingress.metadata.name}-policy-${i + 1}`);
        const part = targets.slice(i * maxRulesPerRoute, (i + 1) * maxRulesPerRoute);
        routePolicies.push({
          apiVersion: routePolicyApiVersion,
          kind: 'RoutePolicy',
          metadata: { name, namespace, ...stamp },
          spec: { targetRefs: part.map((route) => ({ group: 'gateway.networking.k8s.io', kind: route.kind, name: route.name })), ...policyConversion.spec },
        });
        for (const e of entries) if (e.reported.route !== undefined && part.some((r) => r.name === e.reported.route?.slice(namespace.length + 1))) e.reported.policy = `${namespace}/${name}`;
      }
      if (policyConversion.spec.sessionAffinity !== undefined) {
        const cookiePath = policyConversion.spec.sessionAffinity.cookie?.path;
        for (const e of entries) {
          const grpcRoute = routes.slice(routesBefore).find((r): r is GRPCRoute => r.kind === 'GRPCRoute' && `${namespace}/${r.metadata.name}` === e.reported.route);
          if (grpcRoute !== undefined) {
            // A GRPCRoute rule's cookie Path is its method match (/<service>, /<service>/<method>, or /), nginx's the
            // Ingress path as written: they differ for a path written /<service>/.
            const method = e.reported.rule === undefined ? undefined : grpcRoute.spec?.rules?.[e.reported.rule]?.matches?.[0]?.method;
            const grpcPath = method?.service === undefined ? '/' : method.method === undefined ? `/${method.service}` : `/${method.service}/${method.method}`;
            if (cookiePath === undefined && grpcPath !== (e.path.path ?? '/')) {
              e.reported.differences.push({ id: 'session-cookie-path', message: `the affinity cookie's Path is ${grpcPath} (the GRPCRoute rule's method match), where nginx sends the Ingress path as written`, action: 'set session-cookie-path (the RoutePolicy\'s cookie.path)' });
            }
            continue;
          }
          const route = routes.slice(routesBefore).find((r): r is HTTPRoute => r.kind === 'HTTPRoute' && `${namespace}/${r.metadata.name}` === e.reported.route);
          const rule = e.reported.rule === undefined ? undefined : route?.spec?.rules?.[e.reported.rule];
          if ((rule?.backendRefs?.length ?? 0) > 1) {
            e.reported.differences.push({ id: 'affinity', message: 'a RoutePolicy\'s sessionAffinity applies to rules with one backendRef: this rule\'s split (a canary) is served without affinity', action: 'none, unless clients must stay on one side of the canary' });
          }
          // nginx's cookie Path is the location's path as written; a regex rule's first path is its expression.
          const regex = rule?.matches?.[0]?.path?.type === 'RegularExpression';
          if (regex && policyConversion.spec.sessionAffinity.cookie?.path === undefined) {
            e.reported.differences.push({ id: 'session-cookie-path', message: 'the affinity cookie\'s Path is the rule\'s regular expression, where nginx sends the Ingress path as written', action: 'set session-cookie-path (the RoutePolicy\'s cookie.path)' });
          }
        }
      }
    }
    reports.push({ namespace, name: ingress.metadata.name, gateway: `${options.gatewayNamespace}/${gw.gateway.metadata.name}`, paths: entries.map((e) => e.reported) });
    allEntries.push(...entries);
  }

  // Canary Ingresses: each path is served by the main rule it joined, or not at all.
  for (const { ingress, gateway, hosts } of canaryIngresses) {
    const paths = [...hosts].flatMap(([host, ps]) =>
      ps.map((p): ReportedPath => {
        const canary = canaries.get(canaryKey(host, p));
        const reported: ReportedPath = { host, path: p.path ?? '/', pathType: p.pathType ?? 'ImplementationSpecific', result: 'same', differences: [] };
        if (canary?.ingress === ingress && canary.attachedTo !== undefined) {
          reported.route = canary.attachedTo;
          reported.rule = canary.rule ?? 0;
          if (canary.config.affinityBehavior === 'legacy' || canary.config.loadBalancer !== undefined) {
            reported.differences.push({ id: 'affinity-canary-behavior', message: 'the canary\'s own balancing (affinity-canary-behavior legacy, load-balance) is not carried: its backendRef is balanced as the route\'s', action: 'none, unless the canary needs its own balancing' });
          }
        } else {
          reported.differences.push({ id: 'canary', message: 'this canary path joins no main Ingress path the converter could merge it into (same host, path and pathType, same namespace, another Service): it is not converted', action: 'add the canary as weighted backendRefs or a header-matched rule to the main HTTPRoute by hand' });
        }
        return reported;
      }),
    );
    reports.push({ namespace: namespaceOf(ingress.metadata), name: ingress.metadata.name, gateway, paths });
  }
  markRegexPrecedence(allEntries);
  markPrefixTrailingSlash(allEntries);
  for (const report of reports) {
    for (const p of report.paths) {
      p.differences = dedupe(p.differences);
      p.result = p.differences.length === 0 ? 'same' : 'different';
    }
  }

  const globalDifferences = [
    ...(configMapDifference === undefined ? [] : [configMapDifference]),
    ...tooManyListeners.map((g) => diff(D.tooManyListeners, `Gateway ${options.gatewayNamespace}/${g.gateway.metadata.name}: ${(g.gateway.spec?.listeners ?? []).length} listeners`)),
  ];
  const gatewayClass: GatewayClass = {
    apiVersion: gatewayApiVersion,
    kind: 'GatewayClass',
    metadata: { name: options.gatewayClassName },
    spec: { controllerName: options.classes.gatewayControllerName ?? defaultGatewayControllerName },
  };
  const gatewayObjects = [...gateways.values()];
  const objects: GatewayApiObject[] = [
    ...(gatewayObjects.length > 0 ? [gatewayClass] : []),
    ...gatewayObjects.map((g) => g.gateway),
    ...gatewayObjects.flatMap((g) => g.listenerSets?.sets() ?? []),
    ...gatewayObjects.flatMap((g) => referenceGrants(g, options)),
    ...serviceReferenceGrants(serviceGrants),
    ...tlsPolicies.values(),
    ...routes,
    ...routePolicies,
  ];
  const paths = reports.flatMap((r) => r.paths);
  const written: Record<string, number> = {};
  for (const o of objects) written[o.kind] = (written[o.kind] ?? 0) + 1;
  return {
    objects,
    converted: served.map(refOf),
    report: {
      ...(globalDifferences.length === 0 ? {} : { differences: globalDifferences }),
      ingresses: reports.sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1)),
      summary: { ingresses: reports.length, paths: paths.length, same: paths.filter((p) => p.result === 'same').length, different: paths.filter((p) => p.result === 'different').length, written, copied: 0 },
    },
  };
}
