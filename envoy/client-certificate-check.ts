// ClientCertificateCheckIR (ingress-nginx auth-tls-*) -> a Lua filter of its own and an RBAC filter of its own,
// both disabled on the connection manager and enabled on every route of a host that checks client certificates
// (virtual-host.ts). The TLS chain of the host asked for a certificate and recorded whether it verified
// (downstream-tls-context.ts, mode `request`); the script answers as nginx does for the server's
// ssl_verify_client: 400 "No required SSL certificate was sent" / "The SSL certificate error" (or a 302 to
// auth-tls-error-page), 421 when the connection was negotiated for another server name (its certificate was
// verified against other CAs, if at all), and sends the backend the ssl-client-* headers ingress-nginx sends. The
// RBAC filter after it checks the subject against auth-tls-match-cn (RE2; Lua has no regular expressions), reading
// the subject the script put in the request's dynamic metadata.
import type { ClientCertificateCheckIR } from '../ir/index.js';
import { buildLuaPerRoute, buildLuaSourceFilterConfig, luaReadFilterContext } from './lua-filter.js';
import type { ResourceJson } from './resource-types.js';

export const clientCertificateFilterName = 'client-certificate-check';
export const clientSubjectFilterName = 'client-certificate-subject';
const sourceName = 'client-certificate-check';
/** The dynamic metadata namespace the script writes the subject to and the RBAC filter reads it from. */
const metadataNamespace = 'envoy-ingress.client-certificate';
const rbacType = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC';
const rbacPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute';

/** nginx's pages for these answers (its error pages without the server line). */
function page(status: string, title: string, detail?: string): string {
  const lines = ['<html>', `<head><title>${status} ${title}</title></head>`, '<body>', `<center><h1>${status} ${detail === undefined ? title : 'Bad Request'}</h1></center>`];
  if (detail !== undefined) lines.push(`<center>${detail}</center>`);
  return `${[...lines, '</body>', '</html>'].join('\r\n')}\r\n`;
}

const luaString = (text: string): string => JSON.stringify(text);

// Lua 5.1 (LuaJIT).
const script = `
${luaReadFilterContext}
local sent = {"ssl-client-cert", "ssl-client-verify", "ssl-client-subject-dn", "ssl-client-issuer-dn"}
local function covers(names, sni)
  for name in string.gmatch(names, "%S+") do
    if name == sni then return true end
    if string.sub(name, 1, 2) == "*." then
      local dot = string.find(sni, ".", 1, true)
      if dot ~= nil and dot > 1 and string.sub(sni, dot) == string.sub(name, 2) then return true end
    end
  end
  return false
end
local function refuse(h, ctx, title)
  if ctx.errorPage ~= nil then
    h:respond({[":status"] = "302", ["location"] = ctx.errorPage, ["content-type"] = "text/html"}, ${luaString(page('302', 'Found'))})
  elseif title == "none" then
    h:respond({[":status"] = "400", ["content-type"] = "text/html"}, ${luaString(page('400', 'No required SSL certificate was sent', 'No required SSL certificate was sent'))})
  else
    h:respond({[":status"] = "400", ["content-type"] = "text/html"}, ${luaString(page('400', 'The SSL certificate error', 'The SSL certificate error'))})
  end
end
function envoy_on_request(h)
  local ctx = context(h)
  local headers = h:headers()
  -- Whatever the client sent under these names never reaches the backend.
  for _, name in ipairs(sent) do headers:remove(name) end
  local ssl = h:streamInfo():downstreamSslConnection()
  -- nginx verifies TLS connections only: a plain-HTTP request (a table both listeners serve) is not checked.
  if ctx.tls ~= "1" or ssl == nil then return end
  local sni = string.lower(h:streamInfo():requestedServerName() or "")
  if not covers(ctx.serverNames, sni) then
    h:respond({[":status"] = "421", ["content-type"] = "text/html"}, ${luaString(page('421', 'Misdirected Request'))})
    return
  end
  local presented = ssl:peerCertificatePresented()
  local verified = presented and ssl:peerCertificateValidated()
  if ctx.verify ~= "any" then
    if presented and not verified then refuse(h, ctx, "error") return end
    if ctx.verify == "required" and not presented then refuse(h, ctx, "none") return end
  end
  local subject = ""
  if presented then
    subject = ssl:subjectPeerCertificate() or ""
    local issuer = ssl:issuerPeerCertificate() or ""
    if subject ~= "" then headers:add("ssl-client-subject-dn", subject) end
    if issuer ~= "" then headers:add("ssl-client-issuer-dn", issuer) end
    if ctx.passCertificate == "1" then headers:add("ssl-client-cert", ssl:urlEncodedPemEncodedPeerCertificate()) end
  end
  if verified then headers:add("ssl-client-verify", "SUCCESS")
  elseif presented then headers:add("ssl-client-verify", "FAILED")
  else headers:add("ssl-client-verify", "NONE") end
  h:streamInfo():dynamicMetadata():set("${metadataNamespace}", "subject", subject)
end
`;

export function buildClientCertificateFilterConfig(): ResourceJson {
  return buildLuaSourceFilterConfig(sourceName, script);
}

/** The subject filter: disabled, routes bring their rules. */
export function buildClientSubjectFilterConfig(): ResourceJson {
  return { '@type': rbacType };
}

/** typed_per_filter_config entries of every route of a host with `check`. */
export function buildClientCertificatePerRoute(check: ClientCertificateCheckIR): ResourceJson {
  const context: ResourceJson = { verify: check.verify, serverNames: check.serverNames.join(' '), tls: check.serverNames.length > 0 ? '1' : '0' };
  if (check.errorPage !== undefined) context['errorPage'] = check.errorPage;
  if (check.passCertificate === true) context['passCertificate'] = '1';
  const config: ResourceJson = { [clientCertificateFilterName]: buildLuaPerRoute(sourceName, context) };
  if (check.subjectPattern !== undefined && check.serverNames.length > 0) {
    // nginx `$ssl_client_s_dn !~ pattern`: a match anywhere in the subject; none (no certificate) is refused, 403.
    // Principal.metadata (deprecated in Envoy 1.40 for sourced_metadata, which the xDS encoder's Envoy API, from
    // @grpc/grpc-js-xds, does not know yet; Envoy logs a deprecation warning and applies it).
    const subject = { metadata: { filter: metadataNamespace, path: [{ key: 'subject' }], value: { string_match: { safe_regex: { regex: `.*(?:${check.subjectPattern}).*` } } } } };
    config[clientSubjectFilterName] = {
      '@type': rbacPerRouteType,
      rbac: { rules: { action: 'ALLOW', policies: { 'client-certificate-subject': { permissions: [{ any: true }], principals: [subject] } } } },
    };
  }
  return config;
}
