// ingress-nginx auth-tls-* (--nginx-annotations): client certificates per host. auth-tls-secret names a Secret with
// the trusted CAs (`ca.crt`, optionally `ca.crl`); auth-tls-verify-client (on, off, optional, optional_no_ca),
// auth-tls-verify-depth, auth-tls-error-page, auth-tls-pass-certificate-to-upstream and auth-tls-match-cn as
// ingress-nginx reads them. Like ingress-nginx these are per host (its server block): the oldest Ingress of the
// host that sets them decides (the host's Ingresses all come from the namespace that owns it, host-ownership.ts),
// a later one with other settings is reported. The host's TLS chain asks for a certificate and verifies it against
// the CAs (without failing the handshake); every route of the host then checks what nginx's ssl_verify_client
// checks (envoy/client-certificate-check.ts). An auth-tls setting that cannot be honoured (a Secret of another
// namespace, missing, without a usable `ca.crt`, a match-cn RE2 cannot run) answers 403 on the whole host, as
// ingress-nginx's server does (AuthTLSError), never serving it without the check.
import { compareStrings, type CertificateAuthorityIR, type ClientCertificateCheckIR, type ClientValidationIR, type RouteIR, type RouteTableIR, type VirtualHostIR } from '../../../../ir/index.js';
import { readCertificateAuthority } from '../../shared/ca-secret.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { namespaceOf } from '../../shared/kinds.js';
import { type Ingress, refOf, type Secret } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { estimateRe2ProgramSize, maxUserRegexProgramSize } from '../../shared/re2-program-size.js';
import { compileRe2 } from '../../shared/re2.js';
import type { References } from '../../shared/references.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { type FinishedDataPlane, withTables } from './finished-data-plane.js';
import type { NginxLayerOptions } from './nginx-auth.js';
import { mergedByName } from './nginx-proxy-ssl.js';
import { readNginxSecretRef } from './nginx-secret-ref.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

/** Names (after the prefix) this module reads. */
export const nginxAuthTlsAnnotations = ['auth-tls-secret', 'auth-tls-verify-client', 'auth-tls-verify-depth', 'auth-tls-error-page', 'auth-tls-pass-certificate-to-upstream', 'auth-tls-match-cn'] as const;

export type NginxVerifyClient = 'on' | 'off' | 'optional' | 'optional_no_ca';

/** What the auth-tls annotations of one Ingress ask for, before the Secret is looked up. */
export type NginxAuthTlsSettings =
  | {
      secret: { namespace: string; name: string };
      verifyClient: NginxVerifyClient;
      verifyDepth: number;
      errorPage?: string;
      passCertificate: boolean;
      /** The whole auth-tls-match-cn value (`CN=...`), matched anywhere in the subject as nginx's `!~` does. */
      matchCn?: string;
    }
  | { refused: string };

/** Parsed annotations of an Ingress with auth-tls (nginx-annotations.ts puts it there). */
export interface WithNginxAuthTls {
  nginxAuthTls?: NginxAuthTlsSettings;
}

/** ingress-nginx's auth-tls-error-page check (authtls redirectRegex). */
const errorPageValue = /^(@[A-Za-z0-9_-]+|((https?:\/\/)?[A-Za-z0-9\-.]+(:\d+)?)?(\/[A-Za-z0-9\-_.]+)*\/?)$/;

/** undefined when Envoy runs `pattern` (as the subject check wraps it), else why not. */
function subjectPatternProblem(pattern: string): string | undefined {
  const wrapped = `.*(?:${pattern}).*`;
  const size = estimateRe2ProgramSize(wrapped);
  if (size > maxUserRegexProgramSize) return `is too large a regular expression (RE2 program size ${size} > ${maxUserRegexProgramSize})`;
  const compiled = compileRe2(wrapped);
  return compiled.ok ? undefined : `is not a regular expression RE2 (Envoy) runs: ${compiled.error}`;
}

