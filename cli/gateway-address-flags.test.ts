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
