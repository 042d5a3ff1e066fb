// Envoy's Lua filter as the nginx layer uses it: one inline script per filter, disabled on the connection manager
// and enabled per route with LuaPerRoute, whose filter_context carries that route's settings.
import type { ResourceJson } from './resource-types.js';

const luaType = 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua';
const luaPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute';

/**
 * Lua 5.1 (LuaJIT) `context(h)`: the route's filter_context as a table (filterContext() is a userdata that only
 * iterates, so it is read into one).
 */
export const luaReadFilterContext = `local function context(h)
  local t = {}
  for k, v in pairs(h:filterContext()) do t[k] = v end
  return t
end`;

/** The connection manager's Lua filter holding `script` under `sourceName`. */
export function buildLuaSourceFilterConfig(sourceName: string, script: string): ResourceJson {
  return { '@type': luaType, source_codes: { [sourceName]: { inline_string: script } } };
}

/** typed_per_filter_config enabling the script `sourceName` on a route, with `filterContext` as its settings. */
export function buildLuaPerRoute(sourceName: string, filterContext: ResourceJson): ResourceJson {
  return { '@type': luaPerRouteType, name: sourceName, filter_context: filterContext };
}
