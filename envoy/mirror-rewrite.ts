// The upstream filters of a mirror target's cluster (ingress-nginx mirror-target): Envoy's request mirror sends the
// request as it came (path and Host), so a Lua filter on the cluster gives it the Host and path nginx's mirror
// location sends (mirror-host or the target's host; the target's path). Only mirrored requests use this cluster.
import type { MirrorRewriteIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';

/** A Lua string literal (the values are host names and URL paths; escaped all the same). */
function luaString(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&').replace(/[\x00-\x1f\x7f]/g, (c) => `\\${String(c.charCodeAt(0)).padStart(3, '0')}`)}"`;
}

function luaSource(rewrite: MirrorRewriteIR): string {
  const lines = ['function envoy_on_request(h)', `  h:headers():replace(":authority", ${luaString(rewrite.host)})`];
  if (rewrite.path !== undefined || rewrite.pathPrefix !== undefined) {
    lines.push('  local p = h:headers():get(":path") or "/"');
    if (rewrite.path !== undefined) {
      // The request's query follows the target's path, as nginx passes the subrequest's arguments.
      lines.push('  local q = string.find(p, "?", 1, true)', `  h:headers():replace(":path", ${luaString(rewrite.path)} .. (q and string.sub(p, q) or ""))`);
    } else {
      lines.push(`  h:headers():replace(":path", ${luaString(rewrite.pathPrefix ?? '')} .. p)`);
    }
  }
  lines.push('end');
  return lines.join('\n');
}

/** HttpProtocolOptions.http_filters of the cluster: the rewrite, then the codec (which must come last). */
export function buildMirrorUpstreamHttpFilters(rewrite: MirrorRewriteIR): ResourceJson[] {
  return [
    {
      name: 'envoy.filters.http.lua',
      typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua', default_source_code: { inline_string: luaSource(rewrite) } },
    },
    { name: 'envoy.filters.http.upstream_codec', typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec' } },
  ];
}
