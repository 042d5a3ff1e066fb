import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { Command } from 'commander';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { defaultEdgeHardening } from '../envoy/edge-hardening.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { addTranslationFlags, translationOptions, type TranslationFlags } from './controller-options.js';

/** Parses argv with the real commander flags and returns the options the commands build from them. */
function parse(argv: string[]): ReturnType<typeof translationOptions> {
  const cmd = addTranslationFlags(new Command('render')).exitOverride();
  cmd.parse(argv, { from: 'user' });
  return translationOptions(cmd.opts<TranslationFlags>());
}

test('defaults match the translator defaults and listen on all interfaces', (t) => {
  t.deepEqual(parse([]), {
    translate: defaultTranslateOptions,
    envoy: { listenAddress: '0.0.0.0', httpPort: 8080, httpsPort: 8443, edge: defaultEdgeHardening },
  });
});

test('flags set every option; ports become numbers', (t) => {
  const options = parse([
    '--ingress-class', 'mine',
    '--controller-name', 'example.com/ctl',
    '--https-redirect-port', '4443',
    '--listen-address', '127.0.0.1',
    '--http-port', '1080',
    '--https-port', '1443',
  ]);
  t.deepEqual(options, {
    translate: { ...defaultTranslateOptions, ingressClassName: 'mine', controllerName: 'example.com/ctl', httpsRedirectPort: 4443 },
    envoy: { listenAddress: '127.0.0.1', httpPort: 1080, httpsPort: 1443, edge: defaultEdgeHardening },
  });
});

test('edge hardening: every default can be switched by a flag', (t) => {
  const { envoy } = parse([
    '--no-normalize-path',
    '--no-merge-slashes',
    '--escaped-slashes-action', 'REJECT_REQUEST',
    '--allow-headers-with-underscores',
    '--no-use-remote-address',
    '--xff-num-trusted-hops', '2',
    '--max-request-headers-kb', '16',
    '--max-headers-count', '30',
    '--idle-timeout', '60',
    '--request-headers-timeout', '5',
    '--per-connection-buffer-limit-bytes', '0',
    '--http2-max-concurrent-streams', '250',
    '--http2-initial-stream-window-size', '131072',
    '--http2-initial-connection-window-size', '2097152',
  ]);
  t.deepEqual(envoy.edge, {
    normalizePath: false,
    mergeSlashes: false,
    escapedSlashesAction: 'REJECT_REQUEST',
    rejectHeadersWithUnderscores: false,
    useRemoteAddress: false,
    xffNumTrustedHops: 2,
    maxRequestHeadersKb: 16,
    maxHeadersCount: 30,
    idleTimeoutSeconds: 60,
    requestHeadersTimeoutSeconds: 5,
    perConnectionBufferLimitBytes: 0,
    http2MaxConcurrentStreams: 250,
    http2InitialStreamWindowSize: 131_072,
    http2InitialConnectionWindowSize: 2_097_152,
  });
});

test('edge hardening: out-of-range values name their flag', (t) => {
  t.throws(() => parse(['--max-request-headers-kb', '0']), { message: /^--max-request-headers-kb must be a whole number 1-8192/ });
  t.throws(() => parse(['--xff-num-trusted-hops', '-1']), { message: /^--xff-num-trusted-hops must be a whole number/ });
  t.throws(() => parse(['--escaped-slashes-action', 'DROP']));
  t.throws(() => parse(['--http2-initial-stream-window-size', '1024']), { message: /^--http2-initial-stream-window-size must be a whole number 65535-/ });
  t.throws(() => parse(['--http2-max-concurrent-streams', '0']), { message: /^--http2-max-concurrent-streams must be a whole number 1-/ });
});

test('--not-found-page reads the page from a file', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  await writeFile(tmp.file('404.html'), '<h1>gone</h1>');
  t.is(parse(['--not-found-page', tmp.file('404.html')]).translate.notFoundPage, '<h1>gone</h1>');
});

test('a bad port names its flag', (t) => {
  t.throws(() => parse(['--http-port', 'eighty']), { message: /^--http-port must be a port number/ });
  t.throws(() => parse(['--https-redirect-port', '70000']), { message: /^--https-redirect-port must be a port number/ });
});

test('tenant flags: hosts merged across namespaces, the default backend namespace, the route budget', (t) => {
  const { translate } = parse(['--allow-cross-namespace-hosts', '--default-backend-namespace', 'ops', '--namespace-route-budget', '500']);
  t.deepEqual(translate, { ...defaultTranslateOptions, allowCrossNamespaceHosts: true, defaultBackendNamespace: 'ops', namespaceRouteBudget: 500 });
  t.throws(() => parse(['--namespace-route-budget', '0']), { message: /--namespace-route-budget/ });
});

test('the default backend namespace defaults to the controller\'s own namespace (POD_NAMESPACE, as deploy/ sets it)', (t) => {
  const before = process.env['POD_NAMESPACE'];
  process.env['POD_NAMESPACE'] = 'envoy-ingress';
  try {
    t.is(parse([]).translate.defaultBackendNamespace, 'envoy-ingress');
    t.is(parse(['--default-backend-namespace', 'ops']).translate.defaultBackendNamespace, 'ops');
  } finally {
    if (before === undefined) delete process.env['POD_NAMESPACE'];
    else process.env['POD_NAMESPACE'] = before;
  }
});
