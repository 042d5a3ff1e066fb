// RoutePolicy (gateway.envoy-ingress.io/v1alpha1): our own direct policy attachment (GEP-713) for what the Gateway
// API has no field for — client address ranges, basic authentication, external authorization and cookie session
// affinity of an HTTPRoute or a GRPCRoute, or of one named rule of it (targetRefs[].sectionName). Pure: policies, routes and Secrets -> per rule the route policy fields (ir/
// RoutePolicyIR, with the same meaning as the ingress-nginx annotations that build them) or why the rule must answer
// 500, the users of the basic-auth Secrets, and the policies' status as data.
//
// - Targets are local (LocalPolicyTargetReferenceWithSectionName): a policy only ever changes routes of its own
//   namespace, and its basic-auth Secret is of its own namespace too, so a tenant cannot touch another's routes.
// - Precedence: a policy naming a rule (sectionName) applies to that rule instead of one naming the whole route; two
//   policies naming the same target: the oldest (then namespace/name) wins, the other is Conflicted.
// - Fail closed: a policy that asks for access control or authentication but cannot be honoured (a bad CIDR, its
//   Secret missing or unreadable) is not accepted (Invalid) and the rules it targets answer 500 until it is fixed,
//   never served open. A Secret's content is never put in a message.
import { type AffinityCookieIR, type BasicAuthUsersIR, type CidrIR, type ClusterIR, HtpasswdUsers, type RoutePolicyIR, compareStrings } from '../../../ir/index.js';
import { type ServiceIndex, clusterName, isTcpServicePort, serviceKey } from '../shared/backend.js';
import { readUsers } from '../shared/basic-auth-users.js';
import { parseCidr } from '../shared/cidr.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import { type ClusterState, type ObjectRef, type RoutePolicy, type Secret, objectsOf, refOf } from '../shared/kube-objects.js';
import { compareByAge } from '../shared/ordering.js';
import { Reason } from '../shared/reasons.js';
import { GatewayReason } from './reasons.js';
import { type PolicyAncestorStatusData, type PolicyStatusData, type StatusCondition, condition, generationOf } from './status-data.js';

/** The RoutePolicy fields a rule gets. */
export type RoutePolicyFields = Pick<RoutePolicyIR, 'allowedSourceCidrs' | 'deniedSourceCidrs' | 'basicAuth' | 'externalAuth'>;

/**
 * Cookie session affinity as ingress-nginx's `affinity: cookie` (AffinityCookieIR), without what depends on the rule:
 * its Path when not given (the rule's path) and the backend (the rule's one backendRef), httproute-rules.ts adds them.
 */
export type AffinitySettings = Omit<AffinityCookieIR, 'path' | 'backends'> & { path?: string };

/** What applies to one rule: the policy's fields, or (a policy asking for access control it cannot give) a 500. */
export type AppliedRoutePolicy =
  /** `cluster`: the authorization service's (externalAuth), which the rule's clusters must hold. */
  | { policy: ObjectRef<'RoutePolicy'>; fields: RoutePolicyFields; cluster?: ClusterIR; affinity?: AffinitySettings }
  | { policy: ObjectRef<'RoutePolicy'>; refused: string };

/** The route kinds a RoutePolicy targets. */
export type RoutePolicyTargetKind = 'HTTPRoute' | 'GRPCRoute';
const targetKinds: readonly string[] = ['HTTPRoute', 'GRPCRoute'] satisfies RoutePolicyTargetKind[];

/** The policy that applies to a rule of an HTTPRoute or a GRPCRoute (`ruleName`: its rules[].name, if any), or undefined. */
export type RoutePolicyLookup = (kind: RoutePolicyTargetKind, namespace: string, route: string, ruleName: string | undefined) => AppliedRoutePolicy | undefined;

export interface RoutePolicies {
  lookup: RoutePolicyLookup;
  /** The users of the accepted policies' basic-auth Secrets (DataPlaneIR.basicAuthUsers), sorted by id. */
  basicAuthUsers: BasicAuthUsersIR[];
  /** `namespace/name` of every Secret a policy names, existing or not, sorted. */
  secrets: string[];
  /** `namespace/name` of every Service an externalAuth names, existing or not, sorted (watched for its endpoints). */
  services: string[];
  /** The policies' status, given per route (`kind/namespace/name`, routeKey) our Gateways (`namespace/name`) it attaches to. */
  status(gatewaysByRoute: ReadonlyMap<string, ReadonlySet<string>>, controllerName: string): PolicyStatusData[];
}

