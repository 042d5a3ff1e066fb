// ingress-nginx canaries (--nginx-annotations). An Ingress with `canary: "true"` routes nothing by itself: each of
// its paths lends its backend to the route of the main (non-canary) Ingress with the same host and path, which then
// picks the canary in ingress-nginx's order (docs: user-guide/nginx-configuration/annotations.md#canary):
// 1. canary-by-header H: H "always" -> canary, "never" -> main; with canary-by-header-value V instead: H equal to V
//    -> canary; with canary-by-header-pattern P (ignored when V is set): H matching P -> canary. Other values, or
//    no H: next rule.
// 2. canary-by-cookie C: C "always" -> canary, "never" -> main; anything else: next rule.
// 3. canary-weight W out of canary-weight-total T (100 unless larger): that share of the rest, at random.
// In the IR, rules 1 and 2 are extra routes right before the main route (copies of it with a header condition, so
// they keep its policy) and rule 3 is a traffic split on the main route. Like ingress-nginx, a canary takes every
// other setting from the main Ingress, so its other annotations are reported as ignored, except its own
// load-balance and affinity-canary-behavior (with the main Ingress's cookie affinity, a client pinned to either side
// stays there before rules 1-3: routes on the cookie's backend, nginx-affinity.ts).
import { affinityBackendHeader, type ClusterIR, type HeaderMatchIR, type LoadBalancerIR, type RouteActionIR, type RouteIR, type VirtualHostIR } from '../../../../ir/index.js';
import { type ResolvedBackend, type ServiceIndex, resolveBackend } from '../../shared/backend.js';
import { withSettings } from '../annotation-policy.js';
import type { IngressAnnotations } from '../annotations.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { ruleHost } from '../ingress-rules.js';
import { type Ingress, type ObjectRef, refKey, refOf } from '../../shared/kube-objects.js';
import { annotationPrefix } from '../../shared/options.js';
import { describeMatch, matchKey, parsePath } from '../path-match.js';
import { Reason } from '../../shared/reasons.js';
import { cloneRoute } from '../virtual-host.js';
import { nginxAnnotationPrefix, nginxCatalogEntry } from './catalog.js';
import { cookieHeaderMatch, headerPatternRegex, parseCookieName, parseGoBool, parseHeaderValue } from './nginx-canary-values.js';
import { parseHeaderName } from '../annotation-values.js';
import { nginxBackendKey } from '../../shared/nginx-backend-key.js';
import { readNginxBalancing } from './nginx-balancing.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

/** The canary family, after the prefix. */
export const nginxCanaryAnnotations: readonly string[] = [
  'canary',
  'canary-by-header',
  'canary-by-header-value',
  'canary-by-header-pattern',
  'canary-by-cookie',
  'canary-weight',
  'canary-weight-total',
];

/** What a canary Ingress asks for; invalid parts are left out (and reported). */
export interface NginxCanaryConfig {
  /**
   * canary-by-header, with canary-by-header-value (`value`) or else canary-by-header-pattern (`regex`, RE2). A
   * pattern no regex engine compiles (`brokenPattern`) sends every request with the header to the main backend, as
   * ingress-nginx's Lua does when ngx.re.match fails.
   */
  header?: { name: string; value?: string; regex?: string; brokenPattern?: true };
  cookie?: string;
  /** canary-weight; 0 sends nothing by weight. */
  weight: number;
  totalWeight: number;
  /** affinity-canary-behavior: "legacy" ignores the main Ingress's session affinity on the canary's side. */
  affinityBehavior: 'sticky' | 'legacy';
  /** The canary's own load-balance (ewma: least request); absent: round robin, whatever the main Ingress's. */
  loadBalancer?: LoadBalancerIR;
}

/** Only the annotation `name` of the Ingress (full key), for a reader of that one annotation. */
function pick(ingress: Ingress, name: string): Record<string, string> {
  const value = annotation(ingress, name);
  return value === undefined ? {} : { [n(name)]: value };
}

export interface NginxCanary {
  ingress: Ingress;
  config: NginxCanaryConfig;
}

/** ingress-nginx uses canary-weight-total only when it is above 100. */
const defaultTotalWeight = 100;
const maxTotalWeight = 1_000_000;

