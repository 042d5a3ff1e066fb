import type { ResourceJson } from './resource-types.js';

/** ConfigSource for a resource fetched over the same ADS stream that delivered the resource naming it. */
export function buildAdsConfigSource(): ResourceJson {
  return { ads: {}, resource_api_version: 'V3' };
}
