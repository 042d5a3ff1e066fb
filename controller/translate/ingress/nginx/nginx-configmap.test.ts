import test from 'ava';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { ConfigMap } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxConfigMapKey, nginxConfigMapKeys } from './nginx-configmap-keys.js';
import { configMapReport } from './nginx-configmap-report.js';
import { hstsHeaderValue, nginxConfigMapAnnotationDefaults, readNginxConfigMap } from './nginx-configmap.js';

const ref = { namespace: 'ingress-nginx', name: 'ingress-nginx-controller' };
const configMap = (data: Record<string, string>): ConfigMap => ({ kind: 'ConfigMap', metadata: { ...ref }, data });

function read(data: Record<string, string> | undefined) {
  const diagnostics: Diagnostic[] = [];
  const settings = readNginxConfigMap(data === undefined ? undefined : configMap(data), ref, diagnostics);
  return { settings, diagnostics };
}

test('an empty ConfigMap gives ingress-nginx defaults and no diagnostics', (t) => {
  const { settings, diagnostics } = read({});
  t.deepEqual(diagnostics, []);
  t.is(settings.sslRedirect, true);
  t.is(settings.forceSslRedirect, false);
  t.is(settings.httpRedirectCode, 308);
  t.deepEqual(settings.hsts, { maxAgeSeconds: '31536000', includeSubdomains: true, preload: false });
  t.is(settings.proxyBodySize, '1m');
  t.is(settings.proxyConnectTimeoutSeconds, 5);
  t.is(settings.proxyReadTimeoutSeconds, 60);
  t.is(settings.proxySendTimeoutSeconds, 60);
  t.deepEqual(settings.customHttpErrors, []);
  t.is(settings.useForwardedHeaders, false);
  t.is(settings.serverTokens, false);
  t.is(settings.gzip, undefined);
});

test('a missing ConfigMap: defaults, reported on the ConfigMap', (t) => {
  const { settings, diagnostics } = read(undefined);
  t.is(settings.proxyBodySize, '1m');
  t.deepEqual(diagnostics.map((d) => [d.reason, d.object.kind, d.object.namespace, d.object.name]), [[Reason.NginxConfigMapNotFound, 'ConfigMap', ref.namespace, ref.name]]);
});

test('valid values are read as ingress-nginx reads them (Go booleans, whole seconds, nginx sizes)', (t) => {
  const { settings, diagnostics } = read({
    'ssl-redirect': 'False',
    'force-ssl-redirect': '1',
    'http-redirect-code': '301',
    'hsts-max-age': '86400',
    'hsts-include-subdomains': 'false',
    'hsts-preload': 'true',
    'proxy-body-size': '8M',
    'proxy-connect-timeout': '50',
    'proxy-read-timeout': '20',
    'proxy-send-timeout': '0',
    'custom-http-errors': '404, 503,404',
    'use-forwarded-headers': 'true',
    'server-tokens': 'true',
    'use-gzip': 'true',
    'gzip-level': '4',
    'gzip-min-length': '100',
    'gzip-types': 'text/html  application/octet-stream',
  });
  t.deepEqual(diagnostics.filter((d) => d.reason === Reason.InvalidNginxConfigMapValue), []);
  t.like(settings, {
    sslRedirect: false,
    forceSslRedirect: true,
    httpRedirectCode: 301,
    proxyBodySize: '8m',
    proxyConnectTimeoutSeconds: 50,
    proxyReadTimeoutSeconds: 20,
    proxySendTimeoutSeconds: 0,
    customHttpErrors: [404, 503],
    useForwardedHeaders: true,
    serverTokens: true,
  });
  t.deepEqual(settings.gzip, { level: 4, minLength: 100, contentTypes: ['text/html', 'application/octet-stream'] });
  t.is(hstsHeaderValue(settings.hsts!), 'max-age=86400; preload');
});

test('each invalid value is reported on the ConfigMap with the accepted form, and the default is kept', (t) => {
  const { settings, diagnostics } = read({
    'proxy-connect-timeout': '50k',
    'proxy-read-timeout': '20k',
    'proxy-body-size': 'lots',
    'http-redirect-code': '303',
    'ssl-redirect': 'yes',
    'hsts-max-age': '1d',
    'custom-http-errors': '404,abc,200',
    'gzip-level': '10',
    'use-gzip': 'true',
  });
  t.like(settings, { proxyConnectTimeoutSeconds: 5, proxyReadTimeoutSeconds: 60, proxyBodySize: '1m', httpRedirectCode: 308, sslRedirect: true, customHttpErrors: [404] });
  t.is(settings.hsts?.maxAgeSeconds, '31536000');
  t.is(settings.gzip?.level, 1);
  const invalid = diagnostics.filter((d) => d.reason === Reason.InvalidNginxConfigMapValue);
  t.true(invalid.every((d) => d.object.kind === 'ConfigMap'));
  const keys = invalid.map((d) => /^key (\S+) /.exec(d.message)?.[1]);
  t.deepEqual(keys.sort(), ['custom-http-errors', 'custom-http-errors', 'gzip-level', 'hsts-max-age', 'http-redirect-code', 'proxy-body-size', 'proxy-connect-timeout', 'proxy-read-timeout', 'ssl-redirect']);
  t.regex(invalid.find((d) => d.message.startsWith('key proxy-connect-timeout'))!.message, /"50k".*whole number of seconds.*default "5" is used/);
});