/** Reads the auth-tls annotations of one Ingress; problems are reported on it. */
export function readNginxAuthTls(ingress: Ingress, diagnostics: Diagnostic[], layer: NginxLayerOptions = {}): NginxAuthTlsSettings | undefined {
  const raw = (name: string): string | undefined => ingress.metadata.annotations?.[n(name)];
  const report = (reason: string, message: string): void => void diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message });
  const secretValue = raw('auth-tls-secret');
  if (secretValue === undefined) {
    for (const name of nginxAuthTlsAnnotations.filter((a) => a !== 'auth-tls-secret' && raw(a) !== undefined)) {
      report(Reason.InvalidAnnotation, `annotation ${n(name)} ignored: it needs ${n('auth-tls-secret')}`);
    }
    return undefined;
  }
  const denied = "its hosts answer 403 until it is fixed (as ingress-nginx's server does)";
  const ref = readNginxSecretRef(ingress, secretValue, layer);
  if ('problem' in ref) {
    report(ref.reason, `annotation ${n('auth-tls-secret')} ${ref.problem}; ${denied}`);
    return { refused: `${n('auth-tls-secret')} unusable` };
  }
  let verifyClient: NginxVerifyClient = 'on';
  const verify = raw('auth-tls-verify-client')?.trim();
  if (verify !== undefined) {
    if (verify === 'on' || verify === 'off' || verify === 'optional' || verify === 'optional_no_ca') verifyClient = verify;
    else report(Reason.InvalidAnnotation, `annotation ${n('auth-tls-verify-client')} has invalid value ${JSON.stringify(verify.slice(0, 100))}; accepted values: "on", "off", "optional", "optional_no_ca"; "on" is used`);
  }
  let verifyDepth = 1;
  const depth = raw('auth-tls-verify-depth')?.trim();
  if (depth !== undefined) {
    if (/^\d{1,3}$/.test(depth)) verifyDepth = Number(depth) === 0 ? 1 : Number(depth);
    else report(Reason.InvalidAnnotation, `annotation ${n('auth-tls-verify-depth')} has invalid value ${JSON.stringify(depth.slice(0, 100))}; accepted: a whole number; 1 is used`);
  }
  const settings: NginxAuthTlsSettings = { secret: ref, verifyClient, verifyDepth, passCertificate: false };
  const errorPage = raw('auth-tls-error-page')?.trim();
  if (errorPage !== undefined && errorPage !== '') {
    // A named location (@name) means nothing here: there are no nginx locations.
    if (errorPageValue.test(errorPage) && !errorPage.startsWith('@')) settings.errorPage = errorPage;
    else report(Reason.InvalidAnnotation, `annotation ${n('auth-tls-error-page')} has invalid value ${JSON.stringify(errorPage.slice(0, 100))}; accepted: a URL or path; it is ignored (refused requests get 400)`);
  }
  const pass = raw('auth-tls-pass-certificate-to-upstream')?.trim();
  if (pass !== undefined) {
    if (pass === 'true' || pass === 'false') settings.passCertificate = pass === 'true';
    else report(Reason.InvalidAnnotation, `annotation ${n('auth-tls-pass-certificate-to-upstream')} has invalid value ${JSON.stringify(pass.slice(0, 100))}; accepted values: "true", "false"; "false" is used`);
  }
  const matchCn = raw('auth-tls-match-cn');
  if (matchCn !== undefined) {
    const problem = !matchCn.startsWith('CN=') ? 'does not start with "CN="' : subjectPatternProblem(matchCn);
    if (problem !== undefined) {
      report(Reason.InvalidAnnotation, `annotation ${n('auth-tls-match-cn')} value ${JSON.stringify(matchCn.slice(0, 100))} ${problem}; ${denied}`);
      return { refused: `${n('auth-tls-match-cn')} invalid` };
    }
    settings.matchCn = matchCn;
  }
  return settings;
}

/** A host's client certificate settings, as the oldest Ingress of the host with auth-tls made them. */
type HostAuthTls = { refused: true } | { ingress: Ingress; settings: Exclude<NginxAuthTlsSettings, { refused: string }>; ca: CertificateAuthorityIR };

/** What the final phase needs from the translation besides the gateway. */
export interface NginxAuthTlsInputs {
  /** The Ingresses with rules for each host (of the namespace owning it), oldest first. */
  contributors: ReadonlyMap<string, readonly Ingress[]>;
  /** The host whose Ingresses decide a name the layer serves as a copy of it (server-alias). */
  servedAs: (host: string) => string;
  secrets: readonly Secret[];
}

