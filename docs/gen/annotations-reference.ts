// The reference of our own annotations: the names are the controller's (`Annotation` in
// controller/translate/ingress/annotations.ts, in its order); what each accepts and does is written here, once per
// annotation. The page generator refuses an annotation of the code without a description, or a description of an
// annotation the code does not read, so neither can be added without the other.
import { Annotation } from '../../controller/translate/ingress/annotations.js';
import { annotationPrefix } from '../../controller/translate/shared/options.js';
import { code, page, table } from './markdown.js';

interface AnnotationDoc {
  /** Markdown, one table cell. */
  values: string;
  default: string;
  effect: string;
}

/** By the name after the prefix. */
export const annotationDocs: Readonly<Record<string, AnnotationDoc>> = {
  "ssl-redirect": {
    values: "`\"true\"`, `\"false\"`",
    default: "`\"true\"`",
    effect: "plain HTTP to the Ingress's TLS hosts is redirected (301) to HTTPS; a host redirects unless every Ingress contributing to it says `\"false\"`",
  },
  "https-only": {
    values: "`\"true\"`, `\"false\"`",
    default: "`\"false\"`",
    effect: "plain-HTTP requests to this Ingress's routes get **403** `HTTPS required` instead of a redirect (clients that sent a secret over plain HTTP should fail loudly, not be silently redirected); HTTPS is served as usual. Applies even to hosts without TLS (they then have no way in but a default certificate)",
  },
  "force-ssl-redirect": {
    values: "`\"true\"`, `\"false\"`",
    default: "`\"false\"`",
    effect: "plain HTTP to this Ingress's routes is redirected (301) to HTTPS even when the Ingress has no `tls` entry (TLS ends with the default certificate or in front of Envoy); `https-only` wins over it",
  },
  "request-timeout": {
    values: "`\"0\"` (none) or a number with `ms`, `s`, `m`, `h`: `\"30s\"`, `\"500ms\"`, `\"1.5m\"`",
    default: "Envoy's 15s",
    effect: "whole-request timeout; 504 `upstream request timeout`",
  },
  "idle-timeout": {
    values: "as `request-timeout`",
    default: "listener default (5 min)",
    effect: "longest time a request stream may be idle; 504 `stream timeout`",
  },
  "retry-on": {
    values: "comma list of `5xx`, `gateway-error`, `reset`, `reset-before-request`, `connect-failure`, `retriable-4xx`, `refused-stream`, `envoy-ratelimited`, `http3-post-connect-failure`",
    default: "`5xx` (when any retry annotation is set)",
    effect: "conditions to retry on",
  },
  "retry-count": {
    values: "`0` to `10`",
    default: "`1` (when any retry annotation is set)",
    effect: "retries per request; `0` turns retries off",
  },
  "retry-per-try-timeout": {
    values: "as `request-timeout`",
    default: "none",
    effect: "timeout of each try",
  },
  "rewrite-prefix": {
    values: "a path starting with `/` (no `?`, `#`, `\\`, spaces)",
    default: "unchanged",
    effect: "replaces the part of the path the rule matched: with path `/api`, `\"/\"` sends `/api/users?q=1` as `/users?q=1` and `/api` as `/`; `\"/v2\"` sends `/api/users` as `/v2/users`. For `Exact` paths the whole path is replaced",
  },
  "backend-protocol": {
    values: "`http` (HTTP/1.1), `https` (HTTP/1.1 over TLS), `h2c` (HTTP/2 cleartext, prior knowledge), `h2` (HTTP/2 over TLS, ALPN `h2`); case-insensitive",
    default: "`http`",
    effect: "how Envoy talks to the endpoints. The upstream certificate is **not verified** (endpoints are Pod IPs)",
  },
  "backend-sni": {
    values: "a DNS name",
    default: "none",
    effect: "SNI sent to TLS backends (needs `backend-protocol` `https` or `h2`)",
  },
  "load-balancer": {
    values: "`round-robin`, `least-request`, `ring-hash`, `maglev`, `random`",
    default: "`round-robin` (`ring-hash` when `hash-by` is set)",
    effect: "endpoint choice",
  },
  "hash-by": {
    values: "`header:NAME`, `cookie:NAME`, `source-ip`",
    default: "none",
    effect: "session affinity for `ring-hash`/`maglev`: same header value, cookie or client address -> same endpoint. With `cookie:` Envoy sets the cookie (session cookie, path `/`) when the request has none",
  },
  "allowed-source-cidrs": {
    values: "comma list of IPs and CIDRs, IPv4 or IPv6: `\"10.0.0.0/8, 192.168.1.7, 2001:db8::/32\"`",
    default: "everybody",
    effect: "other clients get 403. The client is Envoy's downstream remote address: the **connecting address** by default (`use_remote_address` on, `--xff-num-trusted-hops 0`, so a forged `X-Forwarded-For` changes nothing; behind a load balancer that is the balancer's address); with `--xff-num-trusted-hops N` it is the address that many trusted proxies reported in `X-Forwarded-For`. **An invalid list denies everybody** (reported): a typo must not open the routes",
  },
  "max-request-body-size": {
    values: "bytes, optionally `k`, `m`, `g` (or `Ki`, `Mi`, `Gi`; all powers of 1024), 1 to 4294967295: `\"8m\"`",
    default: "no limit",
    effect: "larger bodies get 413; the body is buffered before it is forwarded",
  },
  "request-headers-set": {
    values: "one `Name: value` per line (not `host` or `:pseudo`)",
    default: "none",
    effect: "set on the request sent upstream, replacing any client value; values are literal (`%` included)",
  },
  "request-headers-remove": {
    values: "comma list of header names",
    default: "none",
    effect: "removed from the request sent upstream",
  },
  "response-headers-set": {
    values: "as `request-headers-set`",
    default: "none",
    effect: "set on the response to the client",
  },
  "response-headers-remove": {
    values: "as `request-headers-remove`",
    default: "none",
    effect: "removed from the response to the client",
  },
  "cors-allow-origins": {
    values: "`*` or comma list of origins `https://app.example.com[:port]`, `https://*.example.com` (one label)",
    default: "CORS off",
    effect: "turns CORS on; preflights are answered by Envoy (never sent to the backend), the allowed origin echoed back, another origin getting no CORS headers",
  },
  "cors-allow-methods": {
    values: "comma list of methods",
    default: "`GET, PUT, POST, DELETE, PATCH, OPTIONS`",
    effect: "`access-control-allow-methods`",
  },
  "cors-allow-headers": {
    values: "comma list of header names",
    default: "`DNT, Keep-Alive, User-Agent, X-Requested-With, If-Modified-Since, Cache-Control, Content-Type, Range, Authorization`",
    effect: "`access-control-allow-headers`",
  },
  "cors-expose-headers": {
    values: "comma list of header names",
    default: "none",
    effect: "`access-control-expose-headers`",
  },
  "cors-allow-credentials": {
    values: "`\"true\"`, `\"false\"`",
    default: "`\"false\"`",
    effect: "`access-control-allow-credentials`",
  },
  "cors-max-age": {
    values: "whole seconds",
    default: "none",
    effect: "`access-control-max-age`",
  },};