test('hsts "false" and use-gzip "false" turn those off whatever their other keys say', (t) => {
  const { settings } = read({ hsts: 'false', 'hsts-max-age': '10', 'use-gzip': 'false', 'gzip-level': '9' });
  t.is(settings.hsts, undefined);
  t.is(settings.gzip, undefined);
});

test('allow-snippet-annotations "true" is reported: snippets stay refused', (t) => {
  const { diagnostics } = read({ 'allow-snippet-annotations': 'true' });
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.NginxSnippetRefused]);
  t.regex(diagnostics[0]!.message, /stay refused/);
});

test('keys not honoured are listed in one diagnostic; honoured ones are not', (t) => {
  const { diagnostics } = read({ 'worker-processes': '4', 'ssl-protocols': 'TLSv1.3', 'proxy-body-size': '2m', 'not-a-key': 'x' });
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.NginxConfigMapKeysIgnored]);
  t.regex(diagnostics[0]!.message, /not-a-key, ssl-protocols, worker-processes/);
});

test('annotation defaults: ingress-nginx names, custom-http-errors only with a default backend, connect timeout only when not Envoy\'s 5 s', (t) => {
  const { settings } = read({ 'proxy-body-size': '8m', 'custom-http-errors': '404,503', 'ssl-redirect': 'false' });
  const defaults = nginxConfigMapAnnotationDefaults(settings, false);
  t.deepEqual(defaults, {
    'nginx.ingress.kubernetes.io/ssl-redirect': 'false',
    'nginx.ingress.kubernetes.io/force-ssl-redirect': 'false',
    'nginx.ingress.kubernetes.io/proxy-body-size': '8m',
    'nginx.ingress.kubernetes.io/proxy-read-timeout': '60',
  });
  // The default send timeout (60) is left out: it would hide a shorter read timeout in the one idle timeout.
  t.is(nginxConfigMapAnnotationDefaults(read({ 'proxy-send-timeout': '90' }).settings, false)['nginx.ingress.kubernetes.io/proxy-send-timeout'], '90');
  t.is(nginxConfigMapAnnotationDefaults(settings, true)['nginx.ingress.kubernetes.io/custom-http-errors'], '404,503');
  t.is(nginxConfigMapAnnotationDefaults(read({ 'proxy-connect-timeout': '50' }).settings, false)['nginx.ingress.kubernetes.io/proxy-connect-timeout'], '50');
});

test('the key catalog: every key honoured by the reader is catalogued as honoured, every ignored key has a reason', (t) => {
  for (const [key, entry] of Object.entries(nginxConfigMapKeys)) {
    t.true(entry.note.length > 10, `${key} has a note`);
  }
  // A value of an honoured key that the reader does not read would not be reported as invalid: try one bad value each.
  for (const [key, entry] of Object.entries(nginxConfigMapKeys)) {
    if (entry.status !== 'honoured') continue;
    const data: Record<string, string> = { hsts: 'true', 'use-gzip': 'true', [key]: '\u0000bad value' };
    t.true(read(data).diagnostics.some((d) => d.reason === Reason.InvalidNginxConfigMapValue && d.message.startsWith(`key ${key} `)), `${key} is read and validated`);
  }
  t.is(nginxConfigMapKey('no-such-key').status, 'ignored');
});

test('migrate-check view: honoured, invalid and ignored keys with their notes', (t) => {
  const report = configMapReport(ref, configMap({ 'proxy-body-size': '8m', 'proxy-read-timeout': '20k', 'worker-processes': '4' }));
  t.deepEqual(
    report.keys.map((k) => [k.key, k.status]),
    [
      ['proxy-body-size', 'honoured'],
      ['proxy-read-timeout', 'invalid'],
      ['worker-processes', 'ignored'],
    ],
  );
  t.true(report.changes);
  t.regex(report.keys[2]!.note, /nginx process tuning/);
  t.false(configMapReport(ref, configMap({ 'proxy-body-size': '8m' })).changes);
  t.false(configMapReport(ref, undefined).found);
});

test('service-upstream and load-balance are annotation defaults; load-balance not for an Ingress that hashes', (t) => {
  const { settings, diagnostics } = read({ 'service-upstream': 'true', 'load-balance': 'ewma' });
  t.deepEqual(diagnostics, []);
  const defaults = nginxConfigMapAnnotationDefaults(settings, false);
  t.is(defaults['nginx.ingress.kubernetes.io/service-upstream'], 'true');
  t.is(defaults['nginx.ingress.kubernetes.io/load-balance'], 'ewma');
  t.is(nginxConfigMapAnnotationDefaults(settings, false, true)['nginx.ingress.kubernetes.io/load-balance'], undefined);
  t.is(read({ 'load-balance': 'least_conn' }).settings.loadBalance, 'round_robin');
});
