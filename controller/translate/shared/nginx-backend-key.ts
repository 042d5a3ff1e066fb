// ingress-nginx's key of a backend in its affinity cookie: md5(md5(name) .. name) of the upstream name
// `namespace-service-port`. Both front doors write it (nginx-affinity.ts for Ingresses, rule-route-policy.ts for a
// RoutePolicy's sessionAffinity), so a cookie ingress-nginx made keeps pointing at the same backend after a migration.
import { createHash } from 'node:crypto';
import type { ClusterIR } from '../../../ir/index.js';

/** ingress-nginx's backend key of a Service port: md5(md5(name) .. name) of its upstream name. */
export function nginxBackendKey(service: ClusterIR['service']): string {
  const name = `${service.namespace}-${service.name}-${service.port}`;
  const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
  return md5(md5(name) + name);
}
