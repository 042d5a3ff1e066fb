// ingress-nginx authentication annotations (--nginx-annotations): auth-type basic with auth-secret (+ auth-secret-type,
// auth-realm) and auth-url (+ auth-response-headers). Reading the annotations needs only the Ingress (so
// migrate-check sees the same verdicts); resolving the Secret and the authorization service needs the cluster
// state and happens once the IR is built, on every forwarding route of the Ingress.
// Like ingress-nginx, a setting that cannot be honoured (no such Secret, digest, a bad URL...) never serves the
// paths unprotected: they answer 503 (ingress-nginx's "Location denied" page) until it is fixed.
import { type BasicAuthIR, type BasicAuthUsersIR, type ClusterIR, compareStrings, type ExternalAuthIR, HtpasswdUsers } from '../../../../ir/index.js';
import { parseHeaderName, splitList } from '../annotation-values.js';
import type { ServiceIndex } from '../../shared/backend.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, type ObjectRef, type Secret, refKey, refOf } from '../../shared/kube-objects.js';
import type { IngressAnnotations } from '../annotations.js';
import type { References } from '../../shared/references.js';
import { Reason } from '../../shared/reasons.js';
import { readUsers } from '../../shared/basic-auth-users.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { type FinishedDataPlane, withRewrittenRoutes } from './finished-data-plane.js';
export { readUsers };
import { clusterForUrl, serviceOfUrlHost, type UrlTargetPolicy } from './url-cluster.js';
import { namespaceOf } from '../../shared/kinds.js';

const n = (name: string): string => `${nginxAnnotationPrefix}${name}`;

/** Names (after the prefix) this module reads. */
export const nginxAuthAnnotations = ['auth-type', 'auth-secret', 'auth-secret-type', 'auth-realm', 'auth-url', 'auth-response-headers', 'auth-signin', 'auth-signin-redirect-param', 'auth-always-set-cookie', 'satisfy'] as const;

/** What the auth annotations of one Ingress ask for, before the Secret and the service are looked up. */
export interface NginxAuthSettings {
  basic?: { secret: { namespace: string; name: string }; secretType: 'auth-file' | 'auth-map'; realm: string };
  external?: { url: URL; responseHeaders: string[]; signin?: string };
  /** Why the Ingress's paths must answer 503 instead (set when a requested authentication cannot be configured). */
  refused?: string;
  /** satisfy: any, with both basic auth and auth-url: either one letting the request through is enough. */
  satisfyAny?: boolean;
  /** satisfy: any with basic auth: a client the allow-list admits needs no credentials (applyNginxAuth). */
  anyWithAllowList?: boolean;
}

/** What the controller allows the annotations to reach (TranslateOptions). */
export interface NginxLayerOptions {
  /** `auth-secret: other/name` may name another namespace's Secret (--nginx-allow-cross-namespace-resources). */
  allowCrossNamespace?: boolean;
}

/** What ingress-nginx accepts in auth-realm (its CharsWithSpace validator); it is put in a quoted challenge. */
const realmChars = /^[-._~a-zA-Z0-9/: ]*$/;

/** A Secret name (DNS subdomain), optionally `namespace/name`. */
const objectName = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/**
 * Reads the auth annotations of one Ingress. Invalid values are reported on the Ingress; when they leave a requested
 * authentication unusable the result says so (`refused`) and the paths answer 503, as ingress-nginx denies them.
 */
