import test from 'ava';
import { parseHostPort, parsePort } from './address.js';

test('parseHostPort reads IPv4, host names and bracketed IPv6', (t) => {
  t.deepEqual(parseHostPort('127.0.0.1:18000', '--x'), { host: '127.0.0.1', port: 18000 });
  t.deepEqual(parseHostPort('controller.ns.svc:0', '--x'), { host: 'controller.ns.svc', port: 0 });
  t.deepEqual(parseHostPort('[::1]:65535', '--x'), { host: '::1', port: 65535 });
});

test('parseHostPort refuses what is not HOST:PORT, naming the flag and the value', (t) => {
  for (const bad of ['nope', '127.0.0.1', ':80', '::1:80', '127.0.0.1:65536', '127.0.0.1:-1', '127.0.0.1:8o', 'a:1:2']) {
    t.throws(() => parseHostPort(bad, '--xds-address'), { message: `--xds-address must be HOST:PORT (e.g. 127.0.0.1:18000), got ${JSON.stringify(bad)}` }, bad);
  }
});

test('parsePort accepts 0-65535 and refuses anything else', (t) => {
  t.is(parsePort('0', '--p'), 0);
  t.is(parsePort('65535', '--p'), 65535);
  for (const bad of ['', '65536', '-1', '80.5', '0x50', ' 80', 'http']) {
    t.throws(() => parsePort(bad, '--http-port'), { message: /^--http-port must be a port number 0-65535/ }, JSON.stringify(bad));
  }
});

test('unix:/path is a Unix socket address (port 0); a relative path is refused', (t) => {
  t.deepEqual(parseHostPort('unix:/run/envoy-ingress/xds.sock', '--xds-address'), { host: 'unix:/run/envoy-ingress/xds.sock', port: 0 });
  t.throws(() => parseHostPort('unix:xds.sock', '--xds-address'), { message: /--xds-address must be unix:\/ABSOLUTE\/PATH/ });
});