function annotation(ingress: Ingress, name: string): string | undefined {
  return ingress.metadata.annotations?.[n(name)];
}

/** Whether the Ingress is an ingress-nginx canary (`canary` true, as Go's ParseBool reads it). */
export function isNginxCanary(ingress: Ingress): boolean {
  const value = annotation(ingress, 'canary');
  return value !== undefined && parseGoBool(value) === true;
}

class Reporter {
  constructor(
    private readonly ingress: Ingress,
    private readonly diagnostics: Diagnostic[],
  ) {}

  warn(reason: string, message: string): void {
    this.diagnostics.push({ object: refOf(this.ingress), severity: 'Warning', reason, message });
  }

  invalid(name: string, value: string, accepted: string, effect: string): void {
    const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}...` : JSON.stringify(value);
    this.warn(Reason.InvalidAnnotation, `annotation ${n(name)} has invalid value ${shown}; accepted values: ${accepted}; ${effect}`);
  }

  ignored(name: string, why: string): void {
    this.warn(Reason.InvalidAnnotation, `annotation ${n(name)} ignored: ${why}`);
  }
}

/**
 * For an Ingress that is not a canary: canary-* annotations do nothing without `canary` "true" (ingress-nginx
 * refuses them as "configured but not enabled"); each one set is reported.
 */
export function reportCanaryAnnotationsOfMain(ingress: Ingress, diagnostics: Diagnostic[]): void {
  const r = new Reporter(ingress, diagnostics);
  const canary = annotation(ingress, 'canary');
  if (canary !== undefined && parseGoBool(canary) === undefined) r.invalid('canary', canary, '"true", "false"', 'the Ingress is not a canary');
  for (const name of nginxCanaryAnnotations.slice(1)) {
    if (annotation(ingress, name) !== undefined) r.ignored(name, `it needs ${n('canary')} "true" (configured but not enabled)`);
  }
}

function readHeader(ingress: Ingress, r: Reporter): NginxCanaryConfig['header'] {
  const headerText = annotation(ingress, 'canary-by-header');
  const valueText = annotation(ingress, 'canary-by-header-value');
  const patternText = annotation(ingress, 'canary-by-header-pattern');
  // An empty value or pattern is "not set" in ingress-nginx.
  const value = valueText === undefined || valueText === '' ? undefined : valueText;
  const pattern = patternText === undefined || patternText === '' ? undefined : patternText;
  if (headerText === undefined || headerText.trim() === '') {
    if (value !== undefined) r.ignored('canary-by-header-value', `it needs ${n('canary-by-header')}`);
    if (pattern !== undefined) r.ignored('canary-by-header-pattern', `it needs ${n('canary-by-header')}`);
    return undefined;
  }
  const name = parseHeaderName(headerText);
  if (name === undefined || name === 'host' || name === 'cookie') {
    r.invalid('canary-by-header', headerText, 'a header name other than Host and Cookie', 'no request is routed by header');
    return undefined;
  }
  if (value !== undefined) {
    if (pattern !== undefined) r.ignored('canary-by-header-pattern', `${n('canary-by-header-value')} is set and takes precedence`);
    if (parseHeaderValue(value) !== undefined) return { name, value };
    r.invalid('canary-by-header-value', value, 'visible ASCII text without leading or trailing blanks', 'no request is routed by header');
    return undefined;
  }
  if (pattern !== undefined) {
    // ingress-nginx's annotation check (IsValidRegex): other characters make the pattern "not set".
    if (!/^[/\-._~a-zA-Z0-9:^$[\](){}*+?|&=\\]*$/.test(pattern)) {
      r.invalid('canary-by-header-pattern', pattern, 'letters, digits and -._~/:^$[](){}*+?|&=\\ only (ingress-nginx refuses others)', `the pattern is not used: ${n('canary-by-header')} "always" / "never" decide`);
      return { name };
    }
    const parsed = headerPatternRegex(pattern);
    if (parsed.valid) return { name, regex: parsed.regex };
    if (!compilesAsPcre(pattern)) {
      r.invalid('canary-by-header-pattern', pattern, 'a regular expression', 'a request with the header goes to the main backend (ingress-nginx fails the match at request time)');
      return { name, brokenPattern: true };
    }
    r.invalid('canary-by-header-pattern', pattern, parsed.error, 'no request is routed by header');
    return undefined;
  }
  return { name };
}

/**
 * Whether PCRE (nginx's ngx.re.match) would compile the pattern, told by JavaScript's engine, whose syntax is
 * PCRE's for what matters here (classes, groups, quantifiers, look-around, back-references).
 */
function compilesAsPcre(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

function readWeights(ingress: Ingress, r: Reporter): { weight: number; totalWeight: number } {
  let totalWeight = defaultTotalWeight;
  const totalText = annotation(ingress, 'canary-weight-total');
  if (totalText !== undefined) {
    const total = /^\d{1,7}$/.test(totalText.trim()) ? Number(totalText.trim()) : Number.NaN;
    if (total >= defaultTotalWeight && total <= maxTotalWeight) totalWeight = total;
    else r.invalid('canary-weight-total', totalText, `an integer from ${defaultTotalWeight} to ${maxTotalWeight} (ingress-nginx ignores totals below 100)`, `using ${defaultTotalWeight}`);
  }
  const weightText = annotation(ingress, 'canary-weight');
  if (weightText === undefined) return { weight: 0, totalWeight };
  const weight = /^\d{1,7}$/.test(weightText.trim()) ? Number(weightText.trim()) : Number.NaN;
  if (weight >= 0 && weight <= totalWeight) return { weight, totalWeight };
  r.invalid('canary-weight', weightText, `an integer from 0 to ${totalWeight}`, 'no request is routed to the canary by weight');
  return { weight: 0, totalWeight };
}

/**
 * The canary settings of a canary Ingress, reporting invalid values. Its other annotations (nginx ones and ours)
 * are reported once as ignored: the canary's routes are the main Ingress's. Snippets are still refused loudly.
 */
export function readNginxCanary(ingress: Ingress, diagnostics: Diagnostic[]): NginxCanaryConfig {
  const r = new Reporter(ingress, diagnostics);
  const ignored: string[] = [];
  for (const key of Object.keys(ingress.metadata.annotations ?? {}).sort()) {
    if (key.startsWith(nginxAnnotationPrefix)) {
      if (nginxCanaryAnnotations.includes(key.slice(nginxAnnotationPrefix.length)) || key === n('affinity-canary-behavior') || key === n('load-balance')) continue;
      const entry = nginxCatalogEntry(key);
      if (entry?.status === 'refused') r.warn(Reason.NginxSnippetRefused, `annotation ${key} is refused: ${entry.note ?? 'no safe equivalent'}`);
      else ignored.push(key);
    } else if (key.startsWith(annotationPrefix)) {
      ignored.push(key);
    }
  }
  if (ignored.length > 0) {
    r.warn(
      Reason.NginxCanaryAnnotationsIgnored,
      `canary Ingress: its routes take every setting from the main Ingress (as in ingress-nginx), so these annotations are ignored: ${ignored.join(', ')}`,
    );
  }
  const behaviour = annotation(ingress, 'affinity-canary-behavior');
  if (behaviour !== undefined && !['sticky', 'legacy'].includes(behaviour.trim())) r.invalid('affinity-canary-behavior', behaviour, '"sticky", "legacy"', 'using "sticky"');
  const config: NginxCanaryConfig = { ...readWeights(ingress, r), affinityBehavior: behaviour?.trim() === 'legacy' ? 'legacy' : 'sticky' };
  // load-balance is the canary's own in ingress-nginx (its upstream keeps its annotations' balancer).
  const loadBalancer = readNginxBalancing({ ...ingress, metadata: { ...ingress.metadata, annotations: pick(ingress, 'load-balance') } }, diagnostics, false).loadBalancer;
  if (loadBalancer !== undefined) config.loadBalancer = loadBalancer;
  const header = readHeader(ingress, r);
  if (header !== undefined) config.header = header;
  const cookieText = annotation(ingress, 'canary-by-cookie');
  if (cookieText !== undefined && cookieText.trim() !== '') {
    const cookie = parseCookieName(cookieText);
    if (cookie === undefined) r.invalid('canary-by-cookie', cookieText, 'a cookie name', 'no request is routed by cookie');
    else config.cookie = cookie;
  }
  if (ingress.spec?.defaultBackend !== undefined) {
    r.warn(Reason.UnsupportedNginxAnnotation, `canary Ingress: spec.defaultBackend is not used (a canary of the default backend is not supported); only its rules' paths are canaries`);
  }
  return config;
}

