// The folders are the pipeline (docs/contributing/architecture.md): objects -> controller/translate/ -> ir/ -> envoy/ -> xds/,
// with proto/ beneath. An import against that direction (an Envoy builder reaching into the translator, the pure
// translator importing an effect) fails here, so the layering stays visible in the folders rather than in a diagram.
// Tests and their helpers are exempt: an end-to-end test may wire any layers together.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { findRepoRoot } from './harness/repo-root.js';

/** What each layer may import besides itself, by folder; the longest matching folder decides. */
const allowedImports: ReadonlyMap<string, readonly string[]> = new Map([
  ['proto', []],
  ['ir', []],
  ['envoy', ['ir', 'proto']],
  ['xds', ['proto']],
  // The pure translator: Kubernetes objects in, IR and diagnostics out. Its root (translate.ts) runs one translator
  // per input API, each in its own folder; they never import each other, only what they share and the IR.
  ['controller/translate', ['ir']],
  ['controller/translate/shared', ['ir']],
  ['controller/translate/ingress', ['ir', 'controller/translate/shared']],
  ['controller/translate/gateway-api', ['ir', 'controller/translate/shared']],
  // Ingresses -> Gateway API objects (envoy-ingress migrate): reads Ingresses as the ingress translator does.
  ['controller/translate/migrate', ['ir', 'controller/translate/shared', 'controller/translate/ingress']],
  // The effects around it: sources, store, reconcile, status; they hand Envoy resources to the xDS cache.
  ['controller', ['ir', 'envoy', 'xds', 'proto']],
  ['cli', ['controller', 'ir', 'envoy', 'xds', 'proto']],
]);

const layers = [...allowedImports.keys()].sort((a, b) => b.length - a.length);

function layerOf(file: string): string | undefined {
  return layers.find((layer) => file === layer || file.startsWith(`${layer}/`));
}

/** A layer may import itself and its sub-layers, and the layers it is allowed, with theirs. */
function within(target: string, allowed: readonly string[]): boolean {
  return allowed.some((layer) => target === layer || target.startsWith(`${layer}/`));
}

function isTestCode(file: string): boolean {
  return /\.test\.ts$/.test(file) || /(^|\/)(test-helpers|testing)\//.test(file);
}

/** Relative import specifiers of a TypeScript file (static imports, re-exports and dynamic imports). */
export function importSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.[^']*)'/gm)) {
    if (match[1] !== undefined) specifiers.push(match[1]);
  }
  return specifiers;
}

/** "FILE imports TARGET" for every import of `files` (paths relative to the root) against the layer order. */
export function importViolations(files: ReadonlyMap<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file);
    if (from === undefined || isTestCode(file)) continue;
    for (const specifier of importSpecifiers(source)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const to = layerOf(target);
      if (to === undefined) {
        violations.push(`${file} imports ${target}, which is outside the layered folders`);
      } else if (!within(to, [from, ...(allowedImports.get(from) ?? [])])) {
        violations.push(`${file} (${from}) imports ${target} (${to})`);
      }
    }
  }
  return violations;
}

/**
 * The import circles among the non-test files under `folder`, type-only imports included, each as its files in
 * import order from the alphabetically first (files that can only be read together are one concept in two files).
 */
export function importCircles(files: ReadonlyMap<string, string>, folder: string): string[][] {
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    if (!file.startsWith(`${folder}/`) || isTestCode(file)) continue;
    const targets = importSpecifiers(source).map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  const circles = new Map<string, string[]>();
  // Depth first; a file explored to the end is not entered again (each circle is found from its first file).
  const explored = new Set<string>();
  const visit = (file: string, trail: string[]): void => {
    const at = trail.indexOf(file);
    if (at >= 0) {
      const circle = trail.slice(at);
      const first = circle.indexOf([...circle].sort()[0] as string);
      const rotated = [...circle.slice(first), ...circle.slice(0, first)];
      circles.set(rotated.join(' '), rotated);
      return;
    }
    if (explored.has(file)) return;
    for (const target of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...trail, file]);
    explored.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file, []);
  return [...circles.keys()].sort().map((key) => circles.get(key) as string[]);
}

function sourceFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const layer of new Set(layers.map((layer) => layer.split('/')[0] ?? layer))) {
    for (const entry of readdirSync(path.join(root, layer), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const absolute = path.join(entry.parentPath, entry.name);
      files.set(path.relative(root, absolute).split(path.sep).join('/'), readFileSync(absolute, 'utf8'));
    }
  }
  return files;
}

test('every import of the source folders follows the layer order', (t) => {
  const files = sourceFiles(findRepoRoot());
  t.true(files.size > 200, `found only ${files.size} source files`);
  t.deepEqual(importViolations(files), []);
});