export const routePolicyGroup = 'gateway.envoy-ingress.io';
const gatewayGroup = 'gateway.networking.k8s.io';

/** The spec's limit on status.ancestors. */
const maxAncestors = 16;

/** What ingress-nginx accepts in auth-realm (nginx-auth.ts): it is put in a quoted challenge. */
const realmChars = /^[-._~a-zA-Z0-9/: ]{0,256}$/;
const objectName = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

interface Verdict {
  policy: RoutePolicy;
  /** Accepted=False: Invalid, TargetNotFound, Conflicted. */
  refusal?: { reason: 'Invalid' | 'TargetNotFound' | 'Conflicted'; message: string };
  /** Targets not found while others are (Accepted stays True, the message names them). */
  missing: string[];
  applied?: AppliedRoutePolicy;
  users?: BasicAuthUsersIR;
}

function targetKey(kind: string, namespace: string, route: string, sectionName: string | undefined): string {
  return `${kind}/${namespace}/${route}/${sectionName ?? ''}`;
}

/** How the status input (gatewaysByRoute) names a route. */
export function routeKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

function cidrList(field: string, values: unknown): CidrIR[] | string | undefined {
  if (values === undefined) return undefined;
  if (!Array.isArray(values) || values.length === 0) return `${field} must list at least one CIDR`;
  const cidrs: CidrIR[] = [];
  for (const [i, value] of values.entries()) {
    const cidr = typeof value === 'string' ? parseCidr(value.trim()) : undefined;
    if (cidr === undefined) return `${field}[${i}] ${JSON.stringify(String(value).slice(0, 100))} is not a CIDR (e.g. 10.0.0.0/8, 192.168.1.7, 2001:db8::/32)`;
    cidrs.push(cidr);
  }
  return cidrs;
}

/** Whether the policy restricts who may use its targets: if it cannot be honoured, they must not be left open. */
function restrictsAccess(policy: RoutePolicy): boolean {
  const spec = policy.spec ?? {};
  return spec.sourceRanges !== undefined || spec.basicAuth !== undefined || spec.externalAuth !== undefined;
}

/** The policy's fields, or why they cannot be honoured. */
function readFields(
  policy: RoutePolicy,
  secrets: ReadonlyMap<string, Secret>,
  readSecrets: Set<string>,
  services: ServiceIndex,
  diagnostics: Diagnostic[],
): { fields: RoutePolicyFields; users?: BasicAuthUsersIR; cluster?: ClusterIR; affinity?: AffinitySettings } | { error: string } {
  const spec = policy.spec ?? {};
  const namespace = namespaceOf(policy.metadata);
  const fail = (error: string): { error: string } => ({ error });
  const fields: RoutePolicyFields = {};
  let users: BasicAuthUsersIR | undefined;
  let cluster: ClusterIR | undefined;
  let affinity: AffinitySettings | undefined;
  if (spec.sessionAffinity !== undefined) {
    const read = readAffinity(spec.sessionAffinity);
    if ('error' in read) return fail(read.error);
    affinity = read.affinity;
  }
  if (spec.sourceRanges !== undefined) {
    const allow = cidrList('sourceRanges.allow', spec.sourceRanges.allow);
    const deny = cidrList('sourceRanges.deny', spec.sourceRanges.deny);
    if (typeof allow === 'string') return fail(allow);
    if (typeof deny === 'string') return fail(deny);
    if (allow === undefined && deny === undefined) return fail('sourceRanges names neither allow nor deny');
    if (allow !== undefined) fields.allowedSourceCidrs = allow;
    if (deny !== undefined) fields.deniedSourceCidrs = deny;
  }
  if (spec.basicAuth !== undefined) {
    const name = spec.basicAuth.secretRef?.name ?? '';
    const secretType = spec.basicAuth.secretType ?? 'auth-file';
    const realm = spec.basicAuth.realm ?? '';
    if (!objectName.test(name)) return fail(`basicAuth.secretRef.name ${JSON.stringify(name.slice(0, 100))} is not a Secret name`);
    if (secretType !== 'auth-file' && secretType !== 'auth-map') return fail(`basicAuth.secretType ${JSON.stringify(secretType.slice(0, 100))} is not "auth-file" or "auth-map"`);
    if (!realmChars.test(realm)) return fail('basicAuth.realm may only hold letters, digits, spaces and - . _ ~ / : (at most 256)');
    const key = `${namespace}/${name}`;
    readSecrets.add(key);
    const secret = secrets.get(key);
    if (secret === undefined) return fail(`basicAuth.secretRef: Secret ${key} not found`);
    const read = readUsers(secret, secretType);
    if ('error' in read) return fail(`basicAuth.secretRef: Secret ${key} ${read.error}`);
    for (const problem of read.skipped) {
      diagnostics.push({ object: refOf(policy), severity: 'Warning', reason: Reason.BasicAuthUserSkipped, message: `basicAuth Secret ${key}: ${problem}` });
    }
    const usersId = `${key}/${secretType}`;
    users = { id: usersId, users: new HtpasswdUsers(read.lines.map((line) => `${line}\n`).join('')) };
    fields.basicAuth = { usersId, realm, secret: { kind: 'Secret', namespace, name } };
  }
  if (spec.externalAuth !== undefined) {
    const external = readExternalAuth(namespace, spec.externalAuth, services);
    if ('error' in external) return fail(external.error);
    fields.externalAuth = external.auth;
    cluster = external.cluster;
  }
  if (Object.keys(fields).length === 0 && affinity === undefined) return fail('the policy sets nothing (sourceRanges, basicAuth, externalAuth, sessionAffinity)');
  return { fields, ...(users === undefined ? {} : { users }), ...(cluster === undefined ? {} : { cluster }), ...(affinity === undefined ? {} : { affinity }) };
}

