// spec.rules of all our Ingresses -> routes per host, settling conflicts by age.
import { catchAllHost, type ClusterIR, type RouteIR } from '../../../ir/index.js';
import { type ResolvedBackend, type ServiceIndex, resolveBackend } from '../shared/backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { parseHost } from '../shared/hostname.js';
import { type Ingress, type IngressRule, type ObjectRef, refOf } from '../shared/kube-objects.js';
import { describeMatch, matchKey, parsePath } from './path-match.js';
import { parseRegexPath } from './path-match-regex.js';
import { describeOwner } from '../shared/owner.js';
import { Reason } from '../shared/reasons.js';

export interface CollectedRules {
  /** Routes per host (`*` for host-less rules), unsorted and without the fallback route. */
  routesByHost: Map<string, RouteIR[]>;
  /** Ingresses with at least one rule for the host (valid or not), oldest first. */
  contributorsByHost: Map<string, Ingress[]>;
}

export function ruleRouteName(ingress: ObjectRef, rule: number, path: number): string {
  return `ingress/${ingress.namespace}/${ingress.name}/rule/${rule}/path/${path}`;
}

/** The host rule `index` routes for (`*` without one), or undefined once an invalid host is reported: skip the rule. */
export function ruleHost(rule: IngressRule, index: number, warn: (reason: string, message: string) => void): string | undefined {
  if (rule.host === undefined || rule.host === '') return catchAllHost;
  const parsed = parseHost(rule.host);
  if (parsed.valid) return parsed.host;
  warn(Reason.InvalidHost, `rule ${index}: ${parsed.error}; rule skipped`);
  return undefined;
}

function addOnce<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/**
 * Collects rule routes. `ingresses` must be oldest first: the first claim of a host + path + pathType wins and
 * later claims get a RuleConflict naming the winner. Only winning paths have their backend resolved, so a loser
 * is reported once, for the conflict. Resolved clusters are added to `clusters`. The paths `regexPaths` says so
 * of (an Ingress on a host) are regular expressions (ingress-nginx use-regex, path-match-regex.ts), whatever
 * their pathType. The ImplementationSpecific paths of an Ingress `nginxPaths` says so of (read with the nginx
 * layer) are nginx prefix locations (character prefixes), as ingress-nginx makes them.
 */
export function collectRules(
  ingresses: readonly Ingress[],
  services: ServiceIndex,
  clusters: Map<string, ClusterIR>,
  diagnostics: Diagnostic[],
  allowExternalName = false,
  regexPaths: (ingress: Ingress, host: string) => boolean = () => false,
  nginxPaths: (ingress: Ingress) => boolean = () => false,
): CollectedRules {
  const routesByHost = new Map<string, RouteIR[]>();
  const contributorsByHost = new Map<string, Ingress[]>();
  const claims = new Map<string, { route: RouteIR; owner: ObjectRef }>();

  for (const ingress of ingresses) {
    const ref = refOf(ingress);
    const warn = (reason: string, message: string): void => {
      diagnostics.push({ object: ref, severity: 'Warning', reason, message });
    };
    (ingress.spec?.rules ?? []).forEach((rule, i) => {
      const host = ruleHost(rule, i, warn);
      if (host === undefined) return;
      addOnce(contributorsByHost, host, ingress);
      const regex = regexPaths(ingress, host);
      (rule.http?.paths ?? []).forEach((path, j) => {
        // Asked only of ImplementationSpecific paths: the class lookup is not paid for Prefix and Exact ones.
        const nginx = path.pathType !== 'Prefix' && path.pathType !== 'Exact' && nginxPaths(ingress);
        const parsed = regex ? parseRegexPath(path.path) : parsePath(path.path, path.pathType, nginx);
        if (!parsed.valid) {
          warn(Reason.InvalidPath, `rule ${i} path ${j}: ${parsed.error}; path skipped`);
          return;
        }
        const name = ruleRouteName(ref, i, j);
        const claimKey = `${host} ${matchKey(parsed.match)}`;
        const winner = claims.get(claimKey);
        if (winner !== undefined) {
          warn(
            Reason.RuleConflict,
            `rule ${i} path ${j}: host ${host} ${describeMatch(parsed.match)} is already claimed by ` +
              `route ${winner.route.name} of ${describeOwner(winner.owner, ref)}; path skipped`,
          );
          return;
        }
        const where = `rule ${i} path ${j}`;
        const resolved: ResolvedBackend = resolveBackend(
          ingress,
          path.backend,
          services,
          where,
          diagnostics,
          allowExternalName,
        );
        if (resolved.cluster !== undefined) clusters.set(resolved.cluster.name, resolved.cluster);
        const route: RouteIR = { name, match: parsed.match, action: resolved.action, source: ref, rulePath: { rule: i, path: j } };
        claims.set(claimKey, { route, owner: ref });
        addOnce(routesByHost, host, route);
      });
    });
  }
  return { routesByHost, contributorsByHost };
}
