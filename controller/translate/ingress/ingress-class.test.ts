import test from 'ava';
import { isServedByUs } from './ingress-class.js';
import type { Ingress, IngressClass } from '../shared/kube-objects.js';

const options = { ingressClassName: 'envoy-ingress', controllerName: 'envoy-ingress.io/ingress-controller' };

function ingressClass(name: string, controller: string, isDefault?: string): IngressClass {
  return {
    kind: 'IngressClass',
    metadata: {
      name,
      ...(isDefault === undefined ? {} : { annotations: { 'ingressclass.kubernetes.io/is-default-class': isDefault } }),
    },
    spec: { controller },
  };
}

function ingress(opts: { className?: string; legacy?: string }): Ingress {
  return {
    kind: 'Ingress',
    metadata: {
      name: 'app',
      namespace: 'default',
      ...(opts.legacy === undefined ? {} : { annotations: { 'kubernetes.io/ingress.class': opts.legacy } }),
    },
    spec: opts.className === undefined ? {} : { ingressClassName: opts.className },
  };
}

const ours = ingressClass('envoy-ingress', options.controllerName);
const oursDefault = ingressClass('envoy-ingress', options.controllerName, 'true');
const oursRenamed = ingressClass('internal', options.controllerName);
const nginx = ingressClass('nginx', 'k8s.io/ingress-nginx');

test('a class is ours by its controller, whatever its name', (t) => {
  t.true(isServedByUs(ingress({ className: 'envoy-ingress' }), [ours, nginx], options));
  t.true(isServedByUs(ingress({ className: 'internal' }), [oursRenamed], options));
});

test('a class of another controller, or one that does not exist, is not ours', (t) => {
  t.false(isServedByUs(ingress({ className: 'nginx' }), [ours, nginx], options));
  t.false(isServedByUs(ingress({ className: 'envoy-ingress' }), [], options));
  t.false(isServedByUs(ingress({ className: 'missing' }), [oursDefault], options));
});

test('a class name wins over the legacy annotation', (t) => {
  t.true(isServedByUs(ingress({ className: 'envoy-ingress', legacy: 'nginx' }), [ours], options));
  t.false(isServedByUs(ingress({ className: 'nginx', legacy: 'envoy-ingress' }), [ours, nginx], options));
});

test('the legacy annotation must equal our class name; it needs no IngressClass object', (t) => {
  t.true(isServedByUs(ingress({ legacy: 'envoy-ingress' }), [], options));
  t.false(isServedByUs(ingress({ legacy: 'nginx' }), [oursDefault], options));
});

test('the legacy annotation may name any IngressClass of our controller, never another controller\'s', (t) => {
  const nginxOfOurs = ingressClass('nginx', options.controllerName);
  t.true(isServedByUs(ingress({ legacy: 'nginx' }), [ours, nginxOfOurs], options));
  t.true(isServedByUs(ingress({ legacy: 'internal' }), [oursRenamed], options));
  t.false(isServedByUs(ingress({ legacy: 'nginx' }), [ours, nginx], options));
  t.false(isServedByUs(ingress({ legacy: 'internal' }), [ours], options), 'a class that does not exist');
});

test('an Ingress without any class is ours only when one of our classes is the default', (t) => {
  t.false(isServedByUs(ingress({}), [ours], options));
  t.true(isServedByUs(ingress({}), [oursDefault], options));
  t.true(isServedByUs(ingress({}), [nginx, ingressClass('internal', options.controllerName, 'true')], options));
  t.false(isServedByUs(ingress({}), [ingressClass('envoy-ingress', options.controllerName, 'false')], options));
  t.false(isServedByUs(ingress({}), [ours, ingressClass('nginx', 'k8s.io/ingress-nginx', 'true')], options));
});

test('an empty ingressClassName counts as unset', (t) => {
  t.true(isServedByUs(ingress({ className: '' }), [oursDefault], options));
  t.false(isServedByUs(ingress({ className: '' }), [ours], options));
});
