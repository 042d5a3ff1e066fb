// The Gateway API's header modifier (RequestHeaderModifier, ResponseHeaderModifier) as the IR's header mutation; a
// rule's filters (route-filters.ts) and a backendRef's (backend-filters.ts) both take it.
import type { HeaderIR, HeaderMutationIR } from '../../../ir/index.js';
import type { HTTPHeaderFilter } from '../shared/kube-objects.js';

/** A RequestHeaderModifier or ResponseHeaderModifier: names lower-cased (HTTP header names are case-insensitive). */
export function headerMutation(filter: HTTPHeaderFilter): HeaderMutationIR {
  const pairs = (list: { name: string; value: string }[] | undefined): HeaderIR[] => (list ?? []).map(({ name, value }) => ({ name: name.toLowerCase(), value }));
  const add = pairs(filter.add);
  return { set: pairs(filter.set), remove: (filter.remove ?? []).map((n) => n.toLowerCase()), ...(add.length > 0 ? { add } : {}) };
}
