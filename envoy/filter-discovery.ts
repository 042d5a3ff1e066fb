// ECDS (Extension Config Discovery): an HTTP filter whose configuration is its own xDS resource, a
// TypedExtensionConfig named as the filter, fetched over the ADS stream, instead of a copy inline in every
// connection manager. Envoy keeps one subscription per name for all listeners; a listener naming one warms until it
// has arrived. A filter that is disabled runs only where a route enables it, so a missing configuration (none came
// within initial_fetch_timeout) answers 500 on those routes only (Envoy's MissingConfigFilter): it fails closed,
// never runs without its configuration. No default_config: it would be the very copy ECDS saves.
import { TypeUrl } from '../proto/type-urls.js';
import { buildAdsConfigSource } from './config-source.js';
import type { ResourceJson } from './resource-types.js';

/** The ECDS resource of filter `name`: its configuration. */
export function buildTypedExtensionConfig(name: string, typedConfig: ResourceJson): ResourceJson {
  return { '@type': TypeUrl.extensionConfig, name, typed_config: typedConfig };
}

/**
 * An HttpFilter that fetches its configuration (the TypedExtensionConfig `name`, of type `typeUrl`) over ADS,
 * disabled: routes turn it on with typed_per_filter_config under the same name, as they do an inline one.
 */
export function buildDiscoveredHttpFilter(name: string, typeUrl: string): ResourceJson {
  return { name, config_discovery: { config_source: buildAdsConfigSource(), type_urls: [typeUrl] }, disabled: true };
}
