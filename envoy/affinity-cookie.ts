// ingress-nginx cookie affinity (AffinityCookieIR) in Envoy: a Lua filter, disabled on the connection manager and
// enabled per route, does what ingress-nginx's balancer/sticky.lua does with the cookie:
// - request without the cookie: a random key goes in the `x-envoy-ingress-affinity-key` header, which the route's
//   hash policy hashes (ring hash picks the endpoint from it); the Set-Cookie for the answer is prepared;
// - request with the cookie `KEY|BACKEND`: KEY goes in that header (same endpoint as before) and BACKEND in
//   `x-envoy-ingress-affinity-backend`, then the route is chosen again, so the routes matching that header (the main
//   side, a canary side: nginx-canary.ts) win over the canary's header, cookie and weight rules;
// - answer: the route adds `x-envoy-ingress-affinity-cluster: %UPSTREAM_CLUSTER%`, the script removes it and, for a
//   new client, sets `NAME=KEY|BACKEND` with the BACKEND of that cluster, as lua-resty-cookie writes it (Expires,
//   Max-Age, Domain, Path, Secure, HttpOnly, SameSite, in that order). A cluster without a BACKEND sets nothing.
// Envoy's own cookie hash policy cannot do this: it has no Expires date, no Secure only over TLS, no value of ours.
import { affinityBackendHeader, type AffinityCookieIR, affinityHostHeader, affinityKeyHeader } from '../ir/index.js';
import { buildLuaPerRoute, buildLuaSourceFilterConfig, luaReadFilterContext } from './lua-filter.js';
import type { ResourceJson } from './resource-types.js';

export const luaFilterName = 'envoy.filters.http.lua';
const sourceName = 'nginx-affinity';

/** Response header naming the cluster that answered (removed by the script before the client sees it). */
const affinityClusterHeader = 'x-envoy-ingress-affinity-cluster';

// Lua 5.1 (LuaJIT). The dynamic metadata carries what the answer needs from the request. The user-agent checks are
// ingress-nginx's util/same_site.lua.
const script = `
math.randomseed(os.time())
local ns = "envoy-ingress.affinity"
${luaReadFilterContext}
local function cookie_value(header, name)
  if header == nil then return nil end
  for pair in string.gmatch(header, "[^;]+") do
    local k, v = string.match(pair, "^%s*([^=]-)%s*=%s*(.-)%s*$")
    if k == name then return v end
  end
  return nil
end
local function same_site_none_compatible(ua)
  if ua == nil then return true end
  if string.find(ua, "Chrome/4", 1, true) or string.find(ua, "Chrome/5", 1, true) or string.find(ua, "Chrome/6", 1, true) then return false end
  if string.find(ua, "CPU iPhone OS 12", 1, true) or string.find(ua, "iPad; CPU OS 12", 1, true) then return false end
  if string.find(ua, "Macintosh", 1, true) and string.find(ua, "Intel Mac OS X 10_14", 1, true)
    and string.find(ua, "Safari", 1, true) and not string.find(ua, "Chrome", 1, true) then return false end
  return true
end
local function attributes_of(h, ctx, headers)
  local attributes = ""
  if ctx.expires ~= nil then attributes = attributes .. "; Expires=" .. os.date("!%a, %d-%b-%y %H:%M:%S GMT", os.time() + tonumber(ctx.expires)) end
  if ctx.maxAge ~= nil then attributes = attributes .. "; Max-Age=" .. ctx.maxAge end
  if ctx.domain ~= nil then attributes = attributes .. "; Domain=" .. ctx.domain end
  attributes = attributes .. "; Path=" .. ctx.path
  if ctx.secure == true or h:streamInfo():downstreamSslConnection() ~= nil then attributes = attributes .. "; Secure" end
  attributes = attributes .. "; HttpOnly"
  local same_site = ctx.sameSite
  if same_site == "None" and ctx.conditionalSameSiteNone == true and not same_site_none_compatible(headers:get("user-agent")) then same_site = nil end
  if same_site ~= nil then attributes = attributes .. "; SameSite=" .. same_site end
  return attributes
end
-- What the answer needs to set the cookie: its name, attributes and the backend key of each cluster.
local function prepare_cookie(h, ctx, headers, key)
  local md = h:streamInfo():dynamicMetadata()
  md:set(ns, "name", ctx.name)
  if key ~= nil then md:set(ns, "key", key) end
  md:set(ns, "attributes", attributes_of(h, ctx, headers))
  for k, v in pairs(ctx) do
    if string.sub(k, 1, 8) == "backend:" then md:set(ns, k, v) end
  end
end
function envoy_on_request(h)
  local ctx = context(h)
  local headers = h:headers()
  headers:remove("${affinityKeyHeader}")
  headers:remove("${affinityHostHeader}")
  local pinned = headers:get("${affinityBackendHeader}") ~= nil
  headers:remove("${affinityBackendHeader}")
  local value = cookie_value(headers:get("cookie"), ctx.name)
  -- Persistent: KEY is the endpoint (the stateful session filter after this one reads the header); the answer
  -- names the endpoint whenever it is another one (a new client, or its endpoint is gone), and gets a new cookie.
  if ctx.persistent == true then prepare_cookie(h, ctx, headers, nil) end
  if value ~= nil then
    local key, backend = string.match(value, "^([^|]*)|(.*)$")
    if key == nil then key = value end
    if ctx.persistent == true then headers:add("${affinityHostHeader}", key) else headers:add("${affinityKeyHeader}", key) end
    if backend ~= nil and backend ~= "" then
      headers:add("${affinityBackendHeader}", backend)
      h:clearRouteCache()
    elseif pinned then
      h:clearRouteCache()
    end
    return
  end
  if pinned then h:clearRouteCache() end
  if ctx.persistent == true then return end
  local key = string.format("%08x%08x", math.random(0, 2147483647), math.random(0, 2147483647))
  headers:add("${affinityKeyHeader}", key)
  prepare_cookie(h, ctx, headers, key)
end
function envoy_on_response(h)
  local headers = h:headers()
  local cluster = headers:get("${affinityClusterHeader}")
  if cluster == nil then return end
  headers:remove("${affinityClusterHeader}")
  local host = headers:get("${affinityHostHeader}")
  headers:remove("${affinityHostHeader}")
  local md = h:streamInfo():dynamicMetadata():get(ns)
  if md == nil or md.name == nil then return end
  local key = md.key
  if host ~= nil then key = host end
  local backend = md["backend:" .. cluster]
  if key == nil or backend == nil then return end
  headers:add("set-cookie", md.name .. "=" .. key .. "|" .. backend .. md.attributes)
end
`;

