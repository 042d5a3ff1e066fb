// ingress-nginx server-alias and from-to-www-redirect: more names for a host's nginx server.
// - server-alias "a, b": the host's whole server (the routes of every Ingress of the host) also answers for these
//   names (nginx server_name), unless a name is a host of its own (ingress-nginx drops it: controller.go); the
//   oldest Ingress of the host that sets it decides.
// - from-to-www-redirect "true": www.<host> (or <host> without www.) answers every request with a redirect to the
//   host (ingress-nginx's redirect server, ngx_srv_redirect.lua): `scheme://host:port` + the request URI less a
//   final "/", the ConfigMap's http-redirect-code (308), unless that name is a host of its own.
import { catchAllHost, type RouteIR, type TlsSecretIR, type VirtualHostIR } from '../../../../ir/index.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { X509Certificate } from 'node:crypto';
import { parseHost } from '../../shared/hostname.js';
import { type Ingress, refOf } from '../../shared/kube-objects.js';
import type { TranslateOptions } from '../../shared/options.js';
import { Reason } from '../../shared/reasons.js';
import { certificateCoversHost, certificateDnsNames } from '../../shared/tls-secret.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { defaultNginxHttpRedirectCode, nginxReturnUrl } from './nginx-redirect.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

export const nginxServerNameAnnotations = ['server-alias', 'from-to-www-redirect'] as const;

export interface NginxServerNames {
  /** server-alias: valid names, lower-cased, sorted, without duplicates. */
  aliases: string[];
  fromToWww: boolean;
}

export interface WithNginxServerNames {
  nginxServerNames?: NginxServerNames;
}

function report(ingress: Ingress, diagnostics: Diagnostic[], reason: string, message: string): void {
  diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message });
}

/** Reads server-alias and from-to-www-redirect; undefined when neither is set. */
export function readNginxServerNames(ingress: Ingress, diagnostics: Diagnostic[]): NginxServerNames | undefined {
  const aliasText = ingress.metadata.annotations?.[n('server-alias')];
  const wwwText = ingress.metadata.annotations?.[n('from-to-www-redirect')];
  if (aliasText === undefined && wwwText === undefined) return undefined;
  const aliases = new Set<string>();
  for (const name of (aliasText ?? '').split(',').map((a) => a.trim()).filter((a) => a !== '')) {
    const parsed = parseHost(name);
    if (parsed.valid) aliases.add(parsed.host);
    else report(ingress, diagnostics, Reason.InvalidAnnotation, `annotation ${n('server-alias')}: ${parsed.error}; that alias is ignored`);
  }
  // strconv.ParseBool, as ingress-nginx reads it.
  const fromToWww = wwwText !== undefined && /^(1|t|T|TRUE|true|True)$/.test(wwwText);
  if (wwwText !== undefined && !fromToWww && !/^(0|f|F|FALSE|false|False)$/.test(wwwText)) {
    report(ingress, diagnostics, Reason.InvalidAnnotation, `annotation ${n('from-to-www-redirect')} has invalid value ${JSON.stringify(wwwText)}; accepted values: "true", "false"; it is ignored`);
  }
  return { aliases: [...aliases].sort(), fromToWww };
}

function hostsOf(ingress: Ingress): string[] {
  const hosts = new Set<string>();
  // forEach: rules refused by host ownership are holes (host-ownership.ts).
  (ingress.spec?.rules ?? []).forEach((rule) => {
    if (rule.host === undefined || rule.host === '') return;
    const parsed = parseHost(rule.host);
    if (parsed.valid) hosts.add(parsed.host);
  });
  return [...hosts].sort();
}

/**
 * Aliases one Ingress may give (issue 25: one Ingress with 1,800 aliases must not multiply anything; they are extra
 * names of one virtual host, yet each is a name every route table carries). The first ones are kept, the rest
 * reported.
 */
export const maxServerAliasesPerIngress = 32;

/**
 * server-alias: the aliases become more names (Envoy domains) of the host's own virtual host, as they are more
 * server_names of one nginx server: no route is copied, so an alias costs one domain, never the host's routes again.
 * Oldest Ingress first, as the translator orders `ingresses`. Names that are hosts of their own, or already another
 * host's alias, are reported and left out. Returns the virtual hosts with the aliases added, and alias -> host.
 */
