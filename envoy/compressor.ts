// gzip for responses (ingress-nginx's ConfigMap use-gzip): Envoy's compressor filter with the gzip library. The
// settings are controller-wide (one ConfigMap), so they go in the filter of the connection manager, which routes
// enable one by one (the routes of the nginx layer's Ingresses).
import type { CompressionIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';

export const compressorFilterName = 'envoy.filters.http.compressor';
const compressorType = 'type.googleapis.com/envoy.extensions.filters.http.compressor.v3.Compressor';
const compressorPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.compressor.v3.CompressorPerRoute';
const gzipType = 'type.googleapis.com/envoy.extensions.compression.gzip.compressor.v3.Gzip';

/** The filter's config: what nginx's gzip_comp_level, gzip_min_length and gzip_types say. */
export function buildCompressorFilterConfig(compression: CompressionIR): ResourceJson {
  return {
    '@type': compressorType,
    response_direction_config: {
      common_config: { min_content_length: compression.minLength, content_type: [...compression.contentTypes] },
    },
    compressor_library: {
      name: 'gzip',
      typed_config: { '@type': gzipType, compression_level: `COMPRESSION_LEVEL_${compression.level}` },
    },
  };
}

/** Per route: enables the filter (disabled in the connection manager) with its own settings. */
export function buildCompressorPerRoute(): ResourceJson {
  return { '@type': compressorPerRouteType, overrides: { response_direction_config: {} } };
}
