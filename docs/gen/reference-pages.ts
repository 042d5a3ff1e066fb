// Every generated reference page: its path under docs/ and how to make it. `npm run docs:gen` writes them;
// reference-pages.test.ts fails when a committed page differs from what the code gives now.
import { annotationsReferencePage } from './annotations-reference.js';
import { cliReferencePage } from './cli-reference.js';
import { helmValuesReferencePage } from './helm-values-reference.js';
import { metricsReferencePage } from './metrics-reference.js';
import { nginxAnnotationsReferencePage } from './nginx-annotations-reference.js';
import { nginxConfigMapReferencePage } from './nginx-configmap-reference.js';
import { reasonsReferencePage } from './reasons-reference.js';

export const referencePages: Readonly<Record<string, (repoRoot: string) => string | Promise<string>>> = {
  'docs/reference/cli.md': () => cliReferencePage(),
  'docs/reference/annotations.md': () => annotationsReferencePage(),
  'docs/reference/nginx-annotations.md': () => nginxAnnotationsReferencePage(),
  'docs/reference/nginx-configmap.md': () => nginxConfigMapReferencePage(),
  'docs/reference/metrics.md': () => metricsReferencePage(),
  'docs/reference/helm-values.md': (root) => helmValuesReferencePage(root),
  'docs/reference/reasons.md': (root) => reasonsReferencePage(root),
};

export async function generateReferencePages(repoRoot: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [file, make] of Object.entries(referencePages)) out.set(file, await make(repoRoot));
  return out;
}