export function readNginxAuth(ingress: Ingress, diagnostics: Diagnostic[], layer: NginxLayerOptions = {}): NginxAuthSettings | undefined {
  const raw = (name: string): string | undefined => ingress.metadata.annotations?.[n(name)];
  const report = (reason: string, message: string): void => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message });
  };
  const settings: NginxAuthSettings = {};
  const refuse = (name: string, problem: string): void => {
    report(Reason.InvalidAnnotation, `annotation ${n(name)} ${problem}; the Ingress's paths answer 503 until it is fixed`);
    settings.refused ??= `${n(name)} ${problem}`;
  };

  const type = raw('auth-type');
  if (type === undefined) {
    for (const name of ['auth-secret', 'auth-secret-type', 'auth-realm'].filter((a) => raw(a) !== undefined)) {
      report(Reason.InvalidAnnotation, `annotation ${n(name)} ignored: it needs ${n('auth-type')} "basic"`);
    }
  } else if (type.trim() === 'digest') {
    refuse('auth-type', 'is "digest", which Envoy cannot do (only "basic")');
  } else if (type.trim() !== 'basic') {
    refuse('auth-type', `has invalid value ${JSON.stringify(type)}; accepted values: "basic"`);
  } else {
    const secretType = (raw('auth-secret-type') ?? 'auth-file').trim();
    const secret = (raw('auth-secret') ?? '').trim();
    const parts = secret.split('/');
    const [namespace, name] = parts.length === 2 ? parts : [namespaceOf(ingress.metadata), parts[0]];
    if (secretType !== 'auth-file' && secretType !== 'auth-map') {
      refuse('auth-secret-type', `has invalid value ${JSON.stringify(secretType)}; accepted values: "auth-file", "auth-map"`);
    } else if (secret === '') {
      refuse('auth-secret', 'is missing: auth-type "basic" needs the Secret holding the users');
    } else if (parts.length > 2 || namespace === undefined || name === undefined || !objectName.test(namespace) || !objectName.test(name)) {
      refuse('auth-secret', `has invalid value ${JSON.stringify(secret)}; accepted: a Secret name or "namespace/name"`);
    } else if (namespace !== namespaceOf(ingress.metadata) && layer.allowCrossNamespace !== true) {
      // As ingress-nginx without allow-cross-namespace-resources: one tenant must not make another's Secret its
      // users list. The Secret is not looked up, so the answer is the same whether it exists or not.
      report(
        Reason.SecretNamespaceRefused,
        `annotation ${n('auth-secret')} names a Secret in namespace ${JSON.stringify(namespace)}; an Ingress may only use Secrets of its own namespace (unless the controller runs with --nginx-allow-cross-namespace-resources); the Ingress's paths answer 503 until it is fixed`,
      );
      settings.refused ??= 'auth-secret in another namespace';
    } else if (!realmChars.test(raw('auth-realm') ?? '')) {
      refuse('auth-realm', `has invalid value ${JSON.stringify(raw('auth-realm'))}; accepted: letters, digits, spaces and - . _ ~ / :`);
    } else {
      settings.basic = { secret: { namespace, name }, secretType, realm: raw('auth-realm') ?? '' };
    }
  }

  const url = raw('auth-url');
  const responseHeaders = raw('auth-response-headers');
  if (url === undefined) {
    for (const name of ['auth-response-headers', 'auth-signin', 'auth-signin-redirect-param', 'auth-always-set-cookie'].filter((a) => raw(a) !== undefined)) {
      report(Reason.InvalidAnnotation, `annotation ${n(name)} ignored: it needs ${n('auth-url')}`);
    }
  } else {
    const parsed = parseAuthUrl(url);
    if (typeof parsed === 'string') refuse('auth-url', parsed);
    else {
      const names: string[] = [];
      for (const item of splitList(responseHeaders ?? '')) {
        const header = parseHeaderName(item);
        if (header === undefined || header === 'host') report(Reason.InvalidAnnotation, `annotation ${n('auth-response-headers')}: ${JSON.stringify(item)} is not a header name that can be set; it is ignored`);
        else if (!names.includes(header)) names.push(header);
      }
      settings.external = { url: parsed, responseHeaders: names };
      const always = raw('auth-always-set-cookie')?.trim();
      // The service's Set-Cookie is passed on every answer either way (ext-authz.ts); only the value is checked.
      if (always !== undefined && always !== 'true' && always !== 'false') {
        report(Reason.InvalidAnnotation, `annotation ${n('auth-always-set-cookie')} has invalid value ${JSON.stringify(always)}; accepted values: "true", "false"`);
      }
      const signin = readSignin(raw('auth-signin'), raw('auth-signin-redirect-param'), report);
      if (signin !== undefined) settings.external.signin = signin;
    }
  }
  const satisfy = raw('satisfy')?.trim();
  if (satisfy !== undefined && satisfy !== 'all' && satisfy !== 'any') {
    report(Reason.InvalidAnnotation, `annotation ${n('satisfy')} has invalid value ${JSON.stringify(satisfy)}; accepted values: "all", "any"; "all" is used`);
  } else if (satisfy === 'any' && settings.basic !== undefined) {
    if (settings.external !== undefined) settings.satisfyAny = true;
    settings.anyWithAllowList = true;
  }
  return settings.basic === undefined && settings.external === undefined && settings.refused === undefined ? undefined : settings;
}

