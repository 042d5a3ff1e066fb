// The whole desired data plane state, the root of the IR: listeners (each input API's, grouped by the Envoy
// builders by address and port) and what they share (clusters, certificates, basic-auth users).
import type { BasicAuthUsersIR } from './auth.js';
import type { ClusterIR, FallbackClusterIR } from './cluster.js';
import type { ListenerIR } from './listener.js';
import type { CertificateAuthorityIR, TlsSecretIR } from './tls.js';

/** The whole desired data plane state. Lists are sorted by name so equal inputs give equal output. */
export interface DataPlaneIR {
  /** Every listener, sorted by name; several may share a port (the Envoy builders join them). */
  listeners: ListenerIR[];
  clusters: ClusterIR[];
  /** Certificates with their keys: served certificates, and those presented to backends (UpstreamTlsIR). */
  secrets: TlsSecretIR[];
  /** Trusted CAs that TLS servers and clusters verify peers against, sorted by name; absent or empty means none. */
  certificateAuthorities?: CertificateAuthorityIR[];
  /** Clusters routes may forward to besides `clusters`; absent or empty means none. */
  fallbackClusters?: FallbackClusterIR[];
  /** The users of every basic-auth Secret routes name (BasicAuthIR.usersId), sorted by id; absent means none. */
  basicAuthUsers?: BasicAuthUsersIR[];
}