/**
 * Splits our Ingresses (oldest first) into main ones and canaries, reading each canary's settings. Only Ingresses
 * whose nginx annotations are read (`nginxAnnotations`) can be canaries.
 */
export function partitionNginxCanaries(
  ingresses: readonly Ingress[],
  diagnostics: Diagnostic[],
  nginxAnnotations: (ingress: Ingress) => boolean,
): { mains: Ingress[]; canaries: NginxCanary[] } {
  const mains: Ingress[] = [];
  const canaries: NginxCanary[] = [];
  for (const ingress of ingresses) {
    if (isNginxCanary(ingress) && nginxAnnotations(ingress)) canaries.push({ ingress, config: readNginxCanary(ingress, diagnostics) });
    else mains.push(ingress);
  }
  return { mains, canaries };
}

export interface CanaryContext {
  services: ServiceIndex;
  /** Clusters by name; the canaries' clusters are added. */
  clusters: Map<string, ClusterIR>;
  diagnostics: Diagnostic[];
  allowExternalName: boolean;
  /** Parsed annotations of the main Ingresses, by refKey (the canary's cluster gets the main's cluster settings). */
  annotations: ReadonlyMap<string, IngressAnnotations>;
  /** The main (non-canary) Ingresses: a canary path joins only a main path written the same way. */
  mains: readonly Ingress[];
}