/** The annotations the controller reads, without the prefix, in the code's order. */
export function ourAnnotationNames(): string[] {
  return Object.values(Annotation).map((full) => {
    if (!full.startsWith(annotationPrefix)) throw new Error(`${full} is not under ${annotationPrefix}`);
    return full.slice(annotationPrefix.length);
  });
}

export function annotationsReferencePage(): string {
  const names = ourAnnotationNames();
  const undocumented = names.filter((n) => !Object.hasOwn(annotationDocs, n));
  const unknown = Object.keys(annotationDocs).filter((n) => !names.includes(n));
  if (undocumented.length > 0) throw new Error(`annotations without a description in docs/gen/annotations-reference.ts: ${undocumented.join(', ')}`);
  if (unknown.length > 0) throw new Error(`docs/gen/annotations-reference.ts describes annotations the controller does not read: ${unknown.join(', ')}`);
  const rows = names.map((n) => {
    const d = annotationDocs[n]!;
    return [code(`${annotationPrefix}${n}`), d.values, d.default, d.effect];
  });
  return page(
    '`Annotation` in `controller/translate/ingress/annotations.ts` (names) and `docs/gen/annotations-reference.ts` (descriptions)',
    'Annotations',
    `Every annotation of this controller (${names.length}), all under the prefix ${code(annotationPrefix)}. ` +
      'Every value is validated: an invalid one gets an `InvalidAnnotation` diagnostic naming the annotation and the accepted form, ' +
      'and only that setting falls back to its default. Values longer than 16 KiB are refused. ' +
      'How they combine, their scope and an example: [the Annotations guide](../guides/annotations.md). ' +
      'ingress-nginx annotations: [their own reference](./nginx-annotations.md).',
    table(['Annotation', 'Accepted values', 'Default', 'Effect'], rows),
  );
}
