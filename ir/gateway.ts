// The whole desired data plane state, the root of the IR.
import type { BasicAuthUsersIR } from './auth.js';
import type { ClusterIR, FallbackClusterIR } from './cluster.js';
import type { TlsPassthroughIR, TlsSecretIR, TlsServerIR } from './tls.js';
import type { RouteTableIR } from './virtual-host.js';

/** Connection manager settings of both listeners. */
export interface ListenerSettingsIR {
  /** Envoy writes no Server header of its own; a backend's passes unless the route removes it (server-tokens). */
  serverHeaderPassThrough?: boolean;
  /** One proxy in front is trusted: its X-Forwarded-For and X-Forwarded-Proto are believed (use-forwarded-headers). */
  trustForwardedHeaders?: boolean;
}

/** The whole desired data plane state. Lists are sorted by name so equal inputs give equal output. */
export interface GatewayIR {
  /** Routes for the plaintext listener (TLS hosts redirect to https here unless switched off). */
  http: RouteTableIR;
  /** TLS filter chains of the HTTPS listener; empty means the HTTPS listener is not created. */
  tlsServers: TlsServerIR[];
  clusters: ClusterIR[];
  secrets: TlsSecretIR[];
  /** SNI names whose TLS connections go unterminated to a backend; absent or empty means none. */
  tlsPassthrough?: TlsPassthroughIR[];
  /** Clusters routes may forward to besides `clusters`; absent or empty means none. */
  fallbackClusters?: FallbackClusterIR[];
  /** Connection manager settings of both listeners that the translation decides (the ingress-nginx ConfigMap). */
  listener?: ListenerSettingsIR;
  /** The users of every basic-auth Secret routes name (BasicAuthIR.usersId), sorted by id; absent means none. */
  basicAuthUsers?: BasicAuthUsersIR[];
}