/** A path as ingress-nginx compares a canary's to its main's: as written, an empty path being "/", no pathType ImplementationSpecific. */
function writtenPath(path: { path?: string; pathType?: string }): { path: string; pathType: string } {
  return { path: path.path === undefined || path.path === '' ? '/' : path.path, pathType: path.pathType ?? 'ImplementationSpecific' };
}

/** The spec path a rule route was built from. */
function mainPathOf(route: RouteIR, mains: ReadonlyMap<string, Ingress>): { path: string; pathType: string } | undefined {
  const { source, rulePath } = route;
  if (source === undefined || rulePath === undefined) return undefined;
  const path = mains.get(refKey(source))?.spec?.rules?.[rulePath.rule]?.http?.paths?.[rulePath.path];
  return path === undefined ? undefined : writtenPath(path);
}

/** Name of an extra route a canary adds before the main route, e.g. `.../rule/0/path/0/canary/cookie-always`. */
export function canaryRouteName(main: RouteIR, suffix: string): string {
  return `${main.name}/canary/${suffix}`;
}

/**
 * The extra routes, in precedence order: a client's affinity to one side (its cookie's backend key, which the
 * affinity script puts in a header: envoy/affinity-cookie.ts), then header, then cookie (the weight is a split on
 * the main route itself). As ingress-nginx's balancer.lua: affinity to the main side, then to the canary's side.
 */
