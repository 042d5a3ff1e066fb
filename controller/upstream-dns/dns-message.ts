// The little of the DNS wire format (RFC 1035) the upstream DNS filter needs: read a query's header and question,
// write an answer to it with A/AAAA records. Pure.
import { isIP } from 'node:net';

export const dnsType = { A: 1, AAAA: 28 } as const;
export const dnsRcode = { noError: 0, formErr: 1, servFail: 2, nxDomain: 3, notImp: 4, refused: 5 } as const;

export interface DnsQuery {
  id: number;
  /** Recursion desired (echoed). */
  rd: boolean;
  name: string;
  type: number;
  class: number;
  /** The question section as received (echoed in the answer). */
  question: Buffer;
}

/** A query with exactly one question, or undefined for anything else (a response, a truncated packet...). */
export function parseDnsQuery(packet: Buffer): DnsQuery | undefined {
  if (packet.length < 12) return undefined;
  const flags = packet.readUInt16BE(2);
  const isResponse = (flags & 0x8000) !== 0;
  const opcode = (flags >> 11) & 0xf;
  if (isResponse || opcode !== 0 || packet.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    if (offset >= packet.length) return undefined;
    const length = packet[offset]!;
    offset += 1;
    if (length === 0) break;
    // No compression in a question of a query; labels are at most 63 bytes.
    if (length > 63 || offset + length > packet.length) return undefined;
    labels.push(packet.toString('latin1', offset, offset + length));
    offset += length;
  }
  if (offset + 4 > packet.length) return undefined;
  return {
    id: packet.readUInt16BE(0),
    rd: (flags & 0x0100) !== 0,
    name: labels.join('.'),
    type: packet.readUInt16BE(offset),
    class: packet.readUInt16BE(offset + 2),
    question: packet.subarray(12, offset + 4),
  };
}

export interface DnsAnswer {
  address: string;
  ttl: number;
}

/** The response to `query`: `rcode`, and A or AAAA records (by the address family) naming the question's name. */
export function buildDnsResponse(query: DnsQuery, rcode: number, answers: readonly DnsAnswer[] = []): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.id, 0);
  // QR, RD as asked, RA, and the rcode.
  header.writeUInt16BE(0x8000 | (query.rd ? 0x0100 : 0) | 0x0080 | (rcode & 0xf), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  const records = answers.map((answer) => {
    const v4 = isIP(answer.address) === 4;
    const data = v4 ? Buffer.from(answer.address.split('.').map(Number)) : ipv6Bytes(answer.address);
    const record = Buffer.alloc(12);
    // The name: a pointer to the question's (offset 12).
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(v4 ? dnsType.A : dnsType.AAAA, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(Math.max(0, Math.min(answer.ttl, 0x7fffffff)), 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.question, ...records]);
}

/** The 16 bytes of an IPv6 address (with `::` and an IPv4 tail expanded). */
export function ipv6Bytes(address: string): Buffer {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

/** A query for `name` (tests, and the filter's own checks). */
export function buildDnsQuery(id: number, name: string, type: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  const labels = name.split('.').filter(Boolean).map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')]));
  const tail = Buffer.alloc(5);
  tail.writeUInt16BE(type, 1);
  tail.writeUInt16BE(1, 3);
  return Buffer.concat([header, ...labels, tail]);
}

/** The answers of a response (A/AAAA only), and its rcode: for tests and the filter's checks. */
export function parseDnsResponse(packet: Buffer): { id: number; rcode: number; addresses: string[] } {
  const id = packet.readUInt16BE(0);
  const rcode = packet.readUInt16BE(2) & 0xf;
  const count = packet.readUInt16BE(6);
  let offset = 12;
  const skipName = (): void => {
    for (;;) {
      const length = packet[offset]!;
      if ((length & 0xc0) === 0xc0) {
        offset += 2;
        return;
      }
      offset += 1 + length;
      if (length === 0) return;
    }
  };
  skipName();
  offset += 4;
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) {
    skipName();
    const type = packet.readUInt16BE(offset);
    const length = packet.readUInt16BE(offset + 8);
    const data = packet.subarray(offset + 10, offset + 10 + length);
    if (type === dnsType.A && length === 4) addresses.push([...data].join('.'));
    if (type === dnsType.AAAA && length === 16) {
      const groups: string[] = [];
      for (let g = 0; g < 8; g++) groups.push(data.readUInt16BE(g * 2).toString(16));
      addresses.push(groups.join(':'));
    }
    offset += 10 + length;
  }
  return { id, rcode, addresses };
}