/** The connection manager's Lua filter (disabled: routes with an affinity cookie enable it). */
export function buildLuaFilterConfig(): ResourceJson {
  return buildLuaSourceFilterConfig(sourceName, script);
}

/** typed_per_filter_config of a route with an affinity cookie: the script and the cookie's settings. */
export function buildAffinityCookiePerRoute(cookie: AffinityCookieIR): ResourceJson {
  const context: ResourceJson = { name: cookie.name, path: cookie.path };
  if (cookie.expiresSeconds !== undefined) context['expires'] = cookie.expiresSeconds;
  if (cookie.maxAgeSeconds !== undefined) context['maxAge'] = String(cookie.maxAgeSeconds);
  if (cookie.domain !== undefined) context['domain'] = cookie.domain;
  if (cookie.sameSite !== undefined) context['sameSite'] = cookie.sameSite;
  if (cookie.conditionalSameSiteNone === true) context['conditionalSameSiteNone'] = true;
  if (cookie.secure === true) context['secure'] = true;
  if (cookie.persistent === true) context['persistent'] = true;
  for (const { cluster, key } of cookie.backends) context[`backend:${cluster}`] = key;
  return buildLuaPerRoute(sourceName, context);
}

export const statefulSessionFilterName = 'envoy.filters.http.stateful_session';
const statefulSessionType = 'type.googleapis.com/envoy.extensions.filters.http.stateful_session.v3.StatefulSession';
const statefulSessionPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.stateful_session.v3.StatefulSessionPerRoute';

/** The connection manager's stateful session filter (disabled: persistent affinity routes enable it). */
export function buildStatefulSessionFilterConfig(): ResourceJson {
  return { '@type': statefulSessionType };
}

/**
 * Persistent affinity: the endpoint is the one the request header names (base64 of its address, put there by the
 * script from the cookie) while it exists, else the balancer's pick, which the answer's header then names.
 */
export function buildStatefulSessionPerRoute(): ResourceJson {
  return {
    '@type': statefulSessionPerRouteType,
    stateful_session: {
      session_state: {
        name: 'envoy.http.stateful_session.header',
        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.http.stateful_session.header.v3.HeaderBasedSessionState', name: affinityHostHeader },
      },
    },
  };
}

/**
 * Upstream HTTP filters of the router when some route carries the script: the affinity headers have done their
 * work once the endpoint is picked (the hash policy reads them before), so the backend does not get them.
 */
export function buildAffinityUpstreamHttpFilters(): ResourceJson[] {
  return [
    {
      name: 'envoy.filters.http.header_mutation',
      typed_config: {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutation',
        mutations: { request_mutations: [{ remove: affinityKeyHeader }, { remove: affinityBackendHeader }] },
      },
    },
    { name: 'envoy.filters.http.upstream_codec', typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec' } },
  ];
}

/** Route fields: the answering cluster's name for the script (a weighted split picks it per request). */
export function buildAffinityCookieResponseHeaders(): ResourceJson[] {
  return [{ header: { key: affinityClusterHeader, value: '%UPSTREAM_CLUSTER%' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }];
}

/** The route's hash policy: the key the script put in the request. */
export function buildAffinityCookieHashPolicy(): ResourceJson {
  return { header: { header_name: affinityKeyHeader } };
}
