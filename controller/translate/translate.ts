// The translator: a consistent ClusterState -> the desired data plane (IR) plus diagnostics for users. Pure and
// deterministic; best effort: a broken part of an Ingress is reported and only that part is left out.
import { catchAllHost, type ClusterIR, compareStrings, type GatewayIR, type RouteIR, type RouteTableIR, type TlsSecretIR, type TlsServerIR, type VirtualHostIR } from '../../ir/index.js';
import { indexServices } from './backend.js';
import { selectDefaultBackend } from './default-backend.js';
import type { Diagnostic } from './diagnostics.js';
import { isServedByUs } from './ingress-class.js';
import { checkClassNginxSettings, classNginxSetting, nginxAnnotationsEnabled } from './ingress-class-nginx.js';
import { applyNginxAffinity } from './nginx/nginx-affinity.js';
import { applyNginxServiceUpstream } from './nginx/nginx-service-upstream.js';
import { applyNginxMirrors, nginxMirrorServices } from './nginx/nginx-mirror.js';
import { collectRules } from './ingress-rules.js';
import { type ClusterState, type Ingress, type ObjectRef, refKey, refOf } from './kube-objects.js';
import { applyAnnotationPolicies, plainHttpVirtualHost } from './annotation-policy.js';
import type { IngressAnnotations } from './annotations.js';
import { type NginxIngressAnnotations, parseAnnotationsWithNginx } from './nginx/nginx-annotations.js';
import { applyNginxUrlRedirects, nginxRedirectsByIngress, withNginxHttpsRedirects } from './nginx/nginx-redirect.js';
import { applyNginxServerAliases, nginxWwwRedirects, type WithNginxServerNames, wwwRedirectTlsHosts } from './nginx/nginx-server-names.js';
import { attachNginxCanaries, partitionNginxCanaries } from './nginx/nginx-canary.js';
import { applyNginxAppRoots, applyNginxCaptureRewrites } from './nginx/nginx-regex.js';
import { nginxRegexPaths } from './nginx/nginx-regex-hosts.js';
import { hasHostScopedDefaultBackend, hostFallback, hostScopedDefaultBackends } from './nginx/nginx-host-default-backends.js';
import { applyNginxAuth, nginxAuthByIngress, nginxAuthReferences } from './nginx/nginx-auth.js';
import { applyNginxEdge, finishNginxEdge, nginxEdgeReferences } from './nginx/nginx-edge.js';
import { findNginxConfigMap, readNginxConfigMap } from './nginx/nginx-configmap.js';
import { applyNginxForwardedHeaders, applyNginxGzip, applyNginxHsts, applyNginxServerTokens, enabledRefs, withNginxConfigMapDefaults } from './nginx/nginx-configmap-apply.js';
import type { TranslateOptions } from './options.js';
import { compareByAge } from './ordering.js';
import { type References, collectReferences } from './references.js';
import { collectTlsHosts } from './tls-hosts.js';
import { assembleVirtualHost, fallbackRoute, redirectVirtualHost, routeTable } from './virtual-host.js';

export interface TranslationResult {
  ir: GatewayIR;
  /** Sorted by object, in the order found for each object. */
  diagnostics: Diagnostic[];
  /** Every Ingress of our class, even partly broken ones (their status is ours to write), sorted. */
  servedIngresses: ObjectRef[];
  /** Services and Secrets the served Ingresses name: events about any other Service or Secret change nothing. */
  references: References;
  /**
   * The route table of the TLS filter chains, also when there are none yet (then unused by the IR): what an
   * incremental translation splices a changed host into (incremental-translate.ts).
   */
  httpsTable: RouteTableIR;
  /**
   * Some host is served under another name too (ingress-nginx server-alias, from-to-www-redirect): a change to any
   * Ingress may claim or free such a name, so no splice can prove the rest unchanged (incremental-translate.ts).
   */
  serverNameCopies?: true;
}

/** RDS name of the plaintext listener's route table. */
export const httpRouteTableName = 'http';

/**
 * RDS name of the route table every TLS filter chain shares: SNI picks the certificate (the chain), the Host
 * header picks the route, as on plain HTTP.
 */
export const httpsRouteTableName = 'https';

/** Name of the filter chain of one TLS host. */
export function httpsName(host: string): string {
  return `https/${host}`;
}

/** Name of the filter chain with the default certificate (never a host's: `*` is not a valid TLS host). */
export const defaultCertificateChainName = httpsName('*');

/** `references` with `services` (`namespace/name`) added. */
function withServices(references: References, services: readonly string[]): References {
  if (services.length === 0) return references;
  return { ...references, services: [...new Set([...references.services, ...services])].sort(compareStrings) };
}

