import test from 'ava';
import type { Diagnostic } from '../shared/diagnostics.js';
import { checkClassNginxSettings, nginxAnnotationsClassAnnotation, nginxAnnotationsEnabled } from './ingress-class-nginx.js';
import type { Ingress, IngressClass } from '../shared/kube-objects.js';

const options = { ingressClassName: 'envoy-ingress', controllerName: 'envoy-ingress.io/ingress-controller' };

function ingressClass(name: string, annotations: Record<string, string> = {}, controller = options.controllerName): IngressClass {
  return { kind: 'IngressClass', metadata: { name, annotations }, spec: { controller } };
}

function ingress(opts: { className?: string; legacy?: string }): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name: 'app', namespace: 'default', ...(opts.legacy === undefined ? {} : { annotations: { 'kubernetes.io/ingress.class': opts.legacy } }) },
    spec: opts.className === undefined ? {} : { ingressClassName: opts.className },
  };
}

const migrated = ingressClass('nginx', { [nginxAnnotationsClassAnnotation]: 'true' });
const native = ingressClass('envoy-ingress', { 'ingressclass.kubernetes.io/is-default-class': 'true' });
const optedOut = ingressClass('strict', { [nginxAnnotationsClassAnnotation]: 'false' });
const classes = [migrated, native, optedOut];

test('the class annotation switches the nginx layer on for that class only', (t) => {
  t.true(nginxAnnotationsEnabled(ingress({ className: 'nginx' }), classes, options));
  t.false(nginxAnnotationsEnabled(ingress({ className: 'envoy-ingress' }), classes, options));
  t.true(nginxAnnotationsEnabled(ingress({ legacy: 'nginx' }), classes, options), 'legacy annotation naming the class');
  t.false(nginxAnnotationsEnabled(ingress({}), classes, options), 'the default class has no setting');
});

test('without a class setting the flag decides; "false" on a class wins over the flag', (t) => {
  const flag = { ...options, nginxAnnotations: true };
  t.true(nginxAnnotationsEnabled(ingress({ className: 'envoy-ingress' }), classes, flag));
  t.true(nginxAnnotationsEnabled(ingress({}), classes, flag));
  t.false(nginxAnnotationsEnabled(ingress({ className: 'strict' }), classes, flag));
  const defaultMigrated = [ingressClass('nginx', { [nginxAnnotationsClassAnnotation]: 'true', 'ingressclass.kubernetes.io/is-default-class': 'true' })];
  t.true(nginxAnnotationsEnabled(ingress({}), defaultMigrated, options), 'an Ingress without class takes the default class setting');
});

test('another controller\'s class never switches it on', (t) => {
  const foreign = [ingressClass('nginx', { [nginxAnnotationsClassAnnotation]: 'true' }, 'k8s.io/ingress-nginx')];
  t.false(nginxAnnotationsEnabled(ingress({ className: 'nginx' }), foreign, options));
});

test('an invalid class setting is reported on the IngressClass and the flag decides', (t) => {
  const odd = ingressClass('odd', { [nginxAnnotationsClassAnnotation]: 'yes' });
  const diagnostics: Diagnostic[] = [];
  checkClassNginxSettings([...classes, odd], options, diagnostics);
  t.is(diagnostics.length, 1);
  t.deepEqual(diagnostics[0]?.object, { kind: 'IngressClass', namespace: 'default', name: 'odd' });
  t.false(nginxAnnotationsEnabled(ingress({ className: 'odd' }), [odd], options));
  t.true(nginxAnnotationsEnabled(ingress({ className: 'odd' }), [odd], { ...options, nginxAnnotations: true }));
});