function sameSettings(a: NginxAuthTlsSettings, b: NginxAuthTlsSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Each host's settings from its Ingresses' (refused ones and conflicts reported). */
function hostSettings(byIngress: ReadonlyMap<Ingress, NginxAuthTlsSettings>, inputs: NginxAuthTlsInputs, diagnostics: Diagnostic[]): Map<string, HostAuthTls> {
  const secrets = new Map(inputs.secrets.map((s) => [`${namespaceOf(s.metadata)}/${s.metadata.name}`, s]));
  const resolved = new Map<Ingress, { ca: CertificateAuthorityIR } | { refused: true }>();
  const resolve = (ingress: Ingress, settings: NginxAuthTlsSettings): { ca: CertificateAuthorityIR } | { refused: true } => {
    let result = resolved.get(ingress);
    if (result !== undefined) return result;
    if ('refused' in settings) result = { refused: true };
    else {
      const { namespace, name } = settings.secret;
      const secret = secrets.get(`${namespace}/${name}`);
      const read = secret === undefined ? { error: 'not found' } : readCertificateAuthority(secret);
      if ('error' in read) {
        const reason = secret === undefined ? Reason.SecretNotFound : Reason.SecretInvalid;
        diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message: `${n('auth-tls-secret')}: Secret ${namespace}/${name} ${read.error}; the Ingress's hosts answer 403 until it is fixed (as ingress-nginx's server does)` });
        result = { refused: true };
      } else result = read;
    }
    resolved.set(ingress, result);
    return result;
  };
  const hosts = new Map<string, HostAuthTls>();
  for (const [host, ingresses] of inputs.contributors) {
    let chosen: HostAuthTls | undefined;
    let refused = false;
    for (const ingress of ingresses) {
      const settings = byIngress.get(ingress);
      if (settings === undefined) continue;
      const result = resolve(ingress, settings);
      // Any Ingress of the host that cannot have its auth-tls denies the host (ingress-nginx's AuthTLSError).
      if ('refused' in result || 'refused' in settings) refused = true;
      else if (chosen === undefined) chosen = { ingress, settings, ca: result.ca };
      else if (!('refused' in chosen) && !sameSettings(chosen.settings, settings)) {
        diagnostics.push({
          object: refOf(ingress),
          severity: 'Warning',
          reason: Reason.InvalidAnnotation,
          message: `auth-tls-* ignored on host ${host}: Ingress ${namespaceOf(chosen.ingress.metadata)}/${chosen.ingress.metadata.name} is older and sets the host's client certificate checks`,
        });
      }
    }
    if (refused) hosts.set(host, { refused: true });
    else if (chosen !== undefined) hosts.set(host, chosen);
  }
  return hosts;
}

const forbidden = (route: RouteIR): RouteIR => {
  const { policy: _, ...kept } = route;
  return { ...kept, action: { kind: 'direct', status: 403, body: forbiddenPage, contentType: 'text/html' } };
};

/** What nginx answers with `return 403`. */
const forbiddenPage = `<html>
<head><title>403 Forbidden</title></head>
<body>
<center><h1>403 Forbidden</h1></center>
</body>
</html>
`;

function checkOf(settings: Exclude<NginxAuthTlsSettings, { refused: string }>, serverNames: string[]): ClientCertificateCheckIR {
  if (settings.verifyClient === 'off') return { serverNames: [], verify: 'any' };
  const verify = settings.verifyClient === 'on' ? 'required' : settings.verifyClient === 'optional' ? 'optional' : 'any';
  const check: ClientCertificateCheckIR = { serverNames, verify };
  if (settings.errorPage !== undefined) check.errorPage = settings.errorPage;
  if (settings.matchCn !== undefined) check.subjectPattern = settings.matchCn;
  if (settings.passCertificate) check.passCertificate = true;
  return check;
}

/** `table` with `rewrite` applied to each virtual host (the same object where nothing changed). */
function withHosts(table: RouteTableIR, rewrite: (vhost: VirtualHostIR) => VirtualHostIR): RouteTableIR {
  const virtualHosts = table.virtualHosts.map(rewrite);
  return virtualHosts.every((v, i) => v === table.virtualHosts[i]) ? table : { ...table, virtualHosts };
}

