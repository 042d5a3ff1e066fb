import type { ResourceJson } from './resource-types.js';

// Envoy still holds every safe_regex to RE2's "program size" limit of 100 unless the runtime raises it. The only
// regexes we send are the :authority checks of wildcard virtual hosts (envoy/virtual-host.ts): an escaped copy of
// the host name, so a valid wildcard host of about 90 characters or more crossed the limit, and Envoy rejected
// the whole RouteConfiguration, taking every host down with it. Envoy's limit is one number for every regex, so it
// is lifted entirely (2^32 - 1, as Envoy truncates larger values), as other control planes do (Kuma, Contour), and
// the regexes users write (ingress-nginx use-regex paths, canary header patterns) are capped per pattern by the
// controller instead, with a diagnostic on their Ingress (controller/translate/shared/re2-program-size.ts).
const re2ProgramSizeErrorLevel = 4_294_967_295;

/**
 * The bootstrap's runtime: a static layer lifting the RE2 program size limit, then the admin layer Envoy has by
 * default (so `/runtime_modify` keeps working). Both the served bootstrap and the static one used for
 * `envoy --mode validate` carry it, so validation judges the routes as the serving Envoy will.
 */
export function buildLayeredRuntime(): ResourceJson {
  return {
    layers: [
      { name: 'envoy-ingress', static_layer: { re2: { max_program_size: { error_level: re2ProgramSizeErrorLevel } } } },
      { name: 'admin', admin_layer: {} },
    ],
  };
}
