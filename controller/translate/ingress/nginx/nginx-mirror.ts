// ingress-nginx mirror-target and mirror-host: every request of the Ingress's paths is also sent
// to the target (its answer ignored). nginx makes a subrequest to an internal location that sets Host (mirror-host,
// else the target's host name) and proxy_passes to the target (template.go buildMirrorLocations). Here Envoy's
// request_mirror_policies, to a cluster of the target (url-cluster.ts, as auth-url) whose upstream filter gives the
// mirrored request the Host and path nginx sends (envoy/mirror-rewrite.ts).
import type { ClusterIR, MirrorRewriteIR } from '../../../../ir/index.js';
import type { ServiceIndex } from '../../shared/backend.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { clusterForUrl, serviceOfUrlHost, type UrlTargetPolicy } from './url-cluster.js';

/** Names (after the prefix) this module reads. */
export const nginxMirrorAnnotations = ['mirror-target', 'mirror-host'] as const;

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

/** What the annotations of one Ingress ask for. */
export interface NginxMirrorSettings {
  /** The target as written (for messages). */
  target: string;
  /** Where mirrored requests go: scheme, host and port of the target. */
  url: URL;
  rewrite: MirrorRewriteIR;
}

/** Parsed annotations of an Ingress with a mirror. */
export interface WithNginxMirror {
  nginxMirror?: NginxMirrorSettings;
}

/** A host name as ValidateServerName and a URL accept it (no scheme, path or spaces). */
const hostName = /^[A-Za-z0-9*.-]+(?::\d{1,5})?$/;

/**
 * The mirror of an Ingress, or undefined without mirror-target (or with one that cannot be used, reported).
 * The mirrored request's path is what nginx's proxy_pass sends from the internal location `= /_mirror-UID`: the
 * target's path (the request's query kept) when it has one; the request's own URI after `$request_uri`; the
 * location's own path `/_mirror-UID` for a bare origin. (mirror-request-body is not read: Envoy always mirrors the
 * body, "on", and "off" is reported as unsupported.)
 */
export function readNginxMirror(ingress: Ingress, diagnostics: Diagnostic[]): NginxMirrorSettings | undefined {
  const annotations = ingress.metadata.annotations ?? {};
  const target = annotations[n('mirror-target')]?.trim();
  const report = (message: string): void => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message });
  };
  if (target === undefined || target === '') return undefined;
  const refuse = (why: string): undefined => {
    report(`annotation ${n('mirror-target')} ${JSON.stringify(target.slice(0, 200))} ${why}; requests are not mirrored`);
    return undefined;
  };
  const dollar = target.indexOf('$');
  const base = dollar < 0 ? target : target.slice(0, dollar);
  const variables = dollar < 0 ? '' : target.slice(dollar);
  if (variables !== '' && variables !== '$request_uri') return refuse('uses nginx variables other than a final $request_uri, which are not supported here');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return refuse('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('is not an http or https URL');
  if (url.username !== '' || url.password !== '' || url.hash !== '' || url.search !== '') return refuse('may not carry credentials, a query or a fragment');
  // Whether the target as written has a path after its authority (`http://h` has none, `http://h/` has "/").
  const writtenPath = /^[a-z]+:\/\/[^/]*(\/.*)?$/i.exec(base)?.[1];
  const rewrite: MirrorRewriteIR = { host: url.hostname };
  const hostText = annotations[n('mirror-host')]?.trim();
  if (hostText !== undefined && hostText !== '') {
    if (hostName.test(hostText)) rewrite.host = hostText;
    else report(`annotation ${n('mirror-host')} has invalid value ${JSON.stringify(hostText.slice(0, 100))}; accepted values: a host name; the target's host is sent`);
  }
  if (variables === '$request_uri') {
    if (writtenPath !== undefined) rewrite.pathPrefix = url.pathname;
  } else {
    rewrite.path = writtenPath === undefined ? `/_mirror-${ingress.metadata.uid ?? ''}` : url.pathname;
  }
  return { target, url, rewrite };
}

/** The cluster name of a mirror target's cluster with its rewrite (one per target, Host and path). */
function mirrorClusterName(base: string, rewrite: MirrorRewriteIR): string {
  const path = rewrite.path !== undefined ? `path=${rewrite.path}` : rewrite.pathPrefix !== undefined ? `prefix=${rewrite.pathPrefix}` : 'uri';
  return `${base}~mirror~host=${rewrite.host}~${path}`;
}

/**
 * Mirrors the forwarding routes of each Ingress with a mirror to its target's cluster (added to `clusters`); such a
 * route comes back as a new route. A target that cannot be reached (no such Service, a local address) is reported
 * and the routes are not mirrored; the requests themselves are served as before. Undefined when no Ingress has a
 * mirror (most translations: no look-up per route then).
 */
export function nginxMirrorPass(
  ingresses: readonly Ingress[],
  annotations: ReadonlyMap<string, unknown>,
  clusters: Map<string, ClusterIR>,
  services: ServiceIndex,
  diagnostics: Diagnostic[],
  urlTargets: UrlTargetPolicy = {},
): RoutePass | undefined {
  if (![...annotations.values()].some((parsed) => (parsed as WithNginxMirror | undefined)?.nginxMirror !== undefined)) return undefined;
  const targets = new Map<string, string | undefined>();
  const byKey = new Map(ingresses.map((ingress) => [refKey(refOf(ingress)), ingress]));
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward') return route;
    const key = refKey(route.source);
    const mirror = (annotations.get(key) as WithNginxMirror | undefined)?.nginxMirror;
    const ingress = byKey.get(key);
    if (mirror === undefined || ingress === undefined) return route;
    if (!targets.has(key)) {
      const resolved = clusterForUrl(ingress, mirror.url, services, 'mirror', Reason.InvalidAnnotation, urlTargets);
      if ('error' in resolved) {
        diagnostics.push({ object: route.source, severity: 'Warning', reason: resolved.reason, message: `annotation ${n('mirror-target')} ${JSON.stringify(mirror.target)}: ${resolved.error}; requests are not mirrored` });
        targets.set(key, undefined);
      } else {
        const cluster: ClusterIR = { ...resolved.cluster, name: mirrorClusterName(resolved.cluster.name, mirror.rewrite), mirrorRewrite: { ...mirror.rewrite } };
        clusters.set(cluster.name, cluster);
        targets.set(key, cluster.name);
      }
    }
    const cluster = targets.get(key);
    return cluster === undefined ? route : changedRoute(route, { policy: { ...route.policy, mirrorCluster: cluster } });
  };
}

/** The Services (`namespace/name`) the mirror targets of `ingresses` name, to be watched. */
export function nginxMirrorServices(annotations: ReadonlyMap<string, unknown>): string[] {
  const services: string[] = [];
  for (const parsed of annotations.values()) {
    const mirror = (parsed as WithNginxMirror | undefined)?.nginxMirror;
    const service = mirror === undefined ? undefined : serviceOfUrlHost(mirror.url.hostname);
    if (service !== undefined) services.push(service);
  }
  return services;
}
