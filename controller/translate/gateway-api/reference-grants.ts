// ReferenceGrant: whether an object may refer to one in another namespace. The grant lives in the namespace referred
// to, so only that namespace's owners can open it (the Gateway API's multi-tenant rule).
import { namespaceOf } from '../shared/kinds.js';
import type { ReferenceGrant } from '../shared/kube-objects.js';

export interface CrossNamespaceRef {
  from: { group: string; kind: string; namespace: string };
  to: { group: string; kind: string; namespace: string; name: string };
}

/** Whether some grant in the target's namespace lets `ref.from` refer to `ref.to` (a grant's `to` without a name: any). */
export function isGranted(grants: readonly ReferenceGrant[], ref: CrossNamespaceRef): boolean {
  return grants.some(
    (grant) =>
      namespaceOf(grant.metadata) === ref.to.namespace &&
      (grant.spec?.from ?? []).some((f) => f.group === ref.from.group && f.kind === ref.from.kind && f.namespace === ref.from.namespace) &&
      (grant.spec?.to ?? []).some((t) => t.group === ref.to.group && t.kind === ref.to.kind && (t.name === undefined || t.name === '' || t.name === ref.to.name)),
  );
}