/** `question` asked once per Ingress (the class lookup behind it is not free). */
function memoized(question: (ingress: Ingress) => boolean): (ingress: Ingress) => boolean {
  const answers = new Map<Ingress, boolean>();
  return (ingress) => {
    let answer = answers.get(ingress);
    if (answer === undefined) answers.set(ingress, (answer = question(ingress)));
    return answer;
  };
}

function compareRefs(a: ObjectRef, b: ObjectRef): number {
  return compareStrings(refKey(a), refKey(b));
}

function clustersUsedBy(tables: readonly RouteTableIR[], known: ReadonlyMap<string, ClusterIR>): ClusterIR[] {
  const used = new Map<string, ClusterIR>();
  for (const table of tables) {
    for (const vhost of table.virtualHosts) {
      for (const route of vhost.routes) {
        if (route.action.kind !== 'forward') continue;
        const names = route.action.split === undefined ? [route.action.cluster] : [route.action.cluster, route.action.split.cluster];
        if (route.policy?.mirrorCluster !== undefined) names.push(route.policy.mirrorCluster);
        for (const name of names) {
          const cluster = known.get(name);
          // Copied once per cluster, not once per route using it.
          if (cluster !== undefined && !used.has(cluster.name)) used.set(cluster.name, { ...cluster, service: { ...cluster.service } });
        }
      }
    }
  }
  return [...used.values()].sort((a, b) => compareStrings(a.name, b.name));
}