export function withNginxServerAliases(
  hosts: ReadonlyMap<string, VirtualHostIR>,
  ingresses: readonly Ingress[],
  settingsOf: (ingress: Ingress) => NginxServerNames | undefined,
  diagnostics: Diagnostic[],
): { virtualHosts: ReadonlyMap<string, VirtualHostIR>; aliasOf: ReadonlyMap<string, string> } {
  let withAliases: Map<string, VirtualHostIR> | undefined;
  const aliasOf = new Map<string, string>();
  const decided = new Set<string>();
  for (const ingress of ingresses) {
    const given = settingsOf(ingress)?.aliases ?? [];
    if (given.length === 0) continue;
    const aliases = given.slice(0, maxServerAliasesPerIngress);
    if (given.length > aliases.length) {
      report(ingress, diagnostics, Reason.InvalidAnnotation, `annotation ${n('server-alias')}: ${given.length} aliases, at most ${maxServerAliasesPerIngress} per Ingress are served; ${given.slice(aliases.length).join(', ')} ignored`);
    }
    for (const host of hostsOf(ingress)) {
      const vhost = (withAliases ?? hosts).get(host);
      // The first Ingress of the host with aliases sets them (controller.go: "Aliases already configured").
      if (vhost === undefined || decided.has(host)) continue;
      decided.add(host);
      const added: string[] = [];
      for (const alias of aliases) {
        if (alias === host) continue;
        if (hosts.has(alias) || aliasOf.has(alias)) {
          const owner = hosts.has(alias) ? 'it is a host of its own' : `it is already an alias of ${aliasOf.get(alias) ?? ''}`;
          report(ingress, diagnostics, Reason.RuleConflict, `annotation ${n('server-alias')}: alias ${alias} of ${host} is ignored: ${owner}`);
          continue;
        }
        aliasOf.set(alias, host);
        added.push(alias);
      }
      if (added.length > 0) (withAliases ??= new Map(hosts)).set(host, { ...vhost, hostnames: [...vhost.hostnames, ...added] });
    }
  }
  return { virtualHosts: withAliases ?? hosts, aliasOf };
}

/** The www redirect virtual hosts, one for each route table (the Location keeps the request's scheme). */
export interface WwwRedirects {
  http: VirtualHostIR[];
  https: VirtualHostIR[];
  /** The names that redirect (they get no other virtual host), each with the host it redirects to. */
  names: Map<string, string>;
}

/** `scheme://host:port` + the request URI less a final "/" (nginx drops the URI's last character if it is "/"). */
function wwwRedirectHost(from: string, to: string, scheme: 'http' | 'https', port: number, statusCode: 301 | 302 | 307 | 308): VirtualHostIR {
  const redirect = { kind: 'redirect', statusCode, scheme, host: to, port } as const;
  const routes: RouteIR[] = [
    // With a query the URI does not end in "/": the path keeps its slash.
    { name: 'www-redirect/query', match: { kind: 'prefix', path: '/' }, headers: [{ name: ':path', kind: 'regex', value: '[^?]*\\?.*' }], action: { ...redirect } },
    // Envoy's redirect always sends a path: exactly "/" is written out.
    { name: 'www-redirect/root', match: { kind: 'exact', path: '/' }, headers: [{ name: ':path', kind: 'exact', value: '/' }], action: nginxReturnUrl(statusCode, `${scheme}://${to}:${port}`, false) },
    { name: 'www-redirect', match: { kind: 'prefix', path: '/' }, action: { ...redirect, path: { kind: 'strip-trailing-slash' } } },
  ];
  return { name: from, hostnames: [from], routes };
}

/**
 * from-to-www-redirect of the Ingresses (oldest first): for each host of such an Ingress, the other name (www. added
 * or removed) redirects to it, unless that name is a host of its own (virtualHosts), an alias, or redirects already.
 */
export function nginxWwwRedirects(
  virtualHosts: ReadonlyMap<string, VirtualHostIR>,
  aliasOf: ReadonlyMap<string, string>,
  ingresses: readonly Ingress[],
  settingsOf: (ingress: Ingress) => NginxServerNames | undefined,
  options: TranslateOptions,
  diagnostics: Diagnostic[],
): WwwRedirects {
  const redirects: WwwRedirects = { http: [], https: [], names: new Map() };
  const targets = new Set<string>();
  const code = options.nginxHttpRedirectCode ?? defaultNginxHttpRedirectCode;
  for (const ingress of ingresses) {
    if (settingsOf(ingress)?.fromToWww !== true) continue;
    for (const host of hostsOf(ingress)) {
      if (host === catchAllHost || host.startsWith('*.') || targets.has(host)) continue;
      targets.add(host);
      const from = host.startsWith('www.') ? host.slice(4) : `www.${host}`;
      if (virtualHosts.has(from) || aliasOf.has(from) || redirects.names.has(from)) {
        report(ingress, diagnostics, Reason.RuleConflict, `annotation ${n('from-to-www-redirect')}: ${from} is not redirected to ${host}: it is a host of its own`);
        continue;
      }
      redirects.names.set(from, host);
      redirects.http.push(wwwRedirectHost(from, host, 'http', 80, code));
      redirects.https.push(wwwRedirectHost(from, host, 'https', options.httpsRedirectPort, code));
    }
  }
  return redirects;
}

/**
 * The TLS hosts a www redirect needs for https: the certificate of the host it redirects to, where that covers the
 * name and the name has no TLS entry of its own (ingress-nginx serves the redirect server with the host's
 * certificate only if it is valid for the name: BuildRedirects).
 */
export function wwwRedirectTlsHosts(www: WwwRedirects, tlsHosts: ReadonlyMap<string, { secret: TlsSecretIR }>): { host: string; secret: TlsSecretIR }[] {
  const hosts: { host: string; secret: TlsSecretIR }[] = [];
  for (const [from, to] of [...www.names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const secret = tlsHosts.get(to)?.secret;
    if (secret === undefined || tlsHosts.has(from)) continue;
    let names: string[] = [];
    try {
      names = certificateDnsNames(new X509Certificate(secret.certificateChain));
    } catch {
      continue;
    }
    if (certificateCoversHost(names, from)) hosts.push({ host: from, secret });
  }
  return hosts;
}
