// Protobuf base-128 varints for code that splices encoded messages by hand (xds/embedded-virtual-hosts.ts,
// envoy/virtual-host-discovery.ts); the encoder itself writes them through ProtoWriter.

/** The varint at `at`: its value and the index after it. */
export function readVarint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    const b = bytes[i++];
    if (b === undefined) throw new Error('truncated varint');
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [value, i];
    shift += 7;
  }
}

/** Appends `value` (a non-negative integer up to 2^53) to `out`. */
export function writeVarint(value: number, out: number[]): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}
