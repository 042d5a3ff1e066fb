// Every Gateway API golden case's configuration is one Envoy loads: `envoy --mode validate` on it, inlined into a
// static bootstrap (so route clusters are checked as strictly as Envoy ever does).
import { readFileSync, readdirSync } from 'node:fs';
import test from 'ava';
import { buildConfig } from '../controller/pipeline/build-config.js';
import { clusterStateFromYaml } from '../controller/translate/shared/cluster-state-yaml.js';
import { inlineIntoStaticBootstrap } from '../envoy/static-bootstrap.js';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { benchReconcileOptions } from '../bench/translation-scale.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { findRepoRoot } from './harness/repo-root.js';

const dir = `${findRepoRoot()}/testdata/translate/`;
const cases = readdirSync(dir).filter((f) => f.startsWith('gateway-api-') && f.endsWith('.in.yaml')).sort();

test('there are Gateway API golden cases', (t) => {
  t.true(cases.length >= 5);
});

for (const file of cases) {
  test(`Envoy accepts the configuration of ${file}`, async (t) => {
    const parsed = clusterStateFromYaml(readFileSync(`${dir}${file}`, 'utf8'));
    const options = { ...benchReconcileOptions, translate: { ...benchReconcileOptions.translate, ...parsed.options } };
    const { resources } = buildConfig(parsed.state, options);
    const result = await validateWithEnvoy(inlineIntoStaticBootstrap(resources), { envoyBin: await findEnvoyBinary() });
    t.true(result.ok, result.output);
  });
}