/** The nginx variables auth-signin may use; the Lua filter fills them in per request (envoy/auth-signin.ts). */
const signinVariables = new Set(['host', 'http_host', 'best_http_host', 'scheme', 'pass_access_scheme', 'request_uri', 'escaped_request_uri']);

/**
 * The sign-in URL template with the redirect parameter as ingress-nginx's buildAuthSignURL appends it: `?rd=` (or
 * `&rd=`) `$pass_access_scheme://$http_host$escaped_request_uri`, unless the URL's query already has the parameter.
 * A value that is not an absolute http(s) URL, or uses other nginx variables, is reported and left out (a 401 then
 * goes to the client as it is).
 */
function readSignin(value: string | undefined, param: string | undefined, report: (reason: string, message: string) => void): string | undefined {
  if (value === undefined) {
    if (param !== undefined) report(Reason.InvalidAnnotation, `annotation ${n('auth-signin-redirect-param')} ignored: it needs ${n('auth-signin')}`);
    return undefined;
  }
  const url = value.trim();
  const unknown = [...url.matchAll(/\$([A-Za-z_]+)/g)].map((m) => m[1] ?? '').filter((v) => !signinVariables.has(v));
  const shown = JSON.stringify(url.length > 200 ? `${url.slice(0, 200)}...` : url);
  if (!/^https?:\/\/[^\s"'\\]+$/.test(url) || unknown.length > 0) {
    const why = unknown.length > 0 ? `uses nginx variables that cannot be filled in (${unknown.map((v) => `$${v}`).join(', ')}; known: ${[...signinVariables].map((v) => `$${v}`).join(', ')})` : 'is not an absolute http:// or https:// URL';
    report(Reason.InvalidAnnotation, `annotation ${n('auth-signin')} has value ${shown}, which ${why}; it is ignored: a 401 of the authentication goes to the client`);
    return undefined;
  }
  const name = (param ?? '').trim() === '' ? 'rd' : (param ?? '').trim();
  if (!/^[A-Za-z0-9_.~-]+$/.test(name)) {
    report(Reason.InvalidAnnotation, `annotation ${n('auth-signin-redirect-param')} has invalid value ${JSON.stringify(param)}; "rd" is used`);
    return readSignin(value, undefined, report);
  }
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  if (query === '') return `${url.replace(/\?$/, '')}?${name}=$pass_access_scheme://$http_host$escaped_request_uri`;
  if (query.split('&').some((pair) => pair.split('=')[0] === name)) return url;
  return `${url}&${name}=$pass_access_scheme://$http_host$escaped_request_uri`;
}

/** An absolute http(s) URL without credentials, fragment or query; a problem description otherwise. */
function parseAuthUrl(text: string): URL | string {
  const shown = JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);
  // ingress-nginx examples often use `https://$host/oauth2/auth`; Envoy has no per-request auth URL.
  if (text.includes('$')) return `has value ${shown}, which uses nginx variables: not supported (a fixed URL is)`;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return `has invalid value ${shown}; accepted: an absolute http:// or https:// URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `has invalid value ${shown}; accepted: an absolute http:// or https:// URL`;
  if (url.username !== '' || url.password !== '' || url.hash !== '') return `has invalid value ${shown}: credentials and fragments are not accepted`;
  if (url.search !== '') return `has a query string (${shown}), which Envoy cannot send: the request path is appended to the URL's path`;
  return url;
}

/** What the translator resolved for one Ingress. */
type ResolvedAuth = { refused: string } | { basic?: BasicAuthIR; users?: BasicAuthUsersIR; external?: ExternalAuthIR; cluster?: ClusterIR; anyWithAllowList?: boolean };

