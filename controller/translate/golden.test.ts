// Golden tests: testdata/translate/<case>.in.yaml -> <case>.out.yaml. UPDATE_GOLDEN=1 rewrites the outputs;
// review every rewritten file, a golden is only as good as its review.
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { stringify } from 'yaml';
import { clusterStateFromYaml } from './shared/cluster-state-yaml.js';
import { kindNames, kindTable } from './shared/kinds.js';
import { translateEndpoints } from './shared/endpoints.js';
import type { ClusterState } from './shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from './shared/options.js';
import { translate } from './translate.js';

// dist/controller/translate/ -> repository root.
const testdata = fileURLToPath(new URL('../../../testdata/translate/', import.meta.url));

/** Short 404 body so goldens stay readable; the real default page is a longer HTML document. */
const goldenOptions: TranslateOptions = { ...defaultTranslateOptions, notFoundPage: '<h1>404 Not Found</h1>' };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Every list of the state in reverse order (every kind of the kind table, so a new kind is never left out). */
function reversed(state: ClusterState): ClusterState {
  const lists = state as unknown as Readonly<Record<string, readonly unknown[] | undefined>>;
  const out: Record<string, unknown[]> = {};
  for (const kind of kindNames) {
    const field = kindTable[kind].state;
    const list = lists[field];
    if (list !== undefined) out[field] = [...list].reverse();
  }
  return out as unknown as ClusterState;
}

function render(state: ClusterState, options: TranslateOptions): string {
  const { ir, diagnostics, servedIngresses, servedGatewayApi, gatewayApiStatus, references } = translate(state, options);
  const endpoints = translateEndpoints(state, ir.clusters);
  // Through JSON so PrivateKey prints as its toJSON() `[redacted]`.
  const plain: unknown = JSON.parse(JSON.stringify({ servedIngresses, servedGatewayApi, gatewayApiStatus, references, diagnostics, ir, endpoints }));
  return stringify(plain, { lineWidth: 0 });
}

const cases = readdirSync(testdata)
  .filter((file) => file.endsWith('.in.yaml'))
  .map((file) => file.slice(0, -'.in.yaml'.length))
  .sort();

test('there are golden cases', (t) => {
  t.true(cases.length >= 20);
});

for (const name of cases) {
  test(`golden: ${name}`, (t) => {
    const parsed = clusterStateFromYaml(readFileSync(`${testdata}${name}.in.yaml`, 'utf8'));
    // Frozen: translate() must never write to its input (writing to a frozen object throws in strict mode).
    const state = deepFreeze(parsed.state);
    const options = { ...goldenOptions, ...parsed.options };
    const actual = render(state, options);
    const outFile = `${testdata}${name}.out.yaml`;
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(outFile, actual);
    t.true(existsSync(outFile), `${outFile} missing; run with UPDATE_GOLDEN=1 and review it`);
    t.is(actual, readFileSync(outFile, 'utf8'));
    // Deterministic whatever the order the store lists objects in.
    t.is(render(reversed(state), options), actual);
  });
}
