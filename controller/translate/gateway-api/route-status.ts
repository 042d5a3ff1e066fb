// Route status as data: per parentRef to one of our Gateways, Accepted (or the spec's reason it is not), ResolvedRefs
// (the first backendRef problem's reason) and PartiallyInvalid when some rule or match is not served as written.
import type { ObjectRef } from '../shared/kube-objects.js';
import type { RuleProblem } from './httproute-rules.js';
import type { RouteAttachment } from './route-attachment.js';
import { type RouteStatusData, type StatusCondition, condition } from './status-data.js';

export function routeStatus(ref: ObjectRef, generation: number, attachment: RouteAttachment, problems: readonly RuleProblem[], controllerName: string): RouteStatusData {
  const backendProblems = problems.filter((p) => p.kind === 'backend');
  const ruleProblems = problems.filter((p) => p.kind === 'rule');
  const [firstBackend] = backendProblems;
  const resolvedRefs =
    firstBackend === undefined
      ? condition('ResolvedRefs', 'True', 'ResolvedRefs', 'Resolved all the object references', generation)
      : condition('ResolvedRefs', 'False', firstBackend.reason, backendProblems.map((p) => p.message).join('; '), generation);
  const parents = attachment.parents.map((parent) => {
    const conditions: StatusCondition[] = [
      parent.refusal === undefined
        ? condition('Accepted', 'True', 'Accepted', 'Route accepted', generation)
        : condition('Accepted', 'False', parent.refusal.reason, parent.refusal.message, generation),
      resolvedRefs,
    ];
    if (ruleProblems.length > 0) conditions.push(condition('PartiallyInvalid', 'True', 'UnsupportedValue', ruleProblems.map((p) => p.message).join('; '), generation));
    return { parentRef: parent.parentRef, controllerName, conditions };
  });
  return { ref, parents };
}
