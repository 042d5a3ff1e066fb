// ingress-nginx auth-url companions that Envoy's ext_authz cannot do by itself, in two small Lua filters (disabled on
// the connection manager, enabled per route, settings in LuaPerRoute's filter_context):
// - `envoy-ingress.auth_signin`, before every filter that can deny: on the request it removes the headers
//   auth-response-headers names (nginx always sets them from the auth answer: `proxy_set_header Foo $authHeader0`
//   sends none when the answer has none, so the client's own never reach the backend) and remembers the request's
//   scheme, Host and URI; on the answer, a 401 that an authentication filter gave (not the backend: see below)
//   becomes nginx's `error_page 401 = @signin`: 302 to the auth-signin URL with its nginx variables filled in
//   ($host, $http_host, $best_http_host, $scheme, $pass_access_scheme, $request_uri, $escaped_request_uri) and
//   `rd=` (or auth-signin-redirect-param) as ingress-nginx's buildAuthSignURL appends it;
// - `envoy-ingress.auth_passed`, after the authentication filters: it only marks that they let the request
//   through, so a 401 from the backend itself goes to the client unchanged (ingress-nginx does not intercept it).
import type { ExternalAuthIR, RoutePolicyIR } from '../ir/index.js';
import { buildLuaPerRoute, buildLuaSourceFilterConfig, luaReadFilterContext } from './lua-filter.js';
import type { ResourceJson } from './resource-types.js';

export const authSigninFilterName = 'envoy-ingress.auth_signin';
export const authPassedFilterName = 'envoy-ingress.auth_passed';
const signinSource = 'nginx-auth-signin';
const passedSource = 'nginx-auth-passed';

// Lua 5.1 (LuaJIT). The escaping is nginx's set_escape_uri: everything but letters, digits and -._~ as %XX.
const signinScript = `
local ns = "envoy-ingress.auth_signin"
${luaReadFilterContext}
local function escape(s)
  return (string.gsub(s, "[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
function envoy_on_request(h)
  local ctx = context(h)
  local headers = h:headers()
  if ctx.strip ~= nil then
    for name in string.gmatch(ctx.strip, "[^,]+") do headers:remove(name) end
  end
  if ctx.signin ~= nil then
    local md = h:streamInfo():dynamicMetadata()
    local scheme = headers:get("x-forwarded-proto") or headers:get(":scheme") or "http"
    md:set(ns, "scheme", scheme)
    md:set(ns, "host", headers:get(":authority") or "")
    md:set(ns, "uri", headers:get(":path") or "/")
  end
end
function envoy_on_response(h)
  local headers = h:headers()
  if headers:get(":status") ~= "401" then return end
  local ctx = context(h)
  if ctx.signin == nil then return end
  local md = h:streamInfo():dynamicMetadata():get(ns)
  if md == nil or md.passed == true then return end
  local host = string.lower((string.gsub(md.host, ":%d+$", "")))
  local vars = {
    host = host, http_host = md.host, best_http_host = md.host, scheme = md.scheme, pass_access_scheme = md.scheme,
    request_uri = md.uri, escaped_request_uri = escape(md.uri),
  }
  local location = string.gsub(ctx.signin, "%$([%a_]+)", function(name) return vars[name] end)
  headers:replace(":status", "302")
  headers:replace("location", location)
  headers:remove("www-authenticate")
end
`;

// satisfy: any lets auth-url pass a request with (wrong) basic credentials: they are removed here, as nginx's
// proxy_set_header Authorization "" removes them whenever basic auth is configured.
const passedScript = `
function envoy_on_request(h)
  h:streamInfo():dynamicMetadata():set("envoy-ingress.auth_signin", "passed", true)
  for k, v in pairs(h:filterContext()) do
    if k == "strip_authorization" and v == true then h:headers():remove("authorization") end
  end
end
`;

export function buildAuthSigninFilterConfig(): ResourceJson {
  return buildLuaSourceFilterConfig(signinSource, signinScript);
}

export function buildAuthPassedFilterConfig(): ResourceJson {
  return buildLuaSourceFilterConfig(passedSource, passedScript);
}

/** Whether a route's external auth needs the signin filter (a sign-in page, or headers to take from the answer). */
export function usesAuthSignin(auth: ExternalAuthIR | undefined): boolean {
  return auth !== undefined && (auth.signin !== undefined || auth.responseHeaders.length > 0);
}

/** typed_per_filter_config of the signin filter for a route: the sign-in URL template and the headers to remove. */
export function buildAuthSigninPerRoute(auth: ExternalAuthIR): ResourceJson {
  const context: ResourceJson = {};
  if (auth.signin !== undefined) context['signin'] = auth.signin;
  if (auth.responseHeaders.length > 0) context['strip'] = auth.responseHeaders.join(',');
  return buildLuaPerRoute(signinSource, context);
}

/** Whether a route needs the filter after its authentication filters. */
export function usesAuthPassed(policy: RoutePolicyIR): boolean {
  return policy.externalAuth?.signin !== undefined || policy.basicAuth?.satisfyAny === true;
}

export function buildAuthPassedPerRoute(policy: RoutePolicyIR): ResourceJson {
  const context: ResourceJson = policy.basicAuth?.satisfyAny === true ? { strip_authorization: true } : {};
  return buildLuaPerRoute(passedSource, context);
}
