// Envoy resources as plain objects in proto3 JSON form: snake_case field names as in the .proto files,
// `"@type"` on every nested Any, durations as strings ("5s"), wrapper types as plain numbers/bools. This is the
// form Envoy's YAML/JSON bootstrap and /config_dump use; the proto/ codec turns it into protobuf binary.
// Top-level resources carry their "@type" too (as in /config_dump), so each one is a self-describing Any.

import type { EdgeHardeningOptions } from './edge-hardening.js';
import type { ResourceJson } from './resource-json.js';

export type { ResourceJson } from './resource-json.js';

export interface NamedResource {
  name: string;
  resource: ResourceJson;
}

/** Everything the xDS server publishes for one DataPlaneIR; each list is sorted by name. */
export interface EnvoyResources {
  listeners: NamedResource[];
  routeConfigurations: NamedResource[];
  clusters: NamedResource[];
  clusterLoadAssignments: NamedResource[];
  secrets: NamedResource[];
  /**
   * ECDS: the configurations of the HTTP filters the connection managers name with `config_discovery`
   * (http-filters.ts); none when no listener has a connection manager (nothing would ask for them).
   */
  extensionConfigs: readonly NamedResource[];
}

/** Where the data plane listens. */
export interface EnvoyOptions {
  /** IP address the listeners bind, e.g. `0.0.0.0`. */
  listenAddress: string;
  httpPort: number;
  httpsPort: number;
  /** Edge-proxy hardening of the connection managers (default: defaultEdgeHardening). */
  edge?: EdgeHardeningOptions;
  /** JSON access log lines on Envoy's stdout (default true). */
  accessLog?: boolean;
  /** With the access log: log the path's query string (default true). */
  accessLogQuery?: boolean;
}