/** sessionAffinity, checked as ingress-nginx checks the session-cookie-* annotations (nginx-affinity.ts). */
function readAffinity(spec: NonNullable<NonNullable<RoutePolicy['spec']>['sessionAffinity']>): { affinity: AffinitySettings } | { error: string } {
  const cookie = spec.cookie ?? {};
  const affinity: AffinitySettings = { name: cookie.name ?? 'INGRESSCOOKIE' };
  if (!/^[A-Za-z0-9\-._~:]{1,256}$/.test(affinity.name)) return { error: 'sessionAffinity.cookie.name is not a cookie name (letters, digits, "-", ".", "_", "~", ":")' };
  if (cookie.path !== undefined) {
    if (!/^\/[A-Za-z0-9\-._~/:?&=,]{0,1023}$/.test(cookie.path)) return { error: 'sessionAffinity.cookie.path must be a path starting with "/"' };
    affinity.path = cookie.path;
  }
  for (const [field, value] of [['expiresSeconds', cookie.expiresSeconds], ['maxAgeSeconds', cookie.maxAgeSeconds]] as const) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** 31) return { error: `sessionAffinity.cookie.${field} must be a whole number of seconds` };
    affinity[field] = value;
  }
  if (cookie.domain !== undefined) {
    if (!/^[A-Za-z0-9\-._~]{1,253}$/.test(cookie.domain)) return { error: 'sessionAffinity.cookie.domain is not a domain name' };
    affinity.domain = cookie.domain;
  }
  if (cookie.sameSite !== undefined) {
    if (!['none', 'lax', 'strict'].includes(cookie.sameSite.toLowerCase())) return { error: 'sessionAffinity.cookie.sameSite must be None, Lax or Strict' };
    affinity.sameSite = cookie.sameSite;
  }
  if (cookie.conditionalSameSiteNone === true) affinity.conditionalSameSiteNone = true;
  if (cookie.secure === true) affinity.secure = true;
  const mode = spec.mode ?? 'balanced';
  if (mode !== 'balanced' && mode !== 'persistent') return { error: 'sessionAffinity.mode must be "balanced" or "persistent"' };
  if (mode === 'persistent') affinity.persistent = true;
  return { affinity };
}

/**
 * externalAuth: the authorization service is a Service port of the policy's namespace (a tenant cannot send its
 * requests' headers to another's service), asked as ingress-nginx's auth-url asks: `path` + the request's path, a
 * 200 lets the request through with `responseHeaders` copied from that answer, anything else goes to the client.
 */
