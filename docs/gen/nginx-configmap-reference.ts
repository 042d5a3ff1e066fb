// The reference of every ingress-nginx ConfigMap key: honoured or ignored, and what for or why
// (controller/translate/ingress/nginx/nginx-configmap-keys.ts, which migrate-check and the ConfigMap's diagnostic read too).
import { nginxConfigMapKeys } from '../../controller/translate/ingress/nginx/nginx-configmap-keys.js';
import { cell, code, page, table } from './markdown.js';

export function nginxConfigMapKeyNames(): string[] {
  return Object.keys(nginxConfigMapKeys).sort();
}

export function nginxConfigMapReferencePage(): string {
  const names = nginxConfigMapKeyNames();
  const honoured = names.filter((k) => nginxConfigMapKeys[k]?.status === 'honoured');
  const rows = (keys: string[]): string[][] => keys.map((k) => [code(k), cell(nginxConfigMapKeys[k]?.note ?? '')]);
  return page(
    '`controller/translate/ingress/nginx/nginx-configmap-keys.ts`',
    'ingress-nginx ConfigMap keys',
    `Every key of ingress-nginx's controller ConfigMap (${names.length}: ${honoured.length} honoured, ${names.length - honoured.length} ignored), ` +
      'as `--nginx-configmap NAMESPACE/NAME` reads it. An ignored key is listed in the `NginxConfigMapKeysIgnored` diagnostic and by ' +
      '`migrate-check --nginx-configmap`, with the reason below. How the ConfigMap applies, and ingress-nginx\'s defaults: ' +
      '[the ConfigMap guide](../guides/ingress-nginx-configmap.md).',
    '## Honoured',
    table(['Key', 'What it does here'], rows(honoured)),
    '## Ignored',
    table(['Key', 'Why'], rows(names.filter((k) => !honoured.includes(k)))),
  );
}
