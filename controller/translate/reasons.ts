// Stable `reason` strings of the diagnostics the translator emits. They become Kubernetes Event reasons and
// metric labels, so they never change once released.
export const Reason = {
  InvalidHost: 'InvalidHost',
  InvalidPath: 'InvalidPath',
  RuleConflict: 'RuleConflict',
  DefaultBackendConflict: 'DefaultBackendConflict',
  ServiceNotFound: 'ServiceNotFound',
  ServicePortNotFound: 'ServicePortNotFound',
  UnsupportedBackend: 'UnsupportedBackend',
  SecretNotFound: 'SecretNotFound',
  SecretInvalid: 'SecretInvalid',
  TlsConflict: 'TlsConflict',
  UnsupportedTls: 'UnsupportedTls',
  InvalidAnnotation: 'InvalidAnnotation',
} as const;

export type Reason = (typeof Reason)[keyof typeof Reason];
