// The DNS server Envoy resolves upstream names through (the bootstrap's typed_dns_resolver_config, when the
// controller runs beside Envoy): it asks the real resolvers (the system's, /etc/resolv.conf, or given ones) and
// answers with the addresses minus every loopback, unspecified and link-local one (isLocalTarget). A tenant's
// ExternalName, auth-url or mirror-target host whose DNS name resolves to 127.0.0.1 or to the cloud metadata
// address (169.254.169.254, metadata.google.internal) then gives Envoy no address at all: the route answers 503.
// Checking names in the controller before Envoy resolves them would not do: DNS can answer differently the next
// time (rebinding), and Envoy re-resolves every few seconds; here every answer Envoy ever gets is checked.
// Only A and AAAA questions are answered (all Envoy asks); UDP only (answers are small). Names in /etc/hosts are
// read by Envoy itself and never asked: that file is the pod's (the kubelet's), not a tenant's.
import dgram from 'node:dgram';
import { promises as dns } from 'node:dns';
import { isLocalTarget } from '../translate/shared/external-name.js';
import { buildDnsResponse, dnsRcode, dnsType, parseDnsQuery, type DnsAnswer } from './dns-message.js';

export interface UpstreamDnsFilterOptions {
  host: string;
  /** 0 lets the OS choose. */
  port: number;
  /** Resolvers to ask, `IP` or `IP:PORT` (default: the system's). */
  servers?: readonly string[];
  log: { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
}

export interface UpstreamDnsFilter {
  port: number;
  /** Names whose answers had local addresses removed, with how many times. */
  refused: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** What the filter answers a query for `name` of `type`: pure but for `resolve`. */
export async function filteredAnswer(
  name: string,
  type: number,
  resolve: (name: string, type: number) => Promise<DnsAnswer[]>,
): Promise<{ rcode: number; answers: DnsAnswer[]; removed: string[] }> {
  if (type !== dnsType.A && type !== dnsType.AAAA) return { rcode: dnsRcode.notImp, answers: [], removed: [] };
  try {
    const all = await resolve(name, type);
    const answers = all.filter((a) => !isLocalTarget(a.address));
    return { rcode: dnsRcode.noError, answers, removed: all.filter((a) => isLocalTarget(a.address)).map((a) => a.address) };
  } catch (err: unknown) {
    const code = (err as { code?: string }).code;
    // No such name: NXDOMAIN, so the resolver tries its next search domain; a name without such records: empty.
    if (code === dns.NOTFOUND) return { rcode: dnsRcode.nxDomain, answers: [], removed: [] };
    if (code === dns.NODATA) return { rcode: dnsRcode.noError, answers: [], removed: [] };
    return { rcode: dnsRcode.servFail, answers: [], removed: [] };
  }
}

export function startUpstreamDnsFilter(o: UpstreamDnsFilterOptions): Promise<UpstreamDnsFilter> {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
  if (o.servers !== undefined && o.servers.length > 0) resolver.setServers([...o.servers]);
  const resolve = async (name: string, type: number): Promise<DnsAnswer[]> =>
    type === dnsType.A ? await resolver.resolve4(name, { ttl: true }) : await resolver.resolve6(name, { ttl: true });
  const refused = new Map<string, number>();
  const socket = dgram.createSocket(o.host.includes(':') ? 'udp6' : 'udp4');
  socket.on('message', (packet, peer) => {
    const query = parseDnsQuery(packet);
    if (query === undefined) return;
    void filteredAnswer(query.name, query.type, resolve).then(({ rcode, answers, removed }) => {
      if (removed.length > 0) {
        const key = query.name.toLowerCase();
        // Said once per name (Envoy asks again every few seconds).
        if (!refused.has(key)) o.log.warn({ name: key, addresses: removed }, 'upstream name resolves to a loopback or link-local address: those addresses are not given to Envoy');
        refused.set(key, (refused.get(key) ?? 0) + 1);
      }
      socket.send(buildDnsResponse(query, rcode, answers), peer.port, peer.address);
    });
  });
  return new Promise((resolveStart, reject) => {
    socket.once('error', reject);
    socket.bind(o.port, o.host, () => {
      socket.off('error', reject);
      socket.on('error', (err) => o.log.warn({ err }, 'upstream DNS filter socket error'));
      resolveStart({
        port: socket.address().port,
        refused,
        close: () => new Promise<void>((r) => socket.close(() => r())),
      });
    });
  });
}