function readExternalAuth(
  namespace: string,
  spec: NonNullable<NonNullable<RoutePolicy['spec']>['externalAuth']>,
  services: ServiceIndex,
): { auth: NonNullable<RoutePolicyIR['externalAuth']>; cluster: ClusterIR } | { error: string } {
  const name = spec.backendRef?.name ?? '';
  const port = spec.backendRef?.port;
  if (!objectName.test(name) || port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return { error: 'externalAuth.backendRef needs the name and port of a Service of the policy\'s namespace' };
  const path = spec.path ?? '';
  if (path !== '' && !/^\/[A-Za-z0-9\-._~/:@!$&'()*+,;=%]{0,1023}$/.test(path)) return { error: 'externalAuth.path must be a path starting with "/" (no query string)' };
  const headers: string[] = [];
  for (const [i, header] of (spec.responseHeaders ?? []).entries()) {
    const lower = header.trim().toLowerCase();
    if (!/^[a-z0-9!#$%&'*+\-.^_`|~]{1,256}$/.test(lower) || lower === 'host') return { error: `externalAuth.responseHeaders[${i}] is not a header name that can be set` };
    if (!headers.includes(lower)) headers.push(lower);
  }
  const service = services.get(serviceKey(namespace, name));
  if (service === undefined || service.spec?.type === 'ExternalName') return { error: `externalAuth.backendRef: Service ${namespace}/${name} not found${service === undefined ? '' : ' (an ExternalName Service is not used)'}` };
  if (!(service.spec?.ports ?? []).some((p) => isTcpServicePort(p) && p.port === port)) return { error: `externalAuth.backendRef: Service ${namespace}/${name} has no TCP port ${port}` };
  const uri = `http://${name}.${namespace}.svc:${port}${path}`;
  const cluster: ClusterIR = { name: clusterName(namespace, name, port), service: { namespace, name, port } };
  return {
    auth: { filter: `ext_authz ${uri}${headers.length > 0 ? ` ${headers.join(',')}` : ''}`, uri, cluster: cluster.name, pathPrefix: path.replace(/\/+$/, ''), responseHeaders: headers },
    cluster,
  };
}

export function resolveRoutePolicies(state: ClusterState, secrets: ReadonlyMap<string, Secret>, services: ServiceIndex, diagnostics: Diagnostic[]): RoutePolicies {
  const routes = new Map<string, { spec?: { rules?: readonly { name?: string }[] } }>(
    [...objectsOf(state, 'HTTPRoute'), ...objectsOf(state, 'GRPCRoute')].map((r) => [routeKey(r.kind, namespaceOf(r.metadata), r.metadata.name), r]),
  );
  const readSecrets = new Set<string>();
  const readServices = new Set<string>();
  const winners = new Map<string, Verdict>();
  const verdicts: Verdict[] = [];
  // Oldest first, then namespace/name: the precedence between policies of one target.
  for (const policy of [...objectsOf(state, 'RoutePolicy')].sort(compareByAge)) {
    const namespace = namespaceOf(policy.metadata);
    const ref = refOf(policy);
    const verdict: Verdict = { policy, missing: [] };
    verdicts.push(verdict);
    const targetRefs = policy.spec?.targetRefs ?? [];
    const unsupported = targetRefs.filter((t) => t.group !== gatewayGroup || !targetKinds.includes(t.kind));
    const keys: string[] = [];
    for (const target of targetRefs.filter((t) => !unsupported.includes(t))) {
      // Local references: the route of that name in the policy's own namespace, never another tenant's.
      const route = routes.get(routeKey(target.kind, namespace, target.name));
      const what = `${target.kind} ${namespace}/${target.name}${target.sectionName === undefined ? '' : ` rule ${JSON.stringify(target.sectionName)}`}`;
      if (route === undefined || (target.sectionName !== undefined && !(route.spec?.rules ?? []).some((r) => r.name === target.sectionName))) verdict.missing.push(what);
      else keys.push(targetKey(target.kind, namespace, target.name, target.sectionName));
    }
    if (policy.spec?.externalAuth?.backendRef?.name !== undefined) readServices.add(serviceKey(namespace, policy.spec.externalAuth.backendRef.name));
    const read = readFields(policy, secrets, readSecrets, services, diagnostics);
    if (targetRefs.length === 0 || unsupported.length > 0) {
      const shown = unsupported.map((t) => `${t.kind}.${t.group}`).join(', ');
      verdict.refusal = { reason: 'Invalid', message: targetRefs.length === 0 ? 'targetRefs names no route' : `targetRefs may only name HTTPRoutes and GRPCRoutes (gateway.networking.k8s.io), not ${shown}` };
    } else if (keys.length === 0) {
      verdict.refusal = { reason: 'TargetNotFound', message: `not found: ${verdict.missing.join(', ')} (a RoutePolicy targets routes of its own namespace only)` };
    }
    const holder = keys.map((k) => winners.get(k)).find((w) => w !== undefined);
    if (holder !== undefined) {
      verdict.refusal = { reason: 'Conflicted', message: `RoutePolicy ${namespaceOf(holder.policy.metadata)}/${holder.policy.metadata.name} is older (or first by name) and targets the same route or rule` };
      continue;
    }
    const asksForAccessControl = restrictsAccess(policy);
    if ('error' in read || verdict.refusal?.reason === 'Invalid') {
      const error = 'error' in read ? read.error : (verdict.refusal?.message ?? '');
      verdict.refusal ??= { reason: 'Invalid', message: error };
      verdict.refusal.message += asksForAccessControl ? '; the targeted rules answer 500 until it is fixed' : '; the targeted rules are served without the policy';
      // Fail closed: a policy meant to restrict access that cannot be honoured must not leave its targets open.
      if (asksForAccessControl) verdict.applied = { policy: ref, refused: error };
    } else if (verdict.refusal === undefined) {
      verdict.applied = { policy: ref, fields: read.fields, ...(read.cluster === undefined ? {} : { cluster: read.cluster }), ...(read.affinity === undefined ? {} : { affinity: read.affinity }) };
      if (read.users !== undefined) verdict.users = read.users;
    }
    if (verdict.applied !== undefined) for (const k of keys) winners.set(k, verdict);
  }

  // Said on the policy itself too (Events, render, validate), not only in its status.
  const refusalReasons = { Invalid: GatewayReason.RoutePolicyInvalid, TargetNotFound: GatewayReason.RoutePolicyTargetNotFound, Conflicted: GatewayReason.RoutePolicyConflicted } as const;
  for (const v of verdicts) {
    if (v.refusal !== undefined) diagnostics.push({ object: refOf(v.policy), severity: 'Warning', reason: refusalReasons[v.refusal.reason], message: `not accepted: ${v.refusal.message}` });
  }

  const lookup: RoutePolicyLookup = (kind, namespace, route, ruleName) =>
    (ruleName === undefined ? undefined : winners.get(targetKey(kind, namespace, route, ruleName)))?.applied ?? winners.get(targetKey(kind, namespace, route, undefined))?.applied;

  const users = new Map<string, BasicAuthUsersIR>();
  for (const v of verdicts) if (v.users !== undefined && v.refusal === undefined) users.set(v.users.id, v.users);

  const status = (gatewaysByRoute: ReadonlyMap<string, ReadonlySet<string>>, controllerName: string): PolicyStatusData[] =>
    verdicts
      .map((v): PolicyStatusData => {
        const namespace = namespaceOf(v.policy.metadata);
        const generation = generationOf(v.policy);
        const accepted = v.missing.length === 0 ? 'Policy accepted' : `Policy accepted; not found: ${v.missing.join(', ')}`;
        const conditions: StatusCondition[] = [
          v.refusal === undefined ? condition('Accepted', 'True', 'Accepted', accepted, generation) : condition('Accepted', 'False', v.refusal.reason, v.refusal.message, generation),
        ];
        const targets = (v.policy.spec?.targetRefs ?? []).filter((t) => t.group === gatewayGroup && targetKinds.includes(t.kind));
        const gateways = new Set<string>();
        for (const t of targets) for (const g of gatewaysByRoute.get(routeKey(t.kind, namespace, t.name)) ?? []) gateways.add(g);
        // GEP-713: the ancestor is the Gateway the route attaches to; a policy whose routes attach to none of ours
        // (or are not found) is reported against its targeted routes themselves, so its author still sees why.
        const ancestorRefs =
          gateways.size > 0
            ? [...gateways].sort(compareStrings).map((key) => ({ group: gatewayGroup, kind: 'Gateway', namespace: key.slice(0, key.indexOf('/')), name: key.slice(key.indexOf('/') + 1) }))
            : [...new Map(targets.map((t) => [`${t.kind}/${t.name}`, t])).values()]
                .sort((a, b) => compareStrings(`${a.kind}/${a.name}`, `${b.kind}/${b.name}`))
                .map((t) => ({ group: gatewayGroup, kind: t.kind, namespace, name: t.name }));
        const ancestors: PolicyAncestorStatusData[] = ancestorRefs.slice(0, maxAncestors).map((ancestorRef) => ({ ancestorRef, controllerName, conditions }));
        return { ref: refOf(v.policy), ancestors };
      })
      .sort((a, b) => compareStrings(`${a.ref.namespace}/${a.ref.name}`, `${b.ref.namespace}/${b.ref.name}`));

  return { lookup, basicAuthUsers: [...users.values()].sort((a, b) => compareStrings(a.id, b.id)), secrets: [...readSecrets].sort(compareStrings), services: [...readServices].sort(compareStrings), status };
}
