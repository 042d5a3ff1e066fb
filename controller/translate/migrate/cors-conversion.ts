// ingress-nginx enable-cors and its cors-* annotations as a Gateway API CORS filter (HTTPCORSFilter), read through
// the nginx layer's own parser (nginx-cors.ts), so the values, their defaults and the invalid ones that fall back are
// those the Ingress serves. Every field is written out, since the filter's defaults are not nginx's (credentials
// false, max-age 5 where nginx has true and 1728000).
// What the filter cannot say is reported, each with its own id:
// - nginx's CORS block is not the CORS protocol: with origin `*` it puts its headers on every response, Origin or
//   not, with Access-Control-Allow-Origin `*`; the filter answers only requests that carry an allowed Origin, and
//   echoes it. A ResponseHeaderModifier with nginx's fixed headers says the rest for origin `*` (the filter then
//   replaces Access-Control-Allow-Origin on requests with an Origin); a list of origins has no fixed headers;
// - nginx answers OPTIONS itself with 204 (any OPTIONS for `*`; an allowed Origin's for a list), the filter answers
//   preflights only (OPTIONS with Origin and Access-Control-Request-Method), and answers a not allowed Origin's
//   preflight itself, without CORS headers, where nginx passes it to the backend;
// - Access-Control-Allow-Methods / -Headers / -Max-Age on the actual requests' answers (nginx), on preflights only
//   (the filter);
// - origin `*` with credentials (nginx's default): browsers refuse nginx's `*` with credentials, the filter would
//   echo every Origin and allow them; written without credentials, so browsers allow what they allowed before;
// - origins the filter cannot name (schemes other than http and https, `null`), and `*.` (one label in nginx, any
//   number for the filter); methods outside the filter's list; max-age below 1.
import type { CorsResponseIR } from '../../../ir/index.js';
import type { HTTPCORSFilter, HTTPRouteFilter, Ingress } from '../shared/kube-objects.js';
import { Annotation } from '../ingress/annotations.js';
import { nginxAnnotationPrefix } from '../ingress/nginx/catalog.js';
import { nginxCorsOrigins } from '../ingress/nginx/nginx-cors.js';
import type { ReportedDifference } from './gateway-migration-report.js';

/** The Gateway API's CORSOrigin pattern (apis/v1/shared_types.go). */
const corsOriginPattern = /(^\*$)|(^(http(s)?):\/\/(((\*\.)?([a-zA-Z0-9-]+\.)*[a-zA-Z0-9-]+|\*)(:([0-9]{1,5}))?)$)/;
/** HTTPMethodWithWildcard's enum. */
const filterMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', '*']);
/** HTTPHeaderName's pattern. */
const headerNamePattern = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;
const maxMethods = 9;
const maxListItems = 64;
const maxInt32 = 2147483647;

/** The difference ids of the CORS conversion. */
export const CorsDifferenceIds = {
  preflight: 'cors-preflight',
  responseHeaders: 'cors-response-headers',
  anyOrigin: 'cors-any-origin',
  anyOriginCredentials: 'cors-any-origin-credentials',
  origin: 'cors-allow-origin',
  methods: 'cors-allow-methods',
  maxAge: 'cors-max-age',
  exposeHeaders: 'cors-expose-headers',
} as const;

export interface CorsConversion {
  filters: HTTPRouteFilter[];
  differences: ReportedDifference[];
}

/** A comma-separated header value as a set of its non-empty items, in order. */
function items(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(',').map((v) => v.trim()).filter((v) => v !== ''))];
}

