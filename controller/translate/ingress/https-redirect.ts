// The redirect of plain HTTP to https (a TLS host's, ingress-nginx's ssl-redirect / force-ssl-redirect): the same
// host and path on https, on the port clients reach the HTTPS listener on.
import type { RedirectIR, RouteActionIR } from '../../../ir/index.js';

export type HttpsRedirectIR = RedirectIR & { scheme: 'https'; host?: undefined };

/** To https on `port` (443, the scheme's default, is left out); `stripTrailingSlash`: ingress-nginx's `/a/` -> `/a`. */
export function httpsRedirect(statusCode: RedirectIR['statusCode'], port: number, stripTrailingSlash = false): HttpsRedirectIR {
  return {
    kind: 'redirect',
    statusCode,
    scheme: 'https',
    ...(port === 443 ? {} : { port }),
    ...(stripTrailingSlash ? { path: { kind: 'strip-trailing-slash' as const } } : {}),
  };
}

/** Whether `action` sends the client to the same host on https. */
export function isHttpsRedirect(action: RouteActionIR): action is HttpsRedirectIR {
  return action.kind === 'redirect' && action.scheme === 'https' && action.host === undefined;
}

/** Whether it also drops a final "/" of the path (ingress-nginx without preserve-trailing-slash). */
export function stripsTrailingSlash(action: RouteActionIR): action is HttpsRedirectIR & { path: { kind: 'strip-trailing-slash' } } {
  return isHttpsRedirect(action) && action.path?.kind === 'strip-trailing-slash';
}
