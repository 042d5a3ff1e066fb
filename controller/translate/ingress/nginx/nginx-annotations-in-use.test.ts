import test from 'ava';
import type { IngressClass } from '../../shared/kube-objects.js';
import { defaultTranslateOptions } from '../../shared/options.js';
import { nginxAnnotationsInUse } from './nginx-annotations-in-use.js';

const ingressClass = (name: string, controller: string, optIn?: string): IngressClass => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name, ...(optIn === undefined ? {} : { annotations: { 'envoy-ingress.io/nginx-annotations': optIn } }) },
  spec: { controller },
});

const ours = defaultTranslateOptions.controllerName;

test('the flag alone puts nginx annotations in use', (t) => {
  t.true(nginxAnnotationsInUse([], { ...defaultTranslateOptions, nginxAnnotations: true }));
  t.false(nginxAnnotationsInUse([], { ...defaultTranslateOptions, nginxAnnotations: false }));
});

test('without the flag, only a class of ours annotated "true" puts them in use', (t) => {
  const options = { ...defaultTranslateOptions, nginxAnnotations: false };
  t.true(nginxAnnotationsInUse([ingressClass('a', ours), ingressClass('b', ours, 'true')], options));
  t.false(nginxAnnotationsInUse([ingressClass('a', ours, 'false'), ingressClass('b', ours, 'yes')], options));
  t.false(nginxAnnotationsInUse([ingressClass('other', 'example.com/other', 'true')], options));
});