function canaryRoutes(main: RouteIR, config: NginxCanaryConfig, canaryCluster: string, mainCluster: string): RouteIR[] {
  const toCanary: RouteActionIR = { kind: 'forward', cluster: canaryCluster };
  const toMain: RouteActionIR = { kind: 'forward', cluster: mainCluster };
  // A variant is a route of its own (the rule's path is served by the main route), so it has no rulePath.
  const variant = (suffix: string, header: HeaderMatchIR, action: RouteActionIR): RouteIR => {
    const { rulePath: _, ...copy } = cloneRoute(main);
    return { ...copy, name: canaryRouteName(main, suffix), headers: [header], action: { ...action } };
  };
  const routes: RouteIR[] = [];
  const backends = main.policy?.affinityCookie?.backends ?? [];
  for (const [side, cluster, action] of [['main', mainCluster, toMain], ['canary', canaryCluster, toCanary]] as const) {
    const key = backends.find((b) => b.cluster === cluster)?.key;
    if (key !== undefined) routes.push(variant(`affinity-${side}`, { name: affinityBackendHeader, kind: 'exact', value: key }, action));
  }
  const { header, cookie } = config;
  if (header !== undefined) {
    if (header.brokenPattern === true) routes.push(variant('header-pattern-broken', { name: header.name, kind: 'regex', value: '.*' }, toMain));
    else if (header.value !== undefined) routes.push(variant('header-value', { name: header.name, kind: 'exact', value: header.value }, toCanary));
    else if (header.regex !== undefined) routes.push(variant('header-pattern', { name: header.name, kind: 'regex', value: header.regex }, toCanary));
    else {
      routes.push(variant('header-always', { name: header.name, kind: 'exact', value: 'always' }, toCanary));
      routes.push(variant('header-never', { name: header.name, kind: 'exact', value: 'never' }, toMain));
    }
  }
  if (cookie !== undefined) {
    routes.push(variant('cookie-always', cookieHeaderMatch(cookie, 'always'), toCanary));
    routes.push(variant('cookie-never', cookieHeaderMatch(cookie, 'never'), toMain));
  }
  return routes;
}

/**
 * Attaches every canary path (canaries oldest first) to the main route of its host, path and pathType in
 * `virtualHosts`: returns them with the hosts that got a canary replaced by new virtual hosts (new main routes,
 * and the canary's routes before them). A path without such a route, or whose route already has a canary
 * (ingress-nginx applies one per path), is reported and adds nothing.
 */
