// The ADS wire messages, encoded and decoded with protobufjs over the loaded Envoy API. Resources are already
// encoded Anys, so a response costs only its framing, whatever the number of streams.
import type protobuf from 'protobufjs';
import { envoyApi } from '../proto/envoy-api.js';

export interface NodeInfo {
  id: string;
  cluster: string;
  userAgent?: string;
}

export interface ErrorDetail {
  code: number;
  message: string;
}

export interface DiscoveryRequest {
  versionInfo: string;
  node?: NodeInfo;
  resourceNames: string[];
  typeUrl: string;
  responseNonce: string;
  errorDetail?: ErrorDetail;
}

export interface DiscoveryResponse {
  versionInfo: string;
  resources: { type_url: string; value: Uint8Array }[];
  typeUrl: string;
  nonce: string;
}

export interface DeltaDiscoveryRequest {
  node?: NodeInfo;
  typeUrl: string;
  resourceNamesSubscribe: string[];
  resourceNamesUnsubscribe: string[];
  initialResourceVersions: Record<string, string>;
  responseNonce: string;
  errorDetail?: ErrorDetail;
}

export interface DeltaDiscoveryResponse {
  systemVersionInfo: string;
  resources: { name: string; version: string; resource: { type_url: string; value: Uint8Array } }[];
  typeUrl: string;
  removedResources: string[];
  nonce: string;
}

const types = () => {
  const api = envoyApi();
  return {
    request: api.lookupType('envoy.service.discovery.v3.DiscoveryRequest'),
    response: api.lookupType('envoy.service.discovery.v3.DiscoveryResponse'),
    deltaRequest: api.lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest'),
    deltaResponse: api.lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse'),
  };
};
let cachedTypes: ReturnType<typeof types> | undefined;
function t(): ReturnType<typeof types> {
  return (cachedTypes ??= types());
}

type Plain = Record<string, unknown>;
const decodeOptions: protobuf.IConversionOptions = { longs: String, enums: String, arrays: true, objects: true, defaults: false };

function nodeOf(plain: Plain): NodeInfo | undefined {
  const node = plain['node'] as Plain | undefined;
  if (!node) return undefined;
  const info: NodeInfo = { id: String(node['id'] ?? ''), cluster: String(node['cluster'] ?? '') };
  if (typeof node['user_agent_name'] === 'string') info.userAgent = node['user_agent_name'];
  return info;
}

function errorOf(plain: Plain): ErrorDetail | undefined {
  const e = plain['error_detail'] as Plain | undefined;
  if (!e) return undefined;
  return { code: Number(e['code'] ?? 0), message: String(e['message'] ?? '') };
}

export function decodeDiscoveryRequest(bytes: Uint8Array): DiscoveryRequest {
  const type = t().request;
  const plain = type.toObject(type.decode(bytes), decodeOptions) as Plain;
  const req: DiscoveryRequest = {
    versionInfo: String(plain['version_info'] ?? ''),
    resourceNames: (plain['resource_names'] as string[] | undefined) ?? [],
    typeUrl: String(plain['type_url'] ?? ''),
    responseNonce: String(plain['response_nonce'] ?? ''),
  };
  const node = nodeOf(plain);
  if (node) req.node = node;
  const error = errorOf(plain);
  if (error) req.errorDetail = error;
  return req;
}

export function encodeDiscoveryRequest(req: DiscoveryRequest): Uint8Array {
  return t()
    .request.encode({
      version_info: req.versionInfo,
      node: req.node ? { id: req.node.id, cluster: req.node.cluster } : undefined,
      resource_names: req.resourceNames,
      type_url: req.typeUrl,
      response_nonce: req.responseNonce,
      error_detail: req.errorDetail,
    })
    .finish();
}

export function encodeDiscoveryResponse(res: DiscoveryResponse): Uint8Array {
  return t()
    .response.encode({ version_info: res.versionInfo, resources: res.resources, type_url: res.typeUrl, nonce: res.nonce })
    .finish();
}

export function decodeDiscoveryResponse(bytes: Uint8Array): DiscoveryResponse {
  const msg = t().response.decode(bytes) as unknown as Plain;
  return {
    versionInfo: String(msg['version_info'] ?? ''),
    resources: ((msg['resources'] as { type_url: string; value: Uint8Array }[] | undefined) ?? []).map((r) => ({
      type_url: r.type_url,
      value: r.value,
    })),
    typeUrl: String(msg['type_url'] ?? ''),
    nonce: String(msg['nonce'] ?? ''),
  };
}

export function decodeDeltaDiscoveryRequest(bytes: Uint8Array): DeltaDiscoveryRequest {
  const type = t().deltaRequest;
  const plain = type.toObject(type.decode(bytes), decodeOptions) as Plain;
  const req: DeltaDiscoveryRequest = {
    typeUrl: String(plain['type_url'] ?? ''),
    resourceNamesSubscribe: (plain['resource_names_subscribe'] as string[] | undefined) ?? [],
    resourceNamesUnsubscribe: (plain['resource_names_unsubscribe'] as string[] | undefined) ?? [],
    initialResourceVersions: (plain['initial_resource_versions'] as Record<string, string> | undefined) ?? {},
    responseNonce: String(plain['response_nonce'] ?? ''),
  };
  const node = nodeOf(plain);
  if (node) req.node = node;
  const error = errorOf(plain);
  if (error) req.errorDetail = error;
  return req;
}

export function encodeDeltaDiscoveryRequest(req: DeltaDiscoveryRequest): Uint8Array {
  return t()
    .deltaRequest.encode({
      node: req.node ? { id: req.node.id, cluster: req.node.cluster } : undefined,
      type_url: req.typeUrl,
      resource_names_subscribe: req.resourceNamesSubscribe,
      resource_names_unsubscribe: req.resourceNamesUnsubscribe,
      initial_resource_versions: req.initialResourceVersions,
      response_nonce: req.responseNonce,
      error_detail: req.errorDetail,
    })
    .finish();
}

export function encodeDeltaDiscoveryResponse(res: DeltaDiscoveryResponse): Uint8Array {
  return t()
    .deltaResponse.encode({
      system_version_info: res.systemVersionInfo,
      resources: res.resources,
      type_url: res.typeUrl,
      removed_resources: res.removedResources,
      nonce: res.nonce,
    })
    .finish();
}

export function decodeDeltaDiscoveryResponse(bytes: Uint8Array): DeltaDiscoveryResponse {
  const msg = t().deltaResponse.decode(bytes) as unknown as Plain;
  return {
    systemVersionInfo: String(msg['system_version_info'] ?? ''),
    resources: ((msg['resources'] as Plain[] | undefined) ?? []).map((r) => ({
      name: String(r['name'] ?? ''),
      version: String(r['version'] ?? ''),
      resource: r['resource'] as { type_url: string; value: Uint8Array },
    })),
    typeUrl: String(msg['type_url'] ?? ''),
    removedResources: (msg['removed_resources'] as string[] | undefined) ?? [],
    nonce: String(msg['nonce'] ?? ''),
  };
}