function headerValue(cors: CorsResponseIR, name: string): string | undefined {
  return cors.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

/**
 * The CORS filter (and, for origin `*`, the ResponseHeaderModifier) of an Ingress whose nginx layer serves `cors`
 * (its mapping's CorsResponseIR), with what still differs; nothing when the Ingress has no CORS.
 */
export function corsConversion(ingress: Ingress, cors: CorsResponseIR | undefined): CorsConversion {
  // This controller's own cors-allow-origins takes precedence on the Ingress (nginx's CORS is not served there).
  if (cors === undefined || ingress.metadata.annotations?.[Annotation.corsAllowOrigins] !== undefined) return { filters: [], differences: [] };
  const differences: ReportedDifference[] = [];
  // Invalid values were reported by the nginx layer already (and fell back as there).
  const origins = nginxCorsOrigins(ingress.metadata.annotations?.[`${nginxAnnotationPrefix}cors-allow-origin`], () => undefined);
  const anyOrigin = origins[0] === '*';
  const nginxCredentials = headerValue(cors, 'Access-Control-Allow-Credentials') === 'true';
  // Origin * with credentials: nginx answers `*` with Access-Control-Allow-Credentials: true, which browsers refuse
  // for a credentialed request (Fetch's CORS check), so no site could send one. A filter allowing `*` with
  // credentials must echo every Origin (the spec) and would let every site do it: it is written without.
  const credentials = nginxCredentials && !anyOrigin;
  const methodsText = headerValue(cors, 'Access-Control-Allow-Methods');
  const headersText = headerValue(cors, 'Access-Control-Allow-Headers');
  const exposeText = headerValue(cors, 'Access-Control-Expose-Headers');
  const maxAge = Number(headerValue(cors, 'Access-Control-Max-Age'));

  // Origins.
  const allowOrigins: string[] = [];
  const unsayable: string[] = [];
  const oneLabel: string[] = [];
  for (const origin of anyOrigin ? ['*'] : origins) {
    // The filter compares origins as sent (browsers send them in lower case); nginx compares case-insensitively.
    const lower = origin.toLowerCase();
    if (!corsOriginPattern.test(lower)) unsayable.push(origin);
    else if (!allowOrigins.includes(lower)) allowOrigins.push(lower);
    if (lower.includes('*.')) oneLabel.push(origin);
  }
  if (allowOrigins.length > maxListItems) unsayable.push(...allowOrigins.splice(maxListItems));
  if (unsayable.length > 0) {
    differences.push({
      id: CorsDifferenceIds.origin,
      message: `the origin${unsayable.length > 1 ? 's' : ''} ${unsayable.join(', ')} cannot be named by a Gateway API CORS filter (only http:// and https:// origins, at most ${maxListItems}): ${allowOrigins.length === 0 ? 'no CORS filter is written, so no request gets CORS headers' : 'requests from there get no CORS headers'}, where ingress-nginx allowed them`,
      action: 'serve those origins\' CORS headers from the backend, or move the application to an http(s) origin',
    });
  }
  if (oneLabel.length > 0) {
    differences.push({
      id: CorsDifferenceIds.origin,
      message: `${oneLabel.join(', ')}: in ingress-nginx "*." stands for exactly one DNS label; in a Gateway API CORS origin "*" matches any number of labels, so deeper origins (a.b.example.com) are allowed now`,
      action: 'none, unless deeper origins must stay out (then list the allowed origins one by one)',
    });
  }
  if (allowOrigins.length === 0) return { filters: [], differences };

  // Methods (nginx writes them as given; the filter takes the RFC 9110 methods, upper case, at most 9).
  const allMethods = items(methodsText);
  const allowMethods = allMethods.filter((m) => filterMethods.has(m)).slice(0, maxMethods);
  const droppedMethods = allMethods.filter((m) => !allowMethods.includes(m));
  if (droppedMethods.length > 0) {
    differences.push({
      id: CorsDifferenceIds.methods,
      message: `cors-allow-methods ${droppedMethods.join(', ')}: not a method a CORS filter can list (${[...filterMethods].join(', ')}, case-sensitive, at most ${maxMethods}); left out of Access-Control-Allow-Methods`,
      action: 'write the methods in upper case, or accept that preflights for them fail',
    });
  }
  const allowHeaders = items(headersText).filter((h) => headerNamePattern.test(h)).slice(0, maxListItems);
  let exposeHeaders = items(exposeText).filter((h) => headerNamePattern.test(h)).slice(0, maxListItems);
  if (credentials && exposeHeaders.includes('*')) {
    exposeHeaders = exposeHeaders.filter((h) => h !== '*');
    differences.push({
      id: CorsDifferenceIds.exposeHeaders,
      message: 'cors-expose-headers "*" with credentials: a Gateway API CORS filter cannot send "*" when it allows credentials (the spec), so only the named headers are exposed',
      action: 'list the headers to expose by name',
    });
  }
  // 0 (nginx: no caching of preflights) or below: the filter's minimum is 1 second.
  const filterMaxAge = Math.min(Math.max(Number.isFinite(maxAge) ? maxAge : 1, 1), maxInt32);
  if (filterMaxAge !== maxAge) {
    differences.push({
      id: CorsDifferenceIds.maxAge,
      message: `cors-max-age ${maxAge}: a Gateway API CORS filter's maxAge is 1 to ${maxInt32} seconds; ${filterMaxAge} is written`,
      action: 'none usually (browsers cap the preflight cache anyway)',
    });
  }

  const filter: HTTPCORSFilter = {
    allowOrigins,
    allowCredentials: credentials,
    ...(allowMethods.length > 0 ? { allowMethods } : {}),
    ...(allowHeaders.length > 0 ? { allowHeaders } : {}),
    ...(exposeHeaders.length > 0 ? { exposeHeaders } : {}),
    maxAge: filterMaxAge,
  };
  const filters: HTTPRouteFilter[] = [{ type: 'CORS', cors: filter }];
  if (anyOrigin) {
    const fixed = cors.headers.filter((h) => h.name !== 'Access-Control-Allow-Credentials');
    const set = [{ name: 'Access-Control-Allow-Origin', value: '*' }, ...fixed.map((h) => ({ name: h.name, value: h.value }))];
    filters.push({ type: 'ResponseHeaderModifier', responseHeaderModifier: { set } });
  }

  differences.push({
    id: CorsDifferenceIds.preflight,
    message: anyOrigin
      ? 'ingress-nginx answers every OPTIONS request of the path itself with 204 and its CORS headers, Origin or not; the CORS filter answers only preflights (OPTIONS with Origin and Access-Control-Request-Method), with 200 and its own headers (Access-Control-Allow-Origin the request\'s Origin, the method and header lists without spaces), and other OPTIONS requests reach the backend'
      : 'ingress-nginx answers the OPTIONS requests of an allowed Origin itself with 204 and its CORS headers, and passes the other origins\' OPTIONS to the backend; the CORS filter answers preflights (OPTIONS with Origin and Access-Control-Request-Method) with 200, an Origin it does not allow too (without CORS headers: the backend never sees that preflight)',
    action: 'none for browsers (a 200 preflight is accepted); if a client relies on 204, or the backend answers OPTIONS requests itself, check it before switching',
  });
  differences.push({
    id: CorsDifferenceIds.responseHeaders,
    message: anyOrigin
      ? 'a ResponseHeaderModifier puts ingress-nginx\'s fixed CORS headers on the rule\'s answers (the backend\'s, and a RoutePolicy\'s 401 too), as nginx does; the CORS filter\'s own preflight answers and the https redirects (a rule of their own) get none, where nginx adds them to every answer of the location'
      : 'ingress-nginx sends Access-Control-Allow-Methods, -Allow-Headers and -Max-Age on every answer to an allowed Origin, its own 401/403 and redirects included; the CORS filter sends them only in its preflight answers, and the https redirects (a rule of their own, without the filter) get no CORS headers',
    action: 'none for browsers (they read those headers only from preflight answers, and a redirect or error is not read by the page)',
  });
  if (anyOrigin) {
    differences.push({
      id: CorsDifferenceIds.anyOrigin,
      message: 'origin "*": to a request with an Origin, ingress-nginx answers Access-Control-Allow-Origin: *, the CORS filter (Envoy\'s) the request\'s Origin; either lets every site make requests without credentials',
      action: 'none for browsers; a client comparing the header with "*" must accept its own Origin',
    });
  }
  if (anyOrigin && nginxCredentials) {
    differences.push({
      id: CorsDifferenceIds.anyOriginCredentials,
      message: 'origin "*" with cors-allow-credentials true (ingress-nginx\'s default): nginx sends Access-Control-Allow-Origin: * with Access-Control-Allow-Credentials: true, which browsers refuse for credentialed requests, so no site could make one. A CORS filter allowing "*" with credentials would answer every Origin by name and let every site make credentialed requests, so it is written with allowCredentials false and Access-Control-Allow-Credentials is no longer sent: browsers allow and refuse the same requests as before',
      action: 'none; to allow credentialed requests, list the trusted origins in cors-allow-origin (or allowOrigins) and set allowCredentials true',
    });
  }
  return { filters, differences };
}
