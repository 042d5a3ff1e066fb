// ingress-nginx upstream-hash-by and load-balance (compatibility layer), in ingress-nginx's precedence
// (balancer.lua get_implementation): cookie affinity (nginx-affinity.ts), else upstream-hash-by (consistent hash of
// the nginx variables' values: ring hash over the same values here), else load-balance (round_robin; ewma, which
// Envoy has not: least request, the balancer that also prefers the endpoints answering fastest).
import type { HashPolicyIR, LoadBalancerIR } from '../../../../ir/index.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';

/** Names (after the prefix) this module reads. */
export const nginxBalancingAnnotations = ['upstream-hash-by', 'load-balance'] as const;

export interface NginxBalancing {
  hashPolicies?: HashPolicyIR[];
  loadBalancer?: LoadBalancerIR;
}

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

/** One nginx variable -> where Envoy finds the same value, or undefined when it has no equivalent. */
function variablePolicy(variable: string): HashPolicyIR | undefined {
  const name = variable.toLowerCase();
  if (name === 'remote_addr' || name === 'binary_remote_addr') return { kind: 'source-ip' };
  if (name === 'request_uri') return { kind: 'header', name: ':path' };
  // $uri: the path without the query (nginx also decodes and normalises it; Envoy normalises before routing).
  if (name === 'uri' || name === 'document_uri') return { kind: 'header', name: ':path', stripQuery: true };
  if (name === 'host' || name === 'http_host') return { kind: 'header', name: ':authority' };
  if (name === 'scheme') return { kind: 'header', name: ':scheme' };
  if (name === 'request_method') return { kind: 'header', name: ':method' };
  const header = /^http_([a-z0-9_]+)$/.exec(name);
  if (header !== null) return { kind: 'header', name: (header[1] as string).replaceAll('_', '-') };
  const cookie = /^cookie_([A-Za-z0-9_\-.]+)$/.exec(variable);
  if (cookie !== null) return { kind: 'cookie', name: cookie[1] as string };
  const arg = /^arg_([A-Za-z0-9_\-.]+)$/.exec(variable);
  if (arg !== null) return { kind: 'query-parameter', name: arg[1] as string };
  return undefined;
}

/**
 * upstream-hash-by: the nginx variables of the value (`$request_uri`, `$host$uri`, `${http_x_user}`...), each one a
 * hash policy; Envoy combines them into one key, as nginx hashes their concatenation. Literal text between them
 * changes no grouping and is dropped. Undefined (and reported) when a variable has no Envoy equivalent.
 */
export function parseUpstreamHashBy(value: string): { policies: HashPolicyIR[] } | { unknown: string[] } {
  const variables = [...value.matchAll(/\$(?:\{(\w+)\}|(\w+))/g)].map((m) => (m[1] ?? m[2]) as string);
  if (variables.length === 0) return { unknown: [value] };
  const unknown = variables.filter((v) => variablePolicy(v) === undefined);
  if (unknown.length > 0) return { unknown: unknown.map((v) => `$${v}`) };
  const policies: HashPolicyIR[] = [];
  for (const policy of variables.map((v) => variablePolicy(v) as HashPolicyIR)) {
    if (!policies.some((p) => JSON.stringify(p) === JSON.stringify(policy))) policies.push(policy);
  }
  return { policies };
}

/** Reads upstream-hash-by and load-balance; cookie affinity (when set) wins over both, as in ingress-nginx. */
export function readNginxBalancing(ingress: Ingress, diagnostics: Diagnostic[], affinity: boolean): NginxBalancing {
  const report = (message: string): void => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message });
  };
  const hashBy = ingress.metadata.annotations?.[n('upstream-hash-by')];
  const loadBalance = ingress.metadata.annotations?.[n('load-balance')];
  const balancing: NginxBalancing = {};
  if (hashBy !== undefined && hashBy.trim() !== '') {
    const parsed = parseUpstreamHashBy(hashBy.trim());
    if ('unknown' in parsed) {
      report(`annotation ${n('upstream-hash-by')} has invalid value ${JSON.stringify(hashBy.slice(0, 100))}; accepted values: nginx variables with an Envoy equivalent ($remote_addr, $binary_remote_addr, $request_uri, $uri, $host, $scheme, $request_method, $http_NAME, $cookie_NAME, $arg_NAME), not ${parsed.unknown.join(', ')}; requests are not hashed`);
    } else if (affinity) {
      report(`annotation ${n('upstream-hash-by')} ignored: ${n('affinity')} "cookie" is set and takes precedence`);
    } else {
      balancing.hashPolicies = parsed.policies;
    }
  }
  if (loadBalance !== undefined) {
    const algorithm = loadBalance.trim();
    const policy: LoadBalancerIR | 'round-robin' | undefined = algorithm === 'round_robin' ? 'round-robin' : algorithm === 'ewma' ? 'least-request' : undefined;
    if (policy === undefined) report(`annotation ${n('load-balance')} has invalid value ${JSON.stringify(loadBalance.slice(0, 100))}; accepted values: "round_robin", "ewma"; using "round_robin"`);
    else if (affinity || balancing.hashPolicies !== undefined) {
      report(`annotation ${n('load-balance')} ignored: ${affinity ? `${n('affinity')} "cookie"` : n('upstream-hash-by')} is set and takes precedence`);
    } else if (policy !== 'round-robin') balancing.loadBalancer = policy;
  }
  if (balancing.hashPolicies !== undefined) balancing.loadBalancer = 'ring-hash';
  return balancing;
}
