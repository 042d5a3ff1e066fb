// The 404 page as Envoy's own "no route" reply instead of a route in every virtual host. Without a default
// backend, every virtual host ends in the same fallback route (a 404 with the --not-found-page HTML); Envoy
// rebuilds every route of a table on each change, and those direct responses (a body and a header each) were
// a large part of that work. A request no route matches gets Envoy's 404 (response flag NR) anyway; the
// connection managers' local reply mapper gives it the same body and content type.
import { fallbackRouteName, type RouteIR, type RouteTableIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';
import { catchAllOf } from './virtual-host.js';

/** The response of the translator's 404 fallback route. */
export interface NotFoundReply {
  body: string;
  contentType: string | undefined;
}

/** The fallback route as the translator makes it without a default backend: the 404 page for any path. */
function isNotFoundFallback(route: RouteIR | undefined): route is RouteIR & { action: { kind: 'direct'; body: string } } {
  return (
    route !== undefined &&
    route.name === fallbackRouteName &&
    route.action.kind === 'direct' &&
    route.action.status === 404 &&
    route.action.body !== undefined &&
    route.match.kind === 'prefix' &&
    route.match.path === '/' &&
    route.headers === undefined &&
    route.policy === undefined
  );
}

/** The 404 reply the table's catch-all (plain HTTP's, for a pair) ends with, if it ends with the translator's 404 fallback. */
export function notFoundReplyOf(table: RouteTableIR): NotFoundReply | undefined {
  const routes = catchAllOf(table.virtualHosts)?.routes ?? [];
  const last = routes[routes.length - 1];
  return isNotFoundFallback(last) ? { body: last.action.body, contentType: last.action.contentType } : undefined;
}

/** Whether `route` is the 404 fallback answering exactly `reply` (the same page: Envoy's reply can stand in). */
export function answersNotFound(route: RouteIR | undefined, reply: NotFoundReply | undefined): boolean {
  return reply !== undefined && isNotFoundFallback(route) && route.action.body === reply.body && route.action.contentType === reply.contentType;
}

/** HttpConnectionManager.local_reply_config: Envoy's "no route" 404 with the page's body and content type. */
export function buildNotFoundLocalReply(reply: NotFoundReply): ResourceJson {
  return {
    mappers: [
      {
        filter: { response_flag_filter: { flags: ['NR'] } },
        body: { inline_string: reply.body },
        body_format_override: {
          text_format_source: { inline_string: '%LOCAL_REPLY_BODY%' },
          ...(reply.contentType === undefined ? {} : { content_type: reply.contentType }),
        },
      },
    ],
  };
}