/**
 * The gateway with each auth-tls host's TLS chain asking for client certificates, the host's routes checking them
 * (its plain-HTTP routes only drop the ssl-client-* headers a client sent), refused hosts answering 403, and the
 * trusted CAs added.
 */
export function withNginxAuthTls(gateway: FinishedDataPlane, byIngress: ReadonlyMap<Ingress, NginxAuthTlsSettings>, inputs: NginxAuthTlsInputs, diagnostics: Diagnostic[]): FinishedDataPlane {
  if (byIngress.size === 0) return gateway;
  const hosts = hostSettings(byIngress, inputs, diagnostics);
  if (hosts.size === 0) return gateway;
  const settingsOf = (name: string): HostAuthTls | undefined => hosts.get(inputs.servedAs(name));
  const { ir } = gateway;
  const chainNames = new Set<string>();
  const tlsServers = ir.tlsServers.map((server) => {
    const name = server.serverNames.length === 1 ? (server.serverNames[0] as string) : undefined;
    const host = name === undefined ? undefined : settingsOf(name);
    if (host === undefined || 'refused' in host || host.settings.verifyClient === 'off') return server;
    chainNames.add(name as string);
    const clientValidation: ClientValidationIR = { mode: 'request', certificateAuthority: host.ca.name, verifyDepth: host.settings.verifyDepth };
    return { ...server, clientValidation };
  });
  const cas = [...hosts.values()].flatMap((h) => ('refused' in h ? [] : [h.ca]));
  const hostRewrite = (tls: boolean) => (vhost: VirtualHostIR): VirtualHostIR => {
    const host = settingsOf(vhost.name);
    if (host === undefined) return vhost;
    if ('refused' in host) return { ...vhost, routes: vhost.routes.map(forbidden) };
    // A host without a TLS chain of its own is reached over TLS through another chain, which asked for no
    // certificate: the check refuses it as nginx refuses a request without one.
    return { ...vhost, clientCertificate: tls ? checkOf(host.settings, [vhost.name]) : { serverNames: [], verify: 'any' } };
  };
  const replaced = new Map<RouteTableIR, RouteTableIR>();
  replaced.set(gateway.httpsTable, withHosts(gateway.httpsTable, hostRewrite(true)));
  if (ir.http !== gateway.httpsTable) replaced.set(ir.http, withHosts(ir.http, hostRewrite(false)));
  for (const [host, settings] of hosts) {
    if (!('refused' in settings) && settings.settings.verifyClient !== 'off' && !chainNames.has(host)) {
      diagnostics.push({ object: refOf(settings.ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message: `${n('auth-tls-secret')}: host ${host} has no TLS certificate of its own (spec.tls), so no client certificate is asked for on it: its TLS requests are refused as without one` });
    }
  }
  const next = withTables(gateway, replaced);
  const certificateAuthorities = mergedByName(ir.certificateAuthorities, cas);
  return { ...next, ir: { ...next.ir, tlsServers, ...(certificateAuthorities === undefined ? {} : { certificateAuthorities }) } };
}

/** The auth-tls settings of each Ingress that has some (parseAnnotationsWithNginx put them there). */
export function nginxAuthTlsByIngress(annotations: ReadonlyMap<Ingress, unknown>): Map<Ingress, NginxAuthTlsSettings> {
  const byIngress = new Map<Ingress, NginxAuthTlsSettings>();
  for (const [ingress, parsed] of annotations) {
    const settings = (parsed as WithNginxAuthTls).nginxAuthTls;
    if (settings !== undefined) byIngress.set(ingress, settings);
  }
  return byIngress;
}

/** The translation's references plus the Secrets auth-tls and proxy-ssl read. */
export function withSecretReferences(references: References, secrets: Iterable<string>): References {
  const all = new Set(references.secrets);
  for (const secret of secrets) all.add(secret);
  return all.size === references.secrets.length ? references : { ...references, secrets: [...all].sort(compareStrings) };
}

/** The Secrets (`namespace/name`) auth-tls settings read. */
export function nginxAuthTlsSecrets(byIngress: ReadonlyMap<Ingress, NginxAuthTlsSettings>): string[] {
  return [...byIngress.values()].flatMap((s) => ('refused' in s ? [] : [`${s.secret.namespace}/${s.secret.name}`]));
}
