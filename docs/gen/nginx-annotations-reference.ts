// The reference of every ingress-nginx annotation: the catalog's own Markdown table (controller/translate/ingress/nginx/
// catalog-markdown.ts: status, equivalent, difference or reason), which migrate-check and the nginx layer read too.
import { nginxCatalogMarkdownTable } from '../../controller/translate/ingress/nginx/catalog-markdown.js';
import { escapeText, page } from './markdown.js';

/** The markers test/nginx-readme-catalog.test.ts finds the table by. */
export const nginxTableStart = '<!-- nginx-annotation-table: generated from the catalog (controller/translate/ingress/nginx/catalog.ts) -->';
export const nginxTableEnd = '<!-- /nginx-annotation-table -->';

export function nginxAnnotationsReferencePage(): string {
  // Escaped line by line: the catalog's prose may say `www.<host>`, which Vue would read as an element.
  const rows = nginxCatalogMarkdownTable().split('\n').map(escapeText);
  return page(
    '`controller/translate/ingress/nginx/catalog.ts` (through `catalog-markdown.ts`)',
    'ingress-nginx annotations',
    'Every annotation named on ingress-nginx\'s [annotations page](https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/) ' +
      `(${rows.length - 2}; a test checks none is missing), with the status \`migrate-check\` reports and the ingress-nginx layer honours ` +
      '(`--nginx-annotations`, or an IngressClass annotated `envoy-ingress.io/nginx-annotations: "true"`). ' +
      'Unsupported ones are reported on the Ingress (`UnsupportedNginxAnnotation`, with the reason) and ignored; the rest of the Ingress is served. ' +
      'How to move over, and the differences explained: [Coming from ingress-nginx](../guides/coming-from-ingress-nginx.md).',
    [nginxTableStart, ...rows, nginxTableEnd].join('\n'),
  );
}
