// The RoutePolicy CRD: deploy/crds/ and the Helm chart's crds/ ship the same file, and it declares the group,
// version, plural and scope the sources watch (controller/sources/kinds.ts), with a status subresource for the writer.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { sourceKind } from '../controller/sources/kinds.js';
import { findRepoRoot } from './harness/repo-root.js';

const root = findRepoRoot();

test('deploy/crds/route-policy.yaml is the Helm chart CRD and matches the kind the controller watches', async (t) => {
  const deploy = await readFile(path.join(root, 'deploy/crds/route-policy.yaml'), 'utf8');
  t.is(await readFile(path.join(root, 'deploy/helm/envoy-ingress/crds/route-policy.yaml'), 'utf8'), deploy);
  const crd = parse(deploy) as {
    kind: string;
    metadata: { name: string };
    spec: { group: string; scope: string; names: { kind: string; plural: string }; versions: { name: string; served: boolean; storage: boolean; subresources?: { status?: object } }[] };
  };
  const watched = sourceKind('RoutePolicy');
  t.is(crd.kind, 'CustomResourceDefinition');
  t.is(crd.metadata.name, `${watched.plural}.${watched.group}`);
  t.is(crd.spec.group, watched.group);
  t.is(crd.spec.names.kind, 'RoutePolicy');
  t.is(crd.spec.names.plural, watched.plural);
  t.is(crd.spec.scope, watched.namespaced ? 'Namespaced' : 'Cluster');
  const version = crd.spec.versions.find((v) => v.name === watched.version);
  t.true(version?.served === true && version.storage === true);
  t.deepEqual(version?.subresources?.status, {});
});
