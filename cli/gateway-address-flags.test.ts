import test from 'ava';
import { parseAddressPool, parsePortRange, parseSelector } from './gateway-address-flags.js';

test('port range', (t) => {
  t.deepEqual(parsePortRange('20000-20999'), { first: 20000, last: 20999 });
  t.deepEqual(parsePortRange('80-80'), { first: 80, last: 80 });
  for (const bad of ['20000', '2-1', '0-10', '1-65536', 'a-b']) t.throws(() => parsePortRange(bad), { message: /--gateway-port-range/ });
});

test('address pool: IPs and IPv4 CIDRs, in order, without repeats', (t) => {
  t.deepEqual(parseAddressPool('127.0.0.11, 127.0.0.12'), ['127.0.0.11', '127.0.0.12']);
  t.deepEqual(parseAddressPool('10.1.2.5/30,10.1.2.4'), ['10.1.2.4', '10.1.2.5', '10.1.2.6', '10.1.2.7']);
  t.deepEqual(parseAddressPool('fd00::1'), ['fd00::1']);
  for (const bad of ['', 'host.example', '10.0.0.0/33', 'fd00::/64', '10.0.0.0/8']) t.throws(() => parseAddressPool(bad), { message: /--gateway-address-pool/ });
});

test('selector', (t) => {
  t.deepEqual(parseSelector('app.kubernetes.io/name=envoy-ingress,tier=edge'), { 'app.kubernetes.io/name': 'envoy-ingress', tier: 'edge' });
  for (const bad of ['', 'novalue', '=x', 'a=b c']) t.throws(() => parseSelector(bad), { message: /--gateway-service-selector/ });
});

test('run: --gateway-port-range and --gateway-address-pool each in their mode, the range apart from the Ingress ports and its namespace watched', async (t) => {
  const { Command } = await import('commander');
  const { addTranslationFlags } = await import('./controller-options.js');
  const { addBootstrapFlags } = await import('./bootstrap-flags.js');
  const { addRunFlags, runOptionsOf } = await import('./run-flags.js');
  const parse = (args: string[]) => {
    const cmd = addRunFlags(addBootstrapFlags(addTranslationFlags(new Command('run'))));
    cmd.exitOverride().parse(args, { from: 'user' });
    return runOptionsOf(cmd.opts() as Parameters<typeof runOptionsOf>[0]);
  };
  const ranged = parse(['--gateway-port-range', '20000-20999', '--leader-election-namespace', 'edge']);
  t.deepEqual(ranged.translation.translate.gatewayAddressing, { mode: 'service', namespace: 'edge', portRange: { first: 20000, last: 20999 } });
  t.deepEqual(ranged.gatewayServices?.selector, { 'app.kubernetes.io/name': 'envoy-ingress' });
  t.deepEqual(parse(['--manifests', '/tmp', '--gateway-address-pool', '127.0.0.11']).translation.translate.gatewayAddressing, { mode: 'pool', pool: ['127.0.0.11'] });
  t.throws(() => parse(['--manifests', '/tmp', '--gateway-port-range', '20000-20999']), { message: /Kubernetes mode/ });
  t.throws(() => parse(['--gateway-address-pool', '127.0.0.11']), { message: /standalone mode/ });
  t.throws(() => parse(['--gateway-port-range', '8000-9000']), { message: /--http-port/ });
  t.throws(() => parse(['--gateway-port-range', '20000-20999', '--watch-namespace', 'apps', '--leader-election-namespace', 'edge']), { message: /does not watch/ });
  // The load balancer's addresses: with the port range only, into the translation and the Service manager alike.
  const withAddresses = parse(['--gateway-port-range', '20000-20999', '--gateway-load-balancer-addresses', '10.251.0.100/30,10.251.0.199']);
  t.deepEqual(withAddresses.translation.translate.gatewayAddressing, {
    mode: 'service',
    namespace: 'envoy-ingress',
    portRange: { first: 20000, last: 20999 },
    loadBalancerAddresses: ['10.251.0.100', '10.251.0.101', '10.251.0.102', '10.251.0.103', '10.251.0.199'],
  });
  t.deepEqual(withAddresses.gatewayServices?.loadBalancerAddresses, ['10.251.0.100', '10.251.0.101', '10.251.0.102', '10.251.0.103', '10.251.0.199']);
  t.throws(() => parse(['--gateway-load-balancer-addresses', '10.251.0.1']), { message: /needs --gateway-port-range/ });
  t.throws(() => parse(['--gateway-port-range', '20000-20999', '--gateway-load-balancer-addresses', 'lb.example']), { message: /--gateway-load-balancer-addresses/ });
});
