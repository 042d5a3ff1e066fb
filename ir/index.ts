// The IR: plain data between the translator (controller/translate/) and the Envoy builders (envoy/). It knows
// neither Kubernetes nor Envoy types; every node carries a deterministic name and, where it came from an object,
// that object's reference (SourceRef) so problems can be reported on it.
export * from './auth.js';
export * from './cidr.js';
export * from './cluster.js';
export * from './data-plane.js';
export * from './header-names.js';
export * from './listener.js';
export * from './ordering.js';
export * from './route-policy.js';
export * from './route.js';
export * from './secret-text.js';
export * from './source.js';
export * from './tcp.js';
export * from './tls.js';
export * from './virtual-host.js';
