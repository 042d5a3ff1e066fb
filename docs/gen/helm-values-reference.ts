// The reference of every Helm value: read from deploy/helm/envoy-ingress/values.yaml itself, with the `# --`
// comment above each key (the helm-docs convention the file follows) and its default.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, stringify, type Node } from 'yaml';
import { cell, code, page, table } from './markdown.js';

export const valuesFile = 'deploy/helm/envoy-ingress/values.yaml';

export interface HelmValueDoc {
  /** Dotted path, e.g. controller.service.type. */
  path: string;
  /** The default as YAML flow text. */
  default: string;
  /** The key's own `# --` comment, else its group's (inheritedFrom), else ''. */
  description: string;
  /** The nearest enclosing key with a comment, when the key has none of its own. */
  inheritedFrom?: string;
}

/** The `# --` part of a comment block (the file's header comment sits above the first key and is left out). */
function describedBy(comment: string | null | undefined): string {
  if (!comment) return '';
  const lines = comment.split('\n');
  const start = lines.map((l) => l.trimStart().startsWith('--')).lastIndexOf(true);
  if (start < 0) return '';
  return lines
    .slice(start)
    .map((l) => l.trim())
    .join(' ')
    .replace(/^--\s*/, '');
}

/** Every value a user can set: scalars, lists and empty maps (a map with keys is a group, not a value). */
export function helmValues(repoRoot: string): HelmValueDoc[] {
  const doc = parseDocument(readFileSync(path.join(repoRoot, valuesFile), 'utf8'));
  const out: HelmValueDoc[] = [];
  const walk = (node: Node | null, prefix: string, inherited: { path: string; text: string } | undefined): void => {
    if (!isMap(node)) throw new Error(`${valuesFile}: ${prefix || 'the document'} is not a map`);
    node.items.forEach((pair, i) => {
      if (!isScalar(pair.key)) throw new Error(`${valuesFile}: a key under ${prefix} is not a scalar`);
      const key = String(pair.key.value);
      const here = prefix ? `${prefix}.${key}` : key;
      // The parser hangs the comment above the first key of a nested map on the map itself.
      const own = describedBy(pair.key.commentBefore ?? (i === 0 ? node.commentBefore : undefined));
      const value = pair.value as Node | null;
      if (isMap(value) && value.items.length > 0) {
        walk(value, here, own ? { path: here, text: own } : inherited);
        return;
      }
      const defaultText = isScalar(value) || isSeq(value) || isMap(value) ? stringify(value.toJSON(), { flow: true }).trim() : '';
      const description = own !== '' ? own : (inherited?.text ?? '');
      out.push({ path: here, default: defaultText, description, ...(own === '' && inherited ? { inheritedFrom: inherited.path } : {}) });
    });
  };
  walk(doc.contents as Node | null, '', undefined);
  return out;
}

export function helmValuesReferencePage(repoRoot: string): string {
  const values = helmValues(repoRoot);
  const rows = values.map((v) => [
    code(v.path),
    v.default === '' || v.default === '""' ? 'empty' : code(v.default),
    v.inheritedFrom !== undefined ? `(${code(v.inheritedFrom)}) ${cell(v.description)}` : cell(v.description),
  ]);
  return page(
    `\`${valuesFile}\` and its comments`,
    'Helm values',
    `Every value of the chart \`deploy/helm/envoy-ingress\` (${values.length}), its default and what it does. A value without a comment of its own ` +
      'shows the comment of the group it belongs to, named in brackets. A JSON schema (`values.schema.json`) refuses a wrong type or an unknown variant ' +
      'before anything is applied. Installing with them: [Install with Helm](../install/helm.md).',
    table(['Value', 'Default', 'What it does'], rows),
  );
}
