// Incremental translation: when only some Ingresses changed, translate just the Ingresses that share a host with
// them (transitively) and splice their virtual hosts into the previous result, instead of translating every
// Ingress again. Exact, not approximate: every input of a host's virtual host, TLS filter chain and certificate is
// an Ingress contributing to that host (rules or TLS), a Service or Secret they name, or something global
// (classes, the default backend, options), so a set of Ingresses closed under sharing hosts translates to the same
// virtual hosts and TLS chains alone as among all others (a changed Service or Secret brings the Ingresses naming
// it). Whatever this cannot prove unchanged (a global input, a host-less rule or TLS entry, ingress-nginx
// annotations) makes it decline, and the caller translates everything. Pure; the host index it keeps is a cache
// of the state.
import type { HostIndex } from './host-index.js';
import { isServedByUs } from './ingress-class.js';
import type { ClusterState, Ingress } from '../shared/kube-objects.js';
import { type TranslateOptions, defaultNamespaceRouteBudget } from '../shared/options.js';
import { unchangedBeyond } from '../shared/unchanged-inputs.js';
import { translateIngresses, type TranslationResult } from './translate-ingresses.js';
import { ingressListenersOf, withIngressServing } from './ingress-listeners.js';
import { clusterUsesAfter, recordClusterUses, spliceClusters } from './cluster-uses.js';
import { hostClosure, updateHostIndex } from './host-closure.js';
import { exceedsRouteBudget } from './namespace-route-budget.js';
import { type Changed, type Changes, changedObjects, maxChanged, reachesBeyondHosts, type Served } from './splice-changes.js';
import { spliceDiagnostics, spliceReferences, spliceSecrets, spliceServedIngresses, spliceTables } from './table-splice.js';

const maxClosureShare = 0.25;

/** What an incremental translation starts from: the previous input and its translation. */
export interface TranslationBase {
  state: ClusterState;
  result: TranslationResult;
  /** Served Ingresses of `state` by host: updated in place to `state`'s successor when a splice succeeds. */
  index: HostIndex;
}

/**
 * The translation of `state`, made from `base` by re-translating only the Ingresses around the changed ones, or
 * undefined when that cannot be shown to equal a full translation (the caller then calls translate()).
 * `references` may keep names a changed Ingress no longer uses until the next full translation: a superset only
 * lets an unrelated Service or Secret event cause a build, it never hides a relevant one.
 */
export function translateIncrementally(base: TranslationBase, state: ClusterState, options: TranslateOptions): TranslationResult | undefined {
  const previous = base.result;
  if (!sameGlobalInputs(base.state, state) || !isSpliceable(previous)) return undefined;
  const changes = changesBetween(base.state, state);
  if (changes === undefined) return undefined;
  const served = (ingress: Ingress | undefined): ingress is Ingress => ingress !== undefined && isServedByUs(ingress, state.ingressClasses, options);
  // A namespace past its route budget loses its newest Ingresses, whatever hosts they are on: not a splice.
  const budget = options.namespaceRouteBudget ?? defaultNamespaceRouteBudget;
  if ([base.state, state].some((s) => exceedsRouteBudget(s.ingresses.filter(served), budget))) return undefined;
  if (!changesStayWithinHosts(changes.ingresses, served)) return undefined;

  const undoIndex = updateHostIndex(base.index, changes.ingresses, served);
  const around = hostClosure(base.index, changes, served, Math.max(maxChanged, state.ingresses.length * maxClosureShare));
  if (around === undefined) {
    undoIndex();
    return undefined;
  }
  const partial = translateAround(state, around.ingresses, served, options);

  const tables = spliceTables(previous, partial, around.hosts);
  const uses = clusterUsesAfter(previous, tables);
  const clusters = spliceClusters(previous, partial, uses, changes.services);
  const secrets = spliceSecrets(previous, partial, tables.tlsServers);
  if (clusters === undefined || secrets === undefined) {
    undoIndex();
    return undefined;
  }
  const result: TranslationResult = {
    ir: withIngressServing(
      { ...previous.ir, clusters, secrets },
      { http: tables.http, https: tables.httpsTable, tlsServers: tables.tlsServers, tlsPassthrough: [], settings: ingressListenersOf(previous.ir).http.settings },
      options,
    ),
    diagnostics: spliceDiagnostics(previous, partial, around.ingresses, changes.ingresses),
    servedIngresses: spliceServedIngresses(previous, changes.ingresses, served),
    references: spliceReferences(previous, changes.ingresses, served),
    httpsTable: tables.httpsTable,
  };
  recordClusterUses(result, uses.counts);
  return result;
}

/**
 * Every input the splice does not take (kinds.ts: those a `routes` build cannot take, such as IngressClasses and the
 * ingress-nginx ConfigMap, which every virtual host may depend on, and any list no kind names) is unchanged.
 */
function sameGlobalInputs(before: ClusterState, after: ClusterState): boolean {
  return unchangedBeyond('routes', before, after);
}

/**
 * Whether the last result has nothing that reaches across hosts (fallback clusters, passthrough, server-name copies)
 * or that the splice does not carry (trusted CAs and the client certificates beside them: the splice keeps the
 * served certificates only).
 */
function isSpliceable(previous: TranslationResult): boolean {
  if ((previous.ir.fallbackClusters?.length ?? 0) > 0 || (ingressListenersOf(previous.ir).https?.tlsPassthrough?.length ?? 0) > 0) return false;
  if ((previous.ir.certificateAuthorities?.length ?? 0) > 0) return false;
  return previous.serverNameCopies !== true;
}

/** The changed Ingresses, Services and Secrets, or undefined when there are none or too many. */
function changesBetween(before: ClusterState, after: ClusterState): Changes | undefined {
  const ingresses = changedObjects(before.ingresses, after.ingresses);
  // A Service changes what the Ingresses naming it translate to (ports, ExternalName), a Secret what those naming
  // it in spec.tls do (TLS chains, redirects, diagnostics): those come along.
  const services = changedObjects(before.services, after.services);
  const secrets = changedObjects(before.secrets, after.secrets);
  if (ingresses === undefined || services === undefined || secrets === undefined) return undefined;
  if (ingresses.size + services.size + secrets.size === 0) return undefined;
  return { ingresses, services, secrets };
}

/** Whether no version of a changed served Ingress reaches beyond its hosts. */
function changesStayWithinHosts(changed: Changed<Ingress>, served: Served): boolean {
  for (const [was, now] of changed.values()) {
    for (const version of [was, now]) if (served(version) && reachesBeyondHosts(version)) return false;
  }
  return true;
}

/**
 * The translation of the closure alone. The default backend is every virtual host's last route: the Ingresses that
 * may provide it come along (their own hosts are not taken from this translation).
 */
function translateAround(state: ClusterState, closure: ReadonlySet<Ingress>, served: Served, options: TranslateOptions): TranslationResult {
  const defaultBackends = state.ingresses.filter((ingress) => ingress.spec?.defaultBackend !== undefined && served(ingress));
  return translateIngresses({ ...state, ingresses: [...closure, ...defaultBackends] }, options);
}
