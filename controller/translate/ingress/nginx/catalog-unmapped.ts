// The annotations of ingress-nginx's annotations page (docs/user-guide/nginx-configuration/annotations.md, final
// release) that the compatibility layer does not map, each with the reason: the catalog's baseline, so that every
// annotation a migrating user may have has a status and a reason. catalog.ts spreads these first: an entry of its
// own for the same name (once a family maps it) replaces the one here.
import type { NginxAnnotationEntry } from './catalog-entry.js';

/** Why not, and the annotations it applies to. */
const reasons: readonly (readonly [string, readonly string[]])[] = [
  [
    'Set-Cookie headers of the authorization service are not passed to the client',
    ['auth-always-set-cookie'],
  ],
  [
    'Envoy keeps and reuses connections to the authorization service by itself',
    ['auth-keepalive-requests', 'auth-keepalive-share-vars', 'auth-keepalive-timeout'],
  ],
  [
    'Envoy streams request bodies (there is no body buffer to size); proxy-body-size limits them',
    ['client-body-buffer-size'],
  ],
  [
    'the headers of a ConfigMap are not added to responses; use envoy-ingress.io/response-headers-set',
    ['custom-headers'],
  ],
  [
    'Envoy has no ModSecurity web application firewall',
    ['enable-modsecurity', 'enable-owasp-core-rules', 'modsecurity-snippet', 'modsecurity-transaction-id'],
  ],
  [
    'tracing is not configured per Ingress',
    ['enable-opentelemetry', 'opentelemetry-trust-incoming-span'],
  ],
  [
    'nginx rewrite debug logging has no equivalent',
    ['enable-rewrite-log'],
  ],
  [
    'www.<host> (or <host> without www.) gets no redirect to the Ingress host',
    ['from-to-www-redirect'],
  ],
  [
    'HTTP/2 server push is not supported by Envoy (browsers dropped it too)',
    ['http2-push-preload'],
  ],
  [
    'responses are not rate limited per connection',
    ['limit-rate', 'limit-rate-after'],
  ],
  [
    'Envoy streams responses to the client; nginx buffer sizes have no equivalent',
    ['proxy-buffer-size', 'proxy-buffers-number', 'proxy-busy-buffers-size', 'proxy-max-temp-file-size'],
  ],
  [
    'Envoy speaks HTTP/1.1 to backends unless backend-protocol says HTTP/2 (GRPC, GRPCS, H2C)',
    ['proxy-http-version'],
  ],
  [
    'a failed request is not retried on another endpoint by these rules',
    ['proxy-next-upstream', 'proxy-next-upstream-timeout', 'proxy-next-upstream-tries'],
  ],
  [
    'Location headers of the backend reach the client unchanged',
    ['proxy-redirect-from', 'proxy-redirect-to'],
  ],
  [
    'Envoy streams request bodies to the backend, as nginx does with "off"',
    ['proxy-request-buffering'],
  ],
  [
    'an Ingress with both an allow-list and authentication needs both to pass (nginx "satisfy all", the default); "any" is not honoured',
    ['satisfy'],
  ],
  [
    'the aliases get no routes: requests for them are answered as for any unknown host',
    ['server-alias'],
  ],
  [
    'requests go to the Service\'s endpoints, never to its cluster IP',
    ['service-upstream'],
  ],
  [
    'TLS ciphers are those of the HTTPS listener for every host',
    ['ssl-ciphers', 'ssl-prefer-server-ciphers'],
  ],
  [
    'upstream-hash-by-subset is not mapped',
    ['upstream-hash-by-subset-size'],
  ],
];

export const unmappedNginxAnnotations: Readonly<Record<string, NginxAnnotationEntry>> = Object.fromEntries(
  reasons.flatMap(([why, names]) => names.map((name) => [name, { status: 'unsupported', note: `not mapped: ${why}` } satisfies NginxAnnotationEntry])),
);
