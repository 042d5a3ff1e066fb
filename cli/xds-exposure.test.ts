import test from 'ava';
import { exposedPlaintextXdsRefusal, isLoopbackHost } from './xds-exposure.js';

test('loopback hosts: 127.0.0.0/8, ::1 and localhost; nothing else', (t) => {
  for (const h of ['127.0.0.1', '127.8.9.10', '::1', 'localhost']) t.true(isLoopbackHost(h), h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'xds.example', '::ffff:127.0.0.1']) t.false(isLoopbackHost(h), h);
});

test('plaintext xDS off loopback is refused unless TLS or the insecure flag', (t) => {
  t.regex(exposedPlaintextXdsRefusal({ host: '0.0.0.0', tls: false, allowInsecure: false }) ?? '', /not loopback and xDS is plaintext.*--xds-insecure-plaintext/);
  t.is(exposedPlaintextXdsRefusal({ host: '0.0.0.0', tls: true, allowInsecure: false }), undefined);
  t.is(exposedPlaintextXdsRefusal({ host: '0.0.0.0', tls: false, allowInsecure: true }), undefined);
  t.is(exposedPlaintextXdsRefusal({ host: '127.0.0.1', tls: false, allowInsecure: false }), undefined);
  t.is(exposedPlaintextXdsRefusal({ host: 'unix:/run/envoy-ingress/xds.sock', tls: false, allowInsecure: false }), undefined);
});
