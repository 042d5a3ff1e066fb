// The translator: a consistent ClusterState -> the desired data plane (IR) plus diagnostics for users. Pure and
// deterministic. Each input API has a translator of its own, in a sibling folder that imports only shared/ and the
// IR (ingress/: Ingress with its ingress-nginx layer; gateway-api/: the Gateway API); this file runs them and joins
// what they give into one data plane, whose listeners the Envoy builders group by address and port.
import { compareStrings, type BasicAuthUsersIR, type CertificateAuthorityIR, type ClusterIR, type TlsSecretIR } from '../../ir/index.js';
import { joinSharedPorts } from './coexistence.js';
import { type GatewayApiTranslation, translateGatewayApi } from './gateway-api/translate-gateway-api.js';
import type { GatewayApiStatus } from './gateway-api/status-data.js';
import { type TranslationResult as IngressTranslationResult, translateIngresses } from './ingress/translate-ingresses.js';
import { frozenInTests } from './shared/freeze-in-tests.js';
import { type ClusterState, refKey } from './shared/kube-objects.js';
import { type TranslateOptions, defaultListenerPorts } from './shared/options.js';
import { mergeByKey, mergeSorted } from './shared/sorted-merge.js';
import { sameObjects } from './shared/same-objects.js';
import { sortedByKey } from './shared/ordering.js';

/** Both translators' result: the Ingress one's, plus the Gateway API objects' status as data when there are any. */
export type TranslationResult = IngressTranslationResult & { gatewayApiStatus?: GatewayApiStatus };

/** Each translator's own result behind a joined one, for the next incremental translation (incremental-translate.ts). */
const parts = new WeakMap<TranslationResult, TranslationParts>();

export interface TranslationParts {
  ingress: IngressTranslationResult;
  gateway: GatewayApiTranslation;
}

export function translationPartsOf(result: TranslationResult): TranslationParts | undefined {
  return parts.get(result);
}

export function translate(state: ClusterState, options: TranslateOptions): TranslationResult {
  return joinTranslations(state, translateIngresses(state, options), translateGatewayApi(state, options), options);
}

/**
 * Carries the parts of `previous` to `next`, its copy with some certificates' bytes replaced (a secrets build,
 * controller/pipeline/certificate-only-changes.ts): the Ingress part with the same replaced, the Gateway API part
 * as it was when it names no Secret.
 */
export function carryPartsAfterSecrets(previous: TranslationResult, next: TranslationResult, replaced: (secret: TlsSecretIR) => TlsSecretIR): void {
  const known = parts.get(previous);
  if (known === undefined) return;
  // A Gateway API part naming a Secret holds its old bytes (listener and client certificates): no parts, the next
  // translation is a full one.
  if (known.gateway.secrets.length > 0 || known.gateway.secretNames.length > 0) return;
  const ingress = known.ingress === previous ? next : { ...known.ingress, ir: { ...known.ingress.ir, secrets: known.ingress.ir.secrets.map(replaced) } };
  parts.set(next, { ingress, gateway: known.gateway });
}

/** Both translators' results as one data plane (and the parts remembered beside it). */
export function joinTranslations(state: ClusterState, ingress: IngressTranslationResult, gateway: GatewayApiTranslation, options: TranslateOptions, previous?: TranslationResult): TranslationResult {
  const result = withListsOf(previous, joined(state, ingress, gateway, options));
  parts.set(result, { ingress, gateway });
  return result;
}

/**
 * `result` with `previous`'s cluster, certificate and CA lists where they hold the same objects: the builders and
 * the config builder (config-builder.ts) recognise an unchanged list by identity (CDS, EDS and SDS not built again).
 */
function withListsOf(previous: TranslationResult | undefined, result: TranslationResult): TranslationResult {
  if (previous === undefined || result === previous) return result;
  const same = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean => a === b || (a !== undefined && b !== undefined && sameObjects(a, b));
  const { clusters, secrets, certificateAuthorities } = result.ir;
  const keep = {
    clusters: same(previous.ir.clusters, clusters) && clusters !== previous.ir.clusters,
    secrets: same(previous.ir.secrets, secrets) && secrets !== previous.ir.secrets,
    certificateAuthorities: same(previous.ir.certificateAuthorities, certificateAuthorities) && certificateAuthorities !== previous.ir.certificateAuthorities,
  };
  if (!keep.clusters && !keep.secrets && !keep.certificateAuthorities) return result;
  return {
    ...result,
    ir: frozenInTests({
      ...result.ir,
      ...(keep.clusters ? { clusters: previous.ir.clusters } : {}),
      ...(keep.secrets ? { secrets: previous.ir.secrets } : {}),
      ...(keep.certificateAuthorities && previous.ir.certificateAuthorities !== undefined ? { certificateAuthorities: previous.ir.certificateAuthorities } : {}),
    }),
  };
}