export function translate(state: ClusterState, options: TranslateOptions): TranslationResult {
  const diagnostics: Diagnostic[] = [];
  // Oldest first: every conflict below is settled by the first claim.
  const served = state.ingresses
    .filter((ingress) => isServedByUs(ingress, state.ingressClasses, options))
    .sort(compareByAge);
  // Whether an Ingress is read with the nginx layer: asked once per Ingress (a class lookup), and not at all when
  // neither the flag nor any class turns the layer on.
  const nginxAnywhere = options.nginxAnnotations === true || state.ingressClasses.some((c) => classNginxSetting(c) === true);
  const nginxEnabled = nginxAnywhere ? memoized((ingress) => nginxAnnotationsEnabled(ingress, state.ingressClasses, options)) : (): boolean => false;
  // The ingress-nginx ConfigMap (--nginx-configmap): its values are the defaults of the nginx layer's annotations.
  const nginxConfigMap =
    options.nginxConfigMap === undefined ? undefined : readNginxConfigMap(findNginxConfigMap(state, options.nginxConfigMap), options.nginxConfigMap, diagnostics);
  const ingresses = nginxConfigMap === undefined ? served : withNginxConfigMapDefaults(served, nginxEnabled, nginxConfigMap);
  // ingress-nginx canary Ingresses route nothing themselves: their paths join the main Ingresses' routes below.
  const { mains, canaries } = partitionNginxCanaries(ingresses, diagnostics, nginxEnabled);

  // The ConfigMap's http-redirect-code is the status of the nginx layer's https redirects.
  const redirectOptions: TranslateOptions =
    nginxConfigMap === undefined
      ? options
      : { ...options, nginxHttpRedirectCode: nginxConfigMap.httpRedirectCode, nginxNoTlsRedirectLocations: nginxConfigMap.noTlsRedirectLocations };
  // ingress-nginx's allow-cross-namespace-resources: the flag, or the ConfigMap key.
  const nginxLayer = { allowCrossNamespace: options.nginxAllowCrossNamespaceResources === true || nginxConfigMap?.allowCrossNamespaceResources === true };
  const annotations = new Map<Ingress, IngressAnnotations>(
    mains.map((ingress) => [ingress, parseAnnotationsWithNginx(ingress, diagnostics, nginxEnabled(ingress), nginxLayer)]),
  );
  checkClassNginxSettings(state.ingressClasses, options, diagnostics);
  const annotationsByRef = new Map([...annotations].map(([ingress, parsed]) => [refKey(refOf(ingress)), parsed]));
  const sslRedirect = new Map<Ingress, boolean>([...annotations].map(([ingress, parsed]) => [ingress, parsed.sslRedirect]));
  const services = indexServices(state.services);
  const clusters = new Map<string, ClusterIR>();
  const allowExternalName = options.allowExternalName ?? false;
  const defaultBackend = selectDefaultBackend(mains, services, clusters, diagnostics, allowExternalName, (ingress) => hasHostScopedDefaultBackend(ingress, nginxEnabled));
  // ingress-nginx scopes the default backend of an Ingress with rules to its own hosts.
  const scopedDefaults = hostScopedDefaultBackends(mains, nginxEnabled, services, clusters, diagnostics, allowExternalName);
  const defaultRoutes = [...(defaultBackend === undefined ? [] : [defaultBackend]), ...scopedDefaults.values()];
  // ingress-nginx use-regex or rewrite-target: every path of the host is a regex (nginx/nginx-regex-hosts.ts).
  const regexPaths = nginxRegexPaths(mains, nginxEnabled);
  // ImplementationSpecific paths of nginx-layer Ingresses are nginx prefix locations (character prefixes).
  const rules = collectRules(mains, services, clusters, diagnostics, allowExternalName, regexPaths, nginxEnabled);
  const tls = collectTlsHosts(mains, state.secrets, diagnostics);
  // Each Ingress's annotations go on its own routes (and clusters of its own settings), before routes are copied.
  const annotatedRoutes = [...rules.routesByHost.values()].flat();
  applyAnnotationPolicies([...defaultRoutes, ...annotatedRoutes], annotationsByRef, clusters);
  // service-upstream swaps the cluster for its ClusterIP variant before the affinity cookie names the cluster.
  applyNginxServiceUpstream(annotatedRoutes, annotationsByRef, clusters, services, diagnostics);
  applyNginxAffinity(annotatedRoutes, annotationsByRef, clusters);
  applyNginxMirrors(mains, annotatedRoutes, annotationsByRef, clusters, services, diagnostics);
  const nginxRedirects = nginxRedirectsByIngress(annotationsByRef as ReadonlyMap<string, NginxIngressAnnotations>);
  applyNginxUrlRedirects([...defaultRoutes, ...annotatedRoutes], nginxRedirects);
  applyNginxCaptureRewrites(annotatedRoutes, annotationsByRef);
  let serverHeaderPassThrough = false;
  let trustForwardedHeaders = false;
  if (nginxConfigMap !== undefined) {
    const enabled = enabledRefs(mains, nginxEnabled);
    applyNginxHsts(rules.routesByHost, new Set(tls.hosts.keys()), enabled, nginxConfigMap);
    applyNginxGzip(annotatedRoutes, enabled, nginxConfigMap);
    serverHeaderPassThrough = applyNginxServerTokens(annotatedRoutes, enabled, nginxConfigMap).serverHeaderPassThrough;
    trustForwardedHeaders = applyNginxForwardedHeaders(annotatedRoutes, enabled, nginxConfigMap).trustForwardedHeaders;
  }
  // ingress-nginx ssl-passthrough, default-backend and custom-http-errors (nginx/nginx-edge.ts).
  const nginxEdge = applyNginxEdge(mains, defaultBackend === undefined ? annotatedRoutes : [defaultBackend, ...annotatedRoutes], {
    enabled: nginxEnabled,
    services, clusters, diagnostics, allowExternalName, contributorsByHost: rules.contributorsByHost, defaultBackend,
  });

  const fallback = fallbackRoute(defaultBackend, options.notFoundPage);
  const fallbackOf = (host: string): RouteIR => {
    // Without any default backend every host gets the 404 page: no class lookup per host.
    if (host === catchAllHost || (defaultBackend === undefined && scopedDefaults.size === 0)) return fallback;
    const own = hostFallback(rules.contributorsByHost.get(host), nginxEnabled, scopedDefaults, defaultBackend);
    return own === defaultBackend ? fallback : fallbackRoute(own, options.notFoundPage);
  };
  const virtualHosts = new Map<string, VirtualHostIR>();
  for (const [host, routes] of rules.routesByHost) virtualHosts.set(host, assembleVirtualHost(host, routes, fallbackOf(host)));
  // A host a rule names without usable paths (no http block, or only broken ones) is still that host: it gets the
  // default backend, not the host-less rules, which are for hosts no rule names.
  for (const host of rules.contributorsByHost.keys()) {
    if (!virtualHosts.has(host)) virtualHosts.set(host, assembleVirtualHost(host, [], fallbackOf(host)));
  }
  if (!virtualHosts.has(catchAllHost)) virtualHosts.set(catchAllHost, assembleVirtualHost(catchAllHost, [], fallback));
  attachNginxCanaries(canaries, virtualHosts, { services, clusters, diagnostics, allowExternalName, annotations: annotationsByRef, mains });
  applyNginxAppRoots(virtualHosts, mains, annotations, diagnostics);
  // ingress-nginx server-alias (copies of a host) and from-to-www-redirect (nginx/nginx-server-names.ts).
  const serverNamesOf = (ingress: Ingress): WithNginxServerNames['nginxServerNames'] => (annotations.get(ingress) as WithNginxServerNames | undefined)?.nginxServerNames;
  const aliasOf = applyNginxServerAliases(virtualHosts, mains, serverNamesOf, diagnostics);
  const www = nginxWwwRedirects(virtualHosts, mains, serverNamesOf, options, diagnostics);

  // Over TLS every host is served exactly as plain HTTP would serve it without redirects, whichever chain (SNI)
  // the connection came in on: one table for all chains, so the Host header picks the route even when it differs
  // from the SNI name, and a host under a TLS wildcard gets its own rules, not the wildcard's.
  // The same virtual host objects as plain HTTP serves where it serves them unchanged (IR is never mutated once
  // assembled; passes over both tables skip routes they have seen): built and kept once, not twice.
  const https = routeTable(httpsRouteTableName, [...virtualHosts.values(), ...www.https]);
  const tlsServers: TlsServerIR[] = [];
  const secrets = new Map<string, TlsSecretIR>();
  for (const { host, secret } of [...tls.hosts.values()].sort((a, b) => compareStrings(a.host, b.host))) {
    if (nginxEdge.passthrough.hosts.has(host)) continue; // its TLS connections are not terminated
    tlsServers.push({ name: httpsName(host), serverNames: [host], secret: secret.name, routeTable: https });
    secrets.set(secret.name, secret);
  }
  // from-to-www-redirect over https: the redirecting name with the certificate of its host, where that covers it.
  for (const { host, secret } of wwwRedirectTlsHosts(www, tls.hosts)) {
    tlsServers.push({ name: httpsName(host), serverNames: [host], secret: secret.name, routeTable: https });
  }
  if (tls.defaultCertificate !== undefined) {
    const { secret } = tls.defaultCertificate;
    tlsServers.push({ name: defaultCertificateChainName, serverNames: [], secret: secret.name, routeTable: https });
    secrets.set(secret.name, secret);
  }

  // A host with TLS redirects plain HTTP to https unless every Ingress contributing to it (by rules or by
  // spec.tls) opts out with ssl-redirect "false".
  const contributorsOf = (host: string): Ingress[] => [...(rules.contributorsByHost.get(aliasOf.get(host) ?? host) ?? []), ...(tls.contributorsByHost.get(host) ?? [])];
  const redirects = (host: string): boolean => contributorsOf(host).some((ingress) => sslRedirect.get(ingress) !== false);
  const httpHosts: VirtualHostIR[] = [];
  for (const host of new Set([...virtualHosts.keys(), ...tls.hosts.keys()])) {
    if (www.names.has(host)) continue; // the www redirect answers it, on both schemes
    // Routes of https-only Ingresses answer 403 on plain HTTP and those of force-ssl-redirect ones redirect,
    // whether the host redirects or not (annotation-policy.ts).
    const vhost = virtualHosts.get(host);
    const hostRedirects = tls.hosts.has(host) && redirects(host);
    const redirect = redirectVirtualHost(host, options.httpsRedirectPort);
    const plain =
      vhost === undefined
        ? undefined
        : plainHttpVirtualHost(vhost, annotationsByRef, redirect.routes[0] as RouteIR, hostRedirects);
    const served = plain ?? (hostRedirects ? redirect : vhost);
    // ingress-nginx's own redirect shape for the Ingresses read through the nginx layer (nginx/nginx-redirect.ts).
    if (served !== undefined) httpHosts.push(nginxRedirects.size === 0 ? served : withNginxHttpsRedirects(served, vhost?.routes, contributorsOf(host), tls.hosts.has(host), nginxRedirects, redirectOptions));
  }
  const http = routeTable(httpRouteTableName, [...httpHosts, ...www.http]);

  const ir: GatewayIR = {
    http,
    tlsServers,
    clusters: clustersUsedBy(tlsServers.length > 0 ? [http, https] : [http], clusters),
    secrets: [...secrets.values()].sort((a, b) => compareStrings(a.name, b.name)),
    ...(serverHeaderPassThrough || trustForwardedHeaders
      ? { listener: { ...(serverHeaderPassThrough ? { serverHeaderPassThrough } : {}), ...(trustForwardedHeaders ? { trustForwardedHeaders } : {}) } }
      : {}),
  };
  finishNginxEdge(ir, nginxEdge);
  // ingress-nginx auth-type basic / auth-url, on the final routes (nginx/nginx-auth.ts).
  const nginxAuth = nginxAuthByIngress(annotations);
  applyNginxAuth(ir, nginxAuth, { secrets: state.secrets, services }, diagnostics);
  return {
    ir,
    // Array.prototype.sort is stable: each object's diagnostics keep the order they were found in.
    diagnostics: diagnostics.sort((a, b) => compareRefs(a.object, b.object)),
    servedIngresses: ingresses.map(refOf).sort(compareRefs),
    references: withServices(nginxEdgeReferences(nginxEdge, nginxAuthReferences(nginxAuth, collectReferences(ingresses))), nginxMirrorServices(annotationsByRef)),
    httpsTable: https,
    ...(aliasOf.size > 0 || www.names.size > 0 ? { serverNameCopies: true as const } : {}),
  };
}
