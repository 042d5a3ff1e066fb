// CookieRewriteIR (ingress-nginx proxy-cookie-domain / proxy-cookie-path) -> a Lua filter of its own, disabled on
// the connection manager and enabled per route with the rewrites as its filter context. On a response it rewrites
// the Domain and Path attributes of every Set-Cookie as nginx's proxy_cookie_domain / proxy_cookie_path do:
// Domain equal to FROM (case-insensitive, a leading dot kept) becomes TO; a Path starting with FROM (case-sensitive)
// gets TO in place of that start. It sits last before the router, so only the backend's cookies are rewritten (not
// those the affinity filter adds, as nginx's own sticky cookie is not either).
import type { CookieRewriteIR } from '../ir/index.js';
import { buildLuaPerRoute, buildLuaSourceFilterConfig, luaReadFilterContext } from './lua-filter.js';
import type { ResourceJson } from './resource-types.js';

export const cookieRewriteFilterName = 'proxy-cookie-rewrite';
const sourceName = 'nginx-proxy-cookie';

// Lua 5.1 (LuaJIT).
const script = `
${luaReadFilterContext}
local function starts_with(s, prefix) return string.sub(s, 1, #prefix) == prefix end
local function rewrite(cookie, ctx)
  local parts = {}
  local first = true
  for part in string.gmatch(cookie, "[^;]+") do
    if not first then
      local space, name, value = string.match(part, "^(%s*)([^=]-)%s*=%s*(.-)%s*$")
      if name ~= nil then
        local lower = string.lower(name)
        if lower == "domain" and ctx.domainFrom ~= nil then
          local dot = ""
          if string.sub(value, 1, 1) == "." then dot = "." value = string.sub(value, 2) end
          if string.lower(value) == string.lower(ctx.domainFrom) then part = space .. name .. "=" .. dot .. ctx.domainTo end
        elseif lower == "path" and ctx.pathFrom ~= nil and starts_with(value, ctx.pathFrom) then
          part = space .. name .. "=" .. ctx.pathTo .. string.sub(value, #ctx.pathFrom + 1)
        end
      end
    end
    first = false
    parts[#parts + 1] = part
  end
  return table.concat(parts, ";")
end
function envoy_on_response(h)
  local headers = h:headers()
  local count = headers:getNumValues("set-cookie")
  if count == 0 then return end
  local ctx = context(h)
  local cookies = {}
  for i = 0, count - 1 do cookies[#cookies + 1] = rewrite(headers:getAtIndex("set-cookie", i), ctx) end
  headers:remove("set-cookie")
  for _, cookie in ipairs(cookies) do headers:add("set-cookie", cookie) end
end
`;

export function buildCookieRewriteFilterConfig(): ResourceJson {
  return buildLuaSourceFilterConfig(sourceName, script);
}

/** typed_per_filter_config of a route whose Set-Cookie headers are rewritten. */
export function buildCookieRewritePerRoute(rewrite: CookieRewriteIR): ResourceJson {
  const context: ResourceJson = {};
  if (rewrite.domain !== undefined) Object.assign(context, { domainFrom: rewrite.domain.from, domainTo: rewrite.domain.to });
  if (rewrite.path !== undefined) Object.assign(context, { pathFrom: rewrite.path.from, pathTo: rewrite.path.to });
  return buildLuaPerRoute(sourceName, context);
}