function joined(state: ClusterState, ingress: IngressTranslationResult, gateway: GatewayApiTranslation, options: TranslateOptions): TranslationResult {
  // Nothing of the Gateway API served: the Ingress result, with the status data still (a GatewayClass of ours is
  // Accepted, with its supportedFeatures, before any Gateway exists: the conformance suite reads them first).
  if (gateway.served.length === 0 && gateway.diagnostics.length === 0) {
    return gateway.status.gatewayClasses.length === 0 ? ingress : { ...ingress, gatewayApiStatus: gateway.status };
  }
  // A Gateway HTTP listener on the Ingress HTTP port joins the Ingress HTTP listener, Gateway HTTPS listeners with a
  // hostname on the Ingress HTTPS port the Ingress HTTPS one (coexistence.ts); other listeners on the Ingress ports
  // are refused by the Gateway API translator, so nothing else collides here.
  const joined = joinSharedPorts(state, ingress.ir.listeners, gateway.listeners, gateway.status, options.listenerPorts ?? defaultListenerPorts);
  const listeners = joined.listeners.sort((a, b) => compareStrings(a.name, b.name));
  // A cluster named by both is one Service port; the Ingress translator's object is kept (a plain Service port
  // cluster from the Gateway API translator adds nothing to it).
  const known = new Set(ingress.ir.clusters.map((c) => c.name));
  const clusters = mergeByKey<ClusterIR>(ingress.ir.clusters, gateway.clusters.filter((c) => !known.has(c.name)), (c) => c.name);
  // A Secret both name is one certificate (its SDS name is the Secret's): kept once.
  const knownSecrets = new Set(ingress.ir.secrets.map((s) => s.name));
  const newSecrets = gateway.secrets.filter((s) => !knownSecrets.has(s.name));
  const secrets = newSecrets.length === 0 ? ingress.ir.secrets : mergeByKey<TlsSecretIR>(ingress.ir.secrets, newSecrets, (s) => s.name);
  // The BackendTLSPolicies' CAs (backendtlspolicy/...) and the Gateways' (frontend-validation.ts) have names of their
  // own, never an Ingress CA's.
  const certificateAuthorities =
    gateway.certificateAuthorities.length === 0
      ? ingress.ir.certificateAuthorities
      : mergeByKey<CertificateAuthorityIR>(ingress.ir.certificateAuthorities ?? [], gateway.certificateAuthorities, (c) => c.name);
  // RoutePolicies' basic-auth users: one Secret read the same way by both is one entry (its id names Secret and type).
  const basicAuthUsers =
    gateway.basicAuthUsers.length === 0 ? ingress.ir.basicAuthUsers : mergeByKey<BasicAuthUsersIR>(ingress.ir.basicAuthUsers ?? [], gateway.basicAuthUsers.filter((u) => !(ingress.ir.basicAuthUsers ?? []).some((i) => i.id === u.id)), (u) => u.id);
  return {
    ...ingress,
    ir: frozenInTests({
      ...ingress.ir,
      listeners,
      clusters,
      secrets,
      ...(certificateAuthorities === undefined ? {} : { certificateAuthorities }),
      ...(basicAuthUsers === undefined ? {} : { basicAuthUsers }),
    }),
    // Stable: each object's diagnostics keep the order they were found in.
    diagnostics: sortedByKey([...ingress.diagnostics, ...gateway.diagnostics, ...joined.diagnostics], (d) => refKey(d.object)),
    references: {
      ...ingress.references,
      services: mergeSorted([...ingress.references.services], gateway.services),
      secrets: mergeSorted([...ingress.references.secrets], gateway.secretNames),
      ...(gateway.configMapNames.length === 0 ? {} : { configMaps: gateway.configMapNames }),
    },
    servedGatewayApi: gateway.served,
    gatewayApiStatus: joined.status,
  };
}
