// Envoy resources as plain objects in proto3 JSON form: snake_case field names as in the .proto files,
// `"@type"` on every nested Any, durations as strings ("5s"), wrapper types as plain numbers/bools. This is the
// form Envoy's YAML/JSON bootstrap and /config_dump use; the proto/ codec turns it into protobuf binary.
// Top-level resources carry no "@type": the xDS layer knows each list's type URL (proto/type-urls.ts).

export type ResourceJson = Record<string, unknown>;

export interface NamedResource {
  name: string;
  resource: ResourceJson;
}

/** Everything the xDS server publishes for one GatewayIR; each list is sorted by name. */
export interface EnvoyResources {
  listeners: NamedResource[];
  routeConfigurations: NamedResource[];
  clusters: NamedResource[];
  clusterLoadAssignments: NamedResource[];
  secrets: NamedResource[];
}

/** Where the data plane listens. */
export interface EnvoyOptions {
  /** IP address the listeners bind, e.g. `0.0.0.0`. */
  listenAddress: string;
  httpPort: number;
  httpsPort: number;
}
