// A growable byte buffer that writes protobuf wire format. Length-delimited fields reserve one byte for their
// length and shift the body when it turns out longer than 127 bytes, so a nested message is written once,
// in place, without the per-field operation list protobufjs's Writer builds.

const float32 = new Float32Array(1);
const float32Bytes = new Uint8Array(float32.buffer);
const float64 = new Float64Array(1);
const float64Bytes = new Uint8Array(float64.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  reset(): void {
    this.pos = 0;
  }

  /** A copy of the bytes written so far, exactly sized (the scratch buffer is reused). */
  bytes(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const grown = Buffer.allocUnsafeSlow(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** Unsigned varint of a non-negative integer up to 2^53. */
  varint(value: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    if (value < 0x80000000) {
      while (value > 0x7f) {
        buf[pos++] = (value & 0x7f) | 0x80;
        value >>>= 7;
      }
      buf[pos++] = value;
    } else {
      while (value > 0x7f) {
        buf[pos++] = (value % 128) | 0x80;
        value = Math.floor(value / 128);
      }
      buf[pos++] = value;
    }
    this.pos = pos;
  }

  /** Varint of a 64-bit two's complement value (negative int32/int64/enum values take 10 bytes). */
  varint64(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    this.ensure(10);
    while (v > 0x7fn) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  /** A signed integer as int32/int64/enum do it. */
  signed(value: number): void {
    if (value >= 0) this.varint(value);
    else this.varint64(BigInt(value));
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  fixed64(value: bigint): void {
    this.ensure(8);
    this.buf.writeBigUInt64LE(BigInt.asUintN(64, value), this.pos);
    this.pos += 8;
  }

  float(value: number): void {
    float32[0] = value;
    this.raw(littleEndian ? float32Bytes : float32Bytes.slice().reverse());
  }

  double(value: number): void {
    float64[0] = value;
    this.raw(littleEndian ? float64Bytes : float64Bytes.slice().reverse());
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Length-prefixed bytes. */
  bytesField(bytes: Uint8Array): void {
    this.varint(bytes.length);
    this.raw(bytes);
  }

  /** Length-prefixed UTF-8 string. */
  string(value: string): void {
    const n = value.length;
    if (n < 128) {
      // Most strings are short ASCII: write them byte by byte behind a one-byte length.
      this.ensure(n + 1);
      const buf = this.buf;
      const start = this.pos;
      let pos = start + 1;
      let ascii = true;
      for (let i = 0; i < n; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        buf[pos++] = c;
      }
      if (ascii) {
        buf[start] = n;
        this.pos = pos;
        return;
      }
    }
    const length = Buffer.byteLength(value, 'utf8');
    this.varint(length);
    this.ensure(length);
    this.buf.write(value, this.pos, length, 'utf8');
    this.pos += length;
  }

  /** Starts a length-delimited body; pass the result to `endDelimited` once the body is written. */
  beginDelimited(): number {
    this.ensure(1);
    const start = this.pos;
    this.pos += 1;
    return start;
  }

  endDelimited(start: number): void {
    const length = this.pos - start - 1;
    if (length < 0x80) {
      this.buf[start] = length;
      return;
    }
    let size = 1;
    for (let v = length; v > 0x7f; v = Math.floor(v / 128)) size += 1;
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    const end = this.pos + size - 1;
    this.pos = start;
    this.varint(length);
    this.pos = end;
  }
}