test('the check catches imports against the order', (t) => {
  const files = new Map([
    ['envoy/route.ts', "import type { RouteIR } from '../controller/translate/ir.js';\n"],
    ['ir/route.ts', "import { x } from '../envoy/route.js';\n"],
    ['xds/cache.ts', "export { y } from '../envoy/cluster.js';\n"],
    ['controller/translate/translate.ts', "const m = await import('../reconciler.js');\n"],
    ['proto/types.ts', "import '../ir/index.js';\n"],
    ['controller/reconciler.ts', "import { run } from '../cli/main.js';\n"],
    ['controller/translate/ingress/nginx/auth.ts', "import { a } from '../../translate.js';\nimport { b } from '../../../../ir/index.js';\nimport { p } from '../../../auth/password.js';\n"],
    ['cli/main.ts', "import { t } from '../controller/translate/translate.js';\nimport { h } from '../test/harness/x.js';\n"],
    ['controller/translate/ingress/rules.ts', "import { g } from '../gateway-api/routes.js';\nimport { s } from '../shared/backend.js';\nimport { t } from '../translate.js';\n"],
    ['controller/translate/gateway-api/routes.ts', "import { i } from '../ingress/nginx/catalog.js';\nimport { s } from '../shared/backend.js';\n"],
    ['controller/translate/shared/backend.ts', "import { i } from '../ingress/path-match.js';\n"],
    ['controller/translate/orchestrator.ts', "import { i } from './ingress/translate-ingresses.js';\nimport { g } from './gateway-api/translate-routes.js';\n"],
    ['envoy/cluster.test.ts', "import { c } from '../controller/translate/translate.js';\n"],
  ]);
  t.deepEqual(importViolations(files), [
    'envoy/route.ts (envoy) imports controller/translate/ir.js (controller/translate)',
    'ir/route.ts (ir) imports envoy/route.js (envoy)',
    'xds/cache.ts (xds) imports envoy/cluster.js (envoy)',
    'controller/translate/translate.ts (controller/translate) imports controller/reconciler.js (controller)',
    'proto/types.ts (proto) imports ir/index.js (ir)',
    'controller/reconciler.ts (controller) imports cli/main.js (cli)',
    'controller/translate/ingress/nginx/auth.ts (controller/translate/ingress) imports controller/translate/translate.js (controller/translate)',
    'controller/translate/ingress/nginx/auth.ts (controller/translate/ingress) imports controller/auth/password.js (controller)',
    'cli/main.ts imports test/harness/x.js, which is outside the layered folders',
    'controller/translate/ingress/rules.ts (controller/translate/ingress) imports controller/translate/gateway-api/routes.js (controller/translate/gateway-api)',
    'controller/translate/ingress/rules.ts (controller/translate/ingress) imports controller/translate/translate.js (controller/translate)',
    'controller/translate/gateway-api/routes.ts (controller/translate/gateway-api) imports controller/translate/ingress/nginx/catalog.js (controller/translate/ingress)',
    'controller/translate/shared/backend.ts (controller/translate/shared) imports controller/translate/ingress/path-match.js (controller/translate/ingress)',
  ]);
});

test('no layer folder has an import circle', (t) => {
  const files = sourceFiles(findRepoRoot());
  for (const folder of new Set(layers.map((layer) => layer.split('/')[0] ?? layer))) t.deepEqual(importCircles(files, folder), [], folder);
});

test('the circle check finds circles, through several files too', (t) => {
  const files = new Map([
    ['controller/translate/nginx/a.ts', "import type { B } from './b.js';\n"],
    ['controller/translate/nginx/b.ts', "import { a } from './a.js';\nimport { c } from '../c.js';\n"],
    ['controller/translate/c.ts', "export { d } from './d.js';\n"],
    ['controller/translate/d.ts', "import { b } from './nginx/b.js';\n"],
    ['controller/translate/e.ts', "import { a } from './nginx/a.js';\n"],
  ]);
  t.deepEqual(importCircles(files, 'controller/translate'), [
    ['controller/translate/c.ts', 'controller/translate/d.ts', 'controller/translate/nginx/b.ts'],
    ['controller/translate/nginx/a.ts', 'controller/translate/nginx/b.ts'],
  ]);
});

test('the controller image builds and ships every layer folder', (t) => {
  const dockerfile = readFileSync(path.join(findRepoRoot(), 'Dockerfile'), 'utf8');
  for (const folder of new Set(layers.map((layer) => layer.split('/')[0] ?? layer))) {
    t.regex(dockerfile, new RegExp(`^COPY ${folder} ${folder}$`, 'm'), `${folder}/ is not copied into the build stage`);
    t.regex(dockerfile, new RegExp(`^COPY --from=build /src/dist/${folder} dist/${folder}$`, 'm'), `dist/${folder} is not shipped`);
  }
});
