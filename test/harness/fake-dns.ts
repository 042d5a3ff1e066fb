// A DNS server for tests, on loopback UDP: answers A/AAAA questions from a table (NXDOMAIN for names not in it) and
// remembers the names it was asked.
import dgram from 'node:dgram';
import { buildDnsResponse, dnsRcode, dnsType, parseDnsQuery } from '../../controller/upstream-dns/dns-message.js';

export interface FakeDns {
  port: number;
  asked: string[];
  close(): void;
}

export async function startFakeDns(records: Record<string, string[]>): Promise<FakeDns> {
  const asked: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (packet, peer) => {
    const query = parseDnsQuery(packet);
    if (query === undefined) return;
    asked.push(query.name);
    const addresses = records[query.name];
    const wanted = (addresses ?? []).filter((a) => (query.type === dnsType.A ? !a.includes(':') : a.includes(':')));
    const response =
      addresses === undefined
        ? buildDnsResponse(query, dnsRcode.nxDomain)
        : buildDnsResponse(query, dnsRcode.noError, wanted.map((address) => ({ address, ttl: 30 })));
    socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, asked, close: () => socket.close() };
}
