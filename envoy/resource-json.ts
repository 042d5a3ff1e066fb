// One Envoy resource, or a part of one, as a plain object in proto3 JSON form (resource-types.ts).
export type ResourceJson = Record<string, unknown>;