/** The cluster state the resolution reads. */
export interface NginxAuthInputs {
  secrets: readonly Secret[];
  services: ServiceIndex;
  /** Which auth-url targets outside the Ingress's namespace are used. */
  urlTargets: UrlTargetPolicy;
}

/**
 * Puts each Ingress's authentication on its forwarding routes in every route table of the gateway (new routes, and
 * new virtual hosts and tables holding them), adds the authorization services' clusters, and reports Secrets and
 * services that cannot be used. Runs after the route tables are assembled, so no route copy is made afterwards.
 */
export function withNginxAuth(
  gateway: FinishedDataPlane,
  settingsByIngress: ReadonlyMap<string, { ingress: Ingress; auth: NginxAuthSettings }>,
  inputs: NginxAuthInputs,
  diagnostics: Diagnostic[],
): FinishedDataPlane {
  if (settingsByIngress.size === 0) return gateway;
  const secrets = new Map(inputs.secrets.map((s) => [`${namespaceOf(s.metadata)}/${s.metadata.name}`, s]));
  const resolved = new Map<string, ResolvedAuth>();
  for (const [key, { ingress, auth }] of settingsByIngress) resolved.set(key, resolveAuth(ingress, auth, secrets, inputs, diagnostics));

  const { ir, httpsTable } = withRewrittenRoutes(gateway, (route) => {
    if (route.source === undefined || route.action.kind !== 'forward') return route;
    const auth = resolved.get(refKey(route.source));
    if (auth === undefined) return route;
    if ('refused' in auth) {
      const { policy: _, ...kept } = route;
      return { ...kept, action: { kind: 'direct', status: 503, body: locationDeniedPage, contentType: 'text/html' } };
    }
    const policy = { ...route.policy };
    if (auth.basic !== undefined) {
      const allowList = policy.allowedSourceCidrs;
      if (auth.anyWithAllowList === true && allowList !== undefined) {
        // satisfy: any: the allow-list admits without credentials instead of refusing everybody else (403).
        policy.basicAuth = { ...auth.basic, allowedWithoutCredentials: allowList.map((c) => ({ ...c })) };
        delete policy.allowedSourceCidrs;
      } else {
        policy.basicAuth = auth.basic;
      }
    }
    if (auth.external !== undefined) policy.externalAuth = { ...auth.external, responseHeaders: [...auth.external.responseHeaders] };
    return { ...route, policy };
  });
  const clusters = new Map(ir.clusters.map((c) => [c.name, c]));
  for (const auth of resolved.values()) {
    if (!('refused' in auth) && auth.cluster !== undefined && !clusters.has(auth.cluster.name)) clusters.set(auth.cluster.name, auth.cluster);
  }
  const users = new Map<string, BasicAuthUsersIR>();
  for (const auth of resolved.values()) if (!('refused' in auth) && auth.users !== undefined) users.set(auth.users.id, auth.users);
  return {
    ir: {
      ...ir,
      clusters: [...clusters.values()].sort((a, b) => compareStrings(a.name, b.name)),
      ...(users.size > 0 ? { basicAuthUsers: [...users.values()].sort((a, b) => compareStrings(a.id, b.id)) } : {}),
    },
    httpsTable,
  };
}

/** What nginx answers for a denied location (503), as ingress-nginx serves a location whose auth cannot be set up. */
export const locationDeniedPage = `<html>
<head><title>503 Service Temporarily Unavailable</title></head>
<body>
<center><h1>503 Service Temporarily Unavailable</h1></center>
</body>
</html>
`;

