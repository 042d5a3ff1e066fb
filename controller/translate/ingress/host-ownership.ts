// Host ownership between namespaces (issue 25, "tenant isolation"): the namespace of the oldest Ingress that routes
// a host owns it (the Ingress spec's "oldest wins", applied per host rather than per path). Rules and TLS entries
// of other namespaces for that host are refused before anything else reads the Ingresses, so nothing downstream
// (rules, TLS, https redirects, default backends, the nginx layer's canaries and host-wide annotations) can let one
// tenant take over or reshape another tenant's host. Refused parts leave holes in `spec.rules` / `spec.tls` (sparse
// arrays), so every remaining rule and entry keeps its index: route names and diagnostics do not move.
// --allow-cross-namespace-hosts (TranslateOptions.allowCrossNamespaceHosts) keeps the merge across namespaces that
// ingress-nginx does, for single-tenant clusters.
import type { Diagnostic } from '../shared/diagnostics.js';
import { parseHost } from '../shared/hostname.js';
import { namespaceOf } from '../shared/kinds.js';
import { type Ingress, type ObjectRef, refOf } from '../shared/kube-objects.js';
import { Reason } from '../shared/reasons.js';

export interface HostOwner {
  namespace: string;
  /** The oldest Ingress of that namespace that routes the host. */
  ingress: ObjectRef;
}

export interface OwnedIngresses {
  /** The Ingresses in the same order, each without its rules and TLS hosts for hosts of other namespaces. */
  ingresses: Ingress[];
  /** Owner of every host a rule names (host-less rules are not owned: they serve hosts no rule names). */
  owners: ReadonlyMap<string, HostOwner>;
}

const canaryAnnotation = 'nginx.ingress.kubernetes.io/canary';

/**
 * A canary Ingress only joins its host's main routes: it claims a host only when no other Ingress routes it, so an
 * older canary cannot take a host from the Ingress it is meant to join.
 */
function isCanary(ingress: Ingress): boolean {
  return ingress.metadata.annotations?.[canaryAnnotation] === 'true';
}

function ruleHostOf(host: string | undefined): string | undefined {
  if (host === undefined || host === '') return undefined;
  const parsed = parseHost(host);
  return parsed.valid ? parsed.host : undefined;
}

/** The owner of every host a rule of `ingresses` (oldest first) names. */
export function hostOwners(ingresses: readonly Ingress[]): Map<string, HostOwner> {
  const owners = new Map<string, HostOwner>();
  for (const canaries of [false, true]) {
    for (const ingress of ingresses) {
      if (isCanary(ingress) !== canaries) continue;
      for (const rule of ingress.spec?.rules ?? []) {
        const host = ruleHostOf(rule?.host);
        if (host !== undefined && !owners.has(host)) owners.set(host, { namespace: namespaceOf(ingress.metadata), ingress: refOf(ingress) });
      }
    }
  }
  return owners;
}

const optOut = 'a host takes rules, TLS entries and host-wide annotations only from the namespace that owns it (--allow-cross-namespace-hosts merges namespaces)';

/** `ingresses` (oldest first) with every part naming a host of another namespace refused, and a diagnostic on both sides. */
export function enforceHostOwnership(ingresses: readonly Ingress[], diagnostics: Diagnostic[]): OwnedIngresses {
  const owners = hostOwners(ingresses);
  const told = new Set<string>();
  const tellOwner = (owner: HostOwner, host: string, refused: ObjectRef): void => {
    const key = `${owner.ingress.namespace}/${owner.ingress.name} ${host} ${refused.namespace}/${refused.name}`;
    if (told.has(key)) return;
    told.add(key);
    diagnostics.push({
      object: owner.ingress,
      severity: 'Warning',
      reason: Reason.HostOwnedByOtherNamespace,
      message: `host ${host}: Ingress ${refused.namespace}/${refused.name} of namespace ${refused.namespace} also names it; refused there, namespace ${owner.namespace} owns the host (this Ingress is the oldest to route it)`,
    });
  };
  const result = ingresses.map((ingress) => {
    const namespace = namespaceOf(ingress.metadata);
    const ref = refOf(ingress);
    const foreign = (host: string | undefined): HostOwner | undefined => {
      const owner = host === undefined ? undefined : owners.get(host);
      return owner !== undefined && owner.namespace !== namespace ? owner : undefined;
    };
    const refuse = (where: string, host: string, owner: HostOwner): void => {
      diagnostics.push({
        object: ref,
        severity: 'Warning',
        reason: Reason.HostOwnedByOtherNamespace,
        message: `${where}: host ${host} belongs to namespace ${owner.namespace} (Ingress ${owner.ingress.namespace}/${owner.ingress.name} is the oldest to route it); refused: ${optOut}`,
      });
      tellOwner(owner, host, ref);
    };
    const rules = ingress.spec?.rules;
    let keptRules: typeof rules;
    rules?.forEach((rule, i) => {
      const host = ruleHostOf(rule.host);
      const owner = foreign(host);
      if (owner === undefined || host === undefined) return;
      refuse(`rule ${i}`, host, owner);
      keptRules ??= [...rules];
      delete keptRules[i]; // a hole: the other rules keep their index
    });
    const tls = ingress.spec?.tls;
    let keptTls: typeof tls;
    tls?.forEach((entry, i) => {
      const hosts = entry.hosts ?? [];
      const kept = hosts.filter((raw) => {
        const host = ruleHostOf(raw);
        const owner = foreign(host);
        if (owner === undefined || host === undefined) return true;
        refuse(`tls ${i}`, host, owner);
        return false;
      });
      if (kept.length === hosts.length) return;
      keptTls ??= [...tls];
      // An entry left without hosts would become the default certificate: a hole instead.
      if (kept.length === 0) delete keptTls[i];
      else keptTls[i] = { ...entry, hosts: kept };
    });
    if (keptRules === undefined && keptTls === undefined) return ingress;
    return { ...ingress, spec: { ...ingress.spec, ...(keptRules === undefined ? {} : { rules: keptRules }), ...(keptTls === undefined ? {} : { tls: keptTls }) } };
  });
  return { ingresses: result, owners };
}