export function withNginxCanaries(canaries: readonly NginxCanary[], virtualHosts: ReadonlyMap<string, VirtualHostIR>, context: CanaryContext): ReadonlyMap<string, VirtualHostIR> {
  if (canaries.length === 0) return virtualHosts;
  const attached = new Map<string, ObjectRef>();
  // The route lists of the hosts a canary joined: this function's own copies until they go into new virtual hosts.
  const changed = new Map<string, RouteIR[]>();
  const routesOf = (host: string): readonly RouteIR[] => changed.get(host) ?? virtualHosts.get(host)?.routes ?? [];
  const mains = new Map(context.mains.map((m) => [refKey(refOf(m)), m]));
  for (const { ingress, config } of canaries) {
    const ref = refOf(ingress);
    const warn = (reason: string, message: string): void => {
      context.diagnostics.push({ object: ref, severity: 'Warning', reason, message });
    };
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, warn);
      if (host === undefined) return;
      (rule.http?.paths ?? []).forEach((path, j) => {
        const where = `rule ${i} path ${j}`;
        const vhost = virtualHosts.get(host);
        // A main Ingress with regex paths (use-regex, nginx-regex.ts) is joined by the path as written.
        const written = path.path === undefined || path.path === '' ? '/' : path.path;
        let index = routesOf(host).findIndex(
          (route) => route.source !== undefined && route.headers === undefined && route.rulePath !== undefined && route.match.kind === 'regex' && route.match.path === written,
        );
        let what = `host ${host} Regex ${written}`;
        if (index < 0) {
          // An ImplementationSpecific main is an nginx prefix location when the main is read with the nginx layer,
          // an element-wise prefix otherwise: the canary joins either.
          const parsed = parsePath(path.path, path.pathType, true);
          if (!parsed.valid) {
            warn(Reason.InvalidPath, `${where}: ${parsed.error}; path skipped`);
            return;
          }
          const spec = parsePath(path.path, path.pathType);
          const keys = new Set([matchKey(parsed.match), ...(spec.valid ? [matchKey(spec.match)] : [])]);
          what = `host ${host} ${describeMatch(parsed.match)}`;
          index = routesOf(host).findIndex(
            (route) => route.source !== undefined && route.headers === undefined && route.rulePath !== undefined && keys.has(matchKey(route.match)),
          );
        }
        const main = index < 0 ? undefined : routesOf(host)[index];
        if (vhost === undefined || main === undefined || main.source === undefined) {
          warn(
            Reason.NginxCanaryWithoutMain,
            `${where}: no main Ingress serves ${what}; a canary only joins the route of a non-canary Ingress with the same host, path and pathType, so this path is not served`,
          );
          return;
        }
        // ingress-nginx merges a canary into the location of the same path and pathType as written (controller.go
        // mergeAlternativeBackends): Prefix /app does not join ImplementationSpecific /app, nor /app/ join /app.
        const mainPath = mainPathOf(main, mains);
        const canaryPath = writtenPath(path);
        if (mainPath !== undefined && (mainPath.path !== canaryPath.path || mainPath.pathType !== canaryPath.pathType)) {
          warn(
            Reason.NginxCanaryWithoutMain,
            `${where}: Ingress ${main.source.namespace}/${main.source.name} serves ${what} as ${mainPath.pathType} ${mainPath.path}, this canary path is ${canaryPath.pathType} ${canaryPath.path}; as in ingress-nginx a canary joins only the same path and pathType as written, so this path is not served`,
          );
          return;
        }
        const mainKey = `${host} ${main.name}`;
        const earlier = attached.get(mainKey);
        if (earlier !== undefined) {
          warn(
            Reason.NginxCanaryConflict,
            `${where}: ${what} of Ingress ${main.source.namespace}/${main.source.name} already has the canary Ingress ${earlier.namespace}/${earlier.name}, which is older (one canary per path, as in ingress-nginx); path skipped`,
          );
          return;
        }
        if (main.action.kind !== 'forward') {
          warn(
            Reason.NginxCanaryWithoutMain,
            `${where}: the route of Ingress ${main.source.namespace}/${main.source.name} for ${what} does not forward to a backend (${main.action.kind === 'direct' ? `it answers ${main.action.status}` : 'it redirects'}); the canary is not attached`,
          );
          return;
        }
        const resolved: ResolvedBackend = resolveBackend(ingress, path.backend, context.services, where, context.diagnostics, context.allowExternalName);
        if (resolved.cluster === undefined) return;
        // The canary is reached the way the main Ingress reaches its backend (protocol, TLS).
        // A sticky canary of a main Ingress with cookie affinity is balanced as the main one (by the cookie's key);
        // otherwise by its own load-balance, as ingress-nginx keeps the canary upstream's own balancer.
        const affinity = main.policy?.affinityCookie;
        const { loadBalancer, ...withoutBalancer } = context.annotations.get(refKey(main.source))?.cluster ?? {};
        const balancer = affinity !== undefined && config.affinityBehavior === 'sticky' ? loadBalancer : config.loadBalancer;
        const settings = { ...withoutBalancer, ...(balancer === undefined ? {} : { loadBalancer: balancer }) };
        const cluster = Object.keys(settings).length > 0 ? withSettings(resolved.cluster, settings) : resolved.cluster;
        if (cluster.name === main.action.cluster) {
          warn(Reason.NginxCanaryConflict, `${where}: the canary backend is the main route's own backend (${cluster.name}) for ${what}; path skipped`);
          return;
        }
        context.clusters.set(cluster.name, cluster);
        attached.set(mainKey, ref);
        // A sticky canary (the default) sets the main Ingress's cookie with its own backend key, and keeps its clients.
        const sticky: RouteIR =
          affinity !== undefined && config.affinityBehavior === 'sticky'
            ? { ...main, policy: { ...main.policy, affinityCookie: { ...affinity, backends: [...affinity.backends, { cluster: cluster.name, key: nginxBackendKey(cluster.service) }] } } }
            : main;
        const mainCluster = main.action.cluster;
        const extra = canaryRoutes(sticky, config, cluster.name, mainCluster);
        const joined: RouteIR =
          config.weight > 0 ? { ...sticky, action: { kind: 'forward', cluster: mainCluster, split: { backends: [{ cluster: cluster.name, weight: config.weight }], totalWeight: config.totalWeight } } } : sticky;
        const routes = changed.get(host) ?? [...vhost.routes];
        changed.set(host, routes);
        routes.splice(index, 1, ...extra, joined);
      });
    });
  }
  if (changed.size === 0) return virtualHosts;
  const withCanaries = new Map(virtualHosts);
  for (const [host, routes] of changed) {
    const vhost = virtualHosts.get(host);
    if (vhost !== undefined) withCanaries.set(host, { ...vhost, routes });
  }
  return withCanaries;
}
