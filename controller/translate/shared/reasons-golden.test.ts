// Every diagnostic reason the translator can give has a golden case that produces it, so each reason's wording
// and effect on the output are reviewed in a golden diff.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { parse } from 'yaml';
import { GatewayReason, Reason } from './reasons.js';

// dist/controller/translate/ -> repository root.
const testdata = fileURLToPath(new URL('../../../../testdata/translate/', import.meta.url));

function reasonsIn(file: string): string[] {
  const golden = parse(readFileSync(`${testdata}${file}`, 'utf8')) as { diagnostics?: { reason: string }[] };
  return (golden.diagnostics ?? []).map((d) => d.reason);
}

const casesByReason = new Map<string, string[]>();
for (const file of readdirSync(testdata).filter((f) => f.endsWith('.out.yaml')).sort()) {
  for (const reason of new Set(reasonsIn(file))) {
    casesByReason.set(reason, [...(casesByReason.get(reason) ?? []), file.slice(0, -'.out.yaml'.length)]);
  }
}

for (const reason of new Set<string>([...Object.values(Reason), ...Object.values(GatewayReason)])) {
  test(`reason ${reason} has a golden case`, (t) => {
    const cases = casesByReason.get(reason) ?? [];
    t.true(cases.length > 0, `no testdata/translate/*.out.yaml has a ${reason} diagnostic; add a case`);
  });
}

test('golden diagnostics use only declared reasons', (t) => {
  const declared = new Set<string>([...Object.values(Reason), ...Object.values(GatewayReason)]);
  t.deepEqual([...casesByReason.keys()].filter((reason) => !declared.has(reason)), []);
});
