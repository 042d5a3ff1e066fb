import dgram from 'node:dgram';
import test from 'ava';
import { startFakeDns } from '../../test/harness/fake-dns.js';
import { buildDnsQuery, buildDnsResponse, dnsRcode, dnsType, ipv6Bytes, parseDnsQuery, parseDnsResponse } from './dns-message.js';
import { filteredAnswer, startUpstreamDnsFilter } from './upstream-dns-filter.js';

const silent = { warn: () => {}, debug: () => {} };

function ask(port: number, name: string, type: number): Promise<{ rcode: number; addresses: string[] }> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    socket.once('message', (packet) => {
      socket.close();
      resolve(parseDnsResponse(packet));
    });
    socket.send(buildDnsQuery(7, name, type), port, '127.0.0.1', (err) => err && reject(err));
  });
}

test('wire format: a query parses back; an answer carries A and AAAA records under the question\'s name', (t) => {
  const query = parseDnsQuery(buildDnsQuery(42, 'svc.example.test', dnsType.AAAA))!;
  t.like(query, { id: 42, rd: true, name: 'svc.example.test', type: dnsType.AAAA, class: 1 });
  const answer = parseDnsResponse(buildDnsResponse(query, dnsRcode.noError, [{ address: '2001:db8::1', ttl: 5 }, { address: '192.0.2.1', ttl: 5 }]));
  t.deepEqual(answer, { id: 42, rcode: 0, addresses: ['2001:db8:0:0:0:0:0:1', '192.0.2.1'] });
  t.deepEqual([...ipv6Bytes('::ffff:127.0.0.1')], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]);
  t.is(parseDnsQuery(Buffer.from([1, 2, 3])), undefined);
});

test('filteredAnswer: loopback, link-local and unspecified addresses are removed; the rest kept; failures mapped', async (t) => {
  const resolve = async (name: string): Promise<{ address: string; ttl: number }[]> => {
    if (name === 'gone.test') throw Object.assign(new Error('x'), { code: 'ENOTFOUND' });
    if (name === 'broken.test') throw Object.assign(new Error('x'), { code: 'ESERVFAIL' });
    return ['127.0.0.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', '::ffff:127.0.0.1', '192.0.2.7', '2001:db8::7'].map((address) => ({ address, ttl: 9 }));
  };
  const { rcode, answers, removed } = await filteredAnswer('mixed.test', dnsType.A, resolve);
  t.is(rcode, dnsRcode.noError);
  t.deepEqual(answers.map((a) => a.address), ['192.0.2.7', '2001:db8::7']);
  t.is(removed.length, 6);
  t.is((await filteredAnswer('gone.test', dnsType.A, resolve)).rcode, dnsRcode.nxDomain);
  t.is((await filteredAnswer('broken.test', dnsType.A, resolve)).rcode, dnsRcode.servFail);
  t.is((await filteredAnswer('mixed.test', 16, resolve)).rcode, dnsRcode.notImp);
});

test('over UDP: asks the given resolver and answers without local addresses', async (t) => {
  const upstream = await startFakeDns({
    'metadata.attacker.test': ['169.254.169.254'],
    'loopback.attacker.test': ['127.0.0.1', '::1'],
    'mixed.attacker.test': ['127.0.0.2', '192.0.2.11'],
    'public.attacker.test': ['192.0.2.10', '2001:db8::10'],
  });
  t.teardown(() => upstream.close());
  const filter = await startUpstreamDnsFilter({ host: '127.0.0.1', port: 0, servers: [`127.0.0.1:${upstream.port}`], log: silent });
  t.teardown(() => filter.close());
  t.like(await ask(filter.port, 'metadata.attacker.test', dnsType.A), { rcode: 0, addresses: [] });
  t.deepEqual((await ask(filter.port, 'loopback.attacker.test', dnsType.A)).addresses, []);
  t.deepEqual((await ask(filter.port, 'loopback.attacker.test', dnsType.AAAA)).addresses, []);
  t.deepEqual((await ask(filter.port, 'mixed.attacker.test', dnsType.A)).addresses, ['192.0.2.11']);
  t.deepEqual((await ask(filter.port, 'public.attacker.test', dnsType.A)).addresses, ['192.0.2.10']);
  t.deepEqual((await ask(filter.port, 'public.attacker.test', dnsType.AAAA)).addresses, ['2001:db8:0:0:0:0:0:10']);
  t.is((await ask(filter.port, 'nowhere.attacker.test', dnsType.A)).rcode, dnsRcode.nxDomain);
  t.deepEqual([...filter.refused.keys()].sort(), ['loopback.attacker.test', 'metadata.attacker.test', 'mixed.attacker.test']);
});