function resolveAuth(
  ingress: Ingress,
  auth: NginxAuthSettings,
  secrets: ReadonlyMap<string, Secret>,
  { services, urlTargets }: NginxAuthInputs,
  diagnostics: Diagnostic[],
): ResolvedAuth {
  if (auth.refused !== undefined) return { refused: auth.refused };
  const report = (reason: string, message: string): void => {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason, message });
  };
  const result: { basic?: BasicAuthIR; users?: BasicAuthUsersIR; external?: ExternalAuthIR; cluster?: ClusterIR; anyWithAllowList?: boolean } = {};
  if (auth.anyWithAllowList === true) result.anyWithAllowList = true;
  if (auth.basic !== undefined) {
    const { namespace, name } = auth.basic.secret;
    const secret = secrets.get(`${namespace}/${name}`);
    const denied = `the Ingress's paths answer 503 until it is fixed`;
    if (secret === undefined) {
      // In Kubernetes mode only Secrets of type Opaque are watched for users (cluster-source.ts).
      report(Reason.SecretNotFound, `auth-secret ${namespace}/${name} not found (it must be a Secret of type Opaque); ${denied}`);
      return { refused: 'auth-secret not found' };
    }
    const users = readUsers(secret, auth.basic.secretType);
    if ('error' in users) {
      report(Reason.SecretInvalid, `auth-secret ${namespace}/${name} ${users.error}; ${denied}`);
      return { refused: 'auth-secret invalid' };
    }
    for (const problem of users.skipped) report(Reason.BasicAuthUserSkipped, `auth-secret ${namespace}/${name}: ${problem}`);
    const ref: ObjectRef<'Secret'> = { kind: 'Secret', namespace, name };
    const usersId = `${namespace}/${name}/${auth.basic.secretType}`;
    result.users = { id: usersId, users: new HtpasswdUsers(users.lines.map((line) => `${line}\n`).join('')) };
    result.basic = { usersId, realm: auth.basic.realm, secret: ref, ...(auth.satisfyAny === true ? { satisfyAny: true } : {}) };
  }
  if (auth.external !== undefined) {
    const target = clusterForUrl(ingress, auth.external.url, services, 'auth-url', Reason.AuthUrlRefused, urlTargets);
    if ('error' in target) {
      report(target.reason, `auth-url ${auth.external.url.href}: ${target.error}; the Ingress's paths answer 503 until it is fixed`);
      return { refused: 'auth-url unusable' };
    }
    const headers = auth.external.responseHeaders;
    const uri = auth.external.url.href;
    result.cluster = target.cluster;
    result.external = {
      filter: `ext_authz ${uri}${headers.length > 0 ? ` ${headers.join(',')}` : ''}`,
      uri,
      cluster: target.cluster.name,
      pathPrefix: auth.external.url.pathname.replace(/\/+$/, ''),
      responseHeaders: [...headers],
      ...(auth.external.signin !== undefined ? { signin: auth.external.signin } : {}),
    };
  }
  return result;
}

/** Parsed annotations of an Ingress with authentication (nginx-annotations.ts puts it there). */
export interface WithNginxAuth {
  nginxAuth?: NginxAuthSettings;
}

/** The auth settings of each Ingress that has some (parseAnnotationsWithNginx put them there), by `refKey`. */
export function nginxAuthByIngress(annotations: ReadonlyMap<Ingress, IngressAnnotations>): Map<string, { ingress: Ingress; auth: NginxAuthSettings }> {
  const byIngress = new Map<string, { ingress: Ingress; auth: NginxAuthSettings }>();
  for (const [ingress, parsed] of annotations) {
    const auth = (parsed as WithNginxAuth).nginxAuth;
    if (auth !== undefined) byIngress.set(refKey(refOf(ingress)), { ingress, auth });
  }
  return byIngress;
}

/** The translation's references plus the Secrets and Services the auth annotations name. */
export function nginxAuthReferences(byIngress: ReadonlyMap<string, { auth: NginxAuthSettings }>, references: References): References {
  if (byIngress.size === 0) return references;
  const secrets = new Set(references.secrets);
  const services = new Set(references.services);
  for (const { auth } of byIngress.values()) {
    if (auth.basic !== undefined) secrets.add(`${auth.basic.secret.namespace}/${auth.basic.secret.name}`);
    const service = auth.external === undefined ? undefined : serviceOfUrlHost(auth.external.url.hostname);
    if (service !== undefined) services.add(service);
  }
  return { services: [...services].sort(compareStrings), secrets: [...secrets].sort(compareStrings) };
}
