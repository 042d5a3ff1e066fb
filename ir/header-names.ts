// Header names the translator writes into the IR and the Envoy builders read back, agreed on in one place.

/** Header the original request's Host travels in (to a default backend or error page; ingress-nginx's X-Forwarded-Host). */
export const forwardedHostHeader = 'x-forwarded-host';

/** Request header carrying the client's affinity key, which the route's hash policy reads. */
export const affinityKeyHeader = 'x-envoy-ingress-affinity-key';
/** Request header carrying the client's endpoint in persistent mode (base64 of its address, Envoy stateful session). */
export const affinityHostHeader = 'x-envoy-ingress-affinity-host';
/** Request header carrying the backend part of the client's cookie (routes pin a client to a canary's side by it). */
export const affinityBackendHeader = 'x-envoy-ingress-affinity-backend';
