// The catalog as the Markdown table docs/reference/nginx-annotations.md shows (one row per annotation, sorted),
// so the README cannot drift from what the layer and migrate-check say (test/nginx-readme-catalog.test.ts).
import { nginxAnnotationCatalog, type NginxAnnotationStatus } from './catalog.js';

/** The status words of the documentation tables. */
export const readmeStatusWords: Readonly<Record<NginxAnnotationStatus, string>> = {
  supported: 'supported',
  'supported-with-difference': 'with difference',
  unsupported: 'unsupported',
  refused: 'refused',
};

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function nginxCatalogMarkdownTable(): string {
  const rows = Object.entries(nginxAnnotationCatalog)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, entry]) => {
      const what = [[entry.equivalent, entry.note].filter((x) => x !== undefined).join(': '), ...Object.values(entry.differences ?? {})].join('; ');
      return `| \`${name}\` | ${readmeStatusWords[entry.status]} | ${cell(what)} |`;
    });
  return ['| ingress-nginx annotation | Status | Equivalent, difference or reason |', '|---|---|---|', ...rows].join('\n');
}
