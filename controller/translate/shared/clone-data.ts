// Deep copy of plain IR data (objects, arrays, primitives). structuredClone does the same through the
// serializer and was the largest single cost of translating 10,000 Ingresses (every route is copied per host).
// Instances of classes (e.g. PrivateKey) are shared, not copied: IR data holds them as opaque values.
export function cloneData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneData) as T;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = cloneData((value as Record<string, unknown>)[key]);
    // An own "__proto__" member (JSON may have one) would set the copy's prototype if assigned.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true, configurable: true });
    else copy[key] = member;
  }
  return copy as T;
}
