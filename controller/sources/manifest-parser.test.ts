import test from 'ava';
import { parseManifest } from './manifest-parser.js';

const service = (name: string, extra = ''): string => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n${extra}`;

test('a multi-document file yields every object, in order', (t) => {
  const parsed = parseManifest('app.yaml', [service('a'), service('b'), service('c')].join('---\n'));
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['a', 'b', 'c']);
  t.deepEqual(parsed.documents, [0, 1, 2]);
  t.deepEqual(parsed.problems, []);
});

test('empty documents (leading ---, trailing ---, comments only) are skipped silently', (t) => {
  const parsed = parseManifest('app.yaml', `---\n# just a comment\n---\n${service('a')}---\n---\n`);
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['a']);
  t.deepEqual(parsed.problems, []);
  t.is(parsed.ignored, 0);
});

test('an empty file yields nothing and no problem', (t) => {
  t.deepEqual(parseManifest('empty.yaml', ''), { objects: [], documents: [], problems: [], ignored: 0 });
});

test('a List (kubectl get -o yaml) yields its items; kinds we do not read are counted, not reported', (t) => {
  const text = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
- apiVersion: networking.k8s.io/v1
  kind: IngressClass
  metadata: {name: envoy}
`;
  const parsed = parseManifest('list.yaml', text);
  t.deepEqual(parsed.objects.map((o) => `${o.kind}/${o.metadata.name}`), ['Service/web', 'IngressClass/envoy']);
  t.is(parsed.ignored, 1);
  t.deepEqual(parsed.problems, []);
});

test('a typed list as the API returns it (items without kind) yields items of the list kind', (t) => {
  const text = JSON.stringify({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSliceList',
    metadata: { resourceVersion: '12' },
    items: [{ metadata: { name: 'web-abc', namespace: 'shop' }, addressType: 'IPv4', endpoints: [] }],
  });
  const parsed = parseManifest('slices.json', text);
  t.deepEqual(parsed.problems, []);
  t.is(parsed.objects.length, 1);
  t.is(parsed.objects[0]?.kind, 'EndpointSlice');
  t.is(parsed.objects[0]?.apiVersion, 'discovery.k8s.io/v1');
  t.is(parsed.objects[0]?.metadata.namespace, 'shop');
});

test('kinds we do not read are ignored and counted, not reported as problems', (t) => {
  const text = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n---\n${service('s')}`;
  const parsed = parseManifest('mixed.yaml', text);
  t.is(parsed.ignored, 2);
  t.deepEqual(parsed.problems, []);
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['s']);
});

test('an unsupported apiVersion of a kind we read is a problem naming file and document', (t) => {
  const text = `${service('ok')}---\napiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: old}\n`;
  const parsed = parseManifest('old.yaml', text);
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['ok']);
  t.is(parsed.problems.length, 1);
  t.is(parsed.problems[0]?.file, 'old.yaml');
  t.is(parsed.problems[0]?.document, 1);
  t.regex(parsed.problems[0]?.message ?? '', /Ingress apiVersion extensions\/v1beta1 is not supported/);
});

test('a YAML syntax error spoils only its own document', (t) => {
  const broken = 'apiVersion: v1\nkind: Service\nmetadata: {name: b\n  oops: [\n';
  const parsed = parseManifest('app.yaml', [service('a'), broken, service('c')].join('---\n'));
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['a', 'c']);
  t.is(parsed.problems.length, 1);
  t.is(parsed.problems[0]?.document, 1);
  t.regex(parsed.problems[0]?.message ?? '', /^YAML error/);
});

test('an unresolvable alias spoils only its own document (it is found while converting, not while parsing)', (t) => {
  const parsed = parseManifest('app.yaml', [service('a'), 'apiVersion: v1\nkind: Service\nmetadata: {name: *nowhere}\n', service('c')].join('---\n'));
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['a', 'c']);
  t.is(parsed.problems.length, 1);
  t.is(parsed.problems[0]?.document, 1);
});

test('an alias bomb is refused as a problem of its document, and later documents still load', (t) => {
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]']
    .concat(['b', 'c', 'd', 'e', 'f'].map((k, i) => {
      const prev = 'abcde'[i];
      return `${k}: &${k} [${Array(9).fill(`*${prev}`).join(', ')}]`;
    }))
    .join('\n');
  const parsed = parseManifest('bomb.yaml', `${bomb}\n---\n${service('after')}`);
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['after']);
  t.is(parsed.problems.length, 1);
  t.is(parsed.problems[0]?.document, 0);
});

test('a document that is not an object, or has no name, is a problem', (t) => {
  const parsed = parseManifest('bad.yaml', `just a string\n---\napiVersion: v1\nkind: Service\nmetadata: {}\n`);
  t.deepEqual(parsed.objects, []);
  t.deepEqual(
    parsed.problems.map((p) => [p.document, p.message]),
    [
      [0, 'document is not an object'],
      [1, 'Service has no metadata.name'],
    ],
  );
});

test('namespaced kinds default to the "default" namespace; an explicit one is kept', (t) => {
  const parsed = parseManifest('ns.yaml', `${service('a')}---\n${service('b', '  namespace: shop\n')}`);
  t.deepEqual(parsed.objects.map((o) => o.metadata.namespace), ['default', 'shop']);
});

test('IngressClass is cluster-scoped: a namespace in the manifest is dropped', (t) => {
  const parsed = parseManifest(
    'class.yaml',
    'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: envoy, namespace: shop}\nspec: {controller: x}\n',
  );
  t.is(parsed.objects.length, 1);
  t.false('namespace' in (parsed.objects[0]?.metadata ?? {}));
});

test('Secret stringData is folded into base64 data, winning over data for the same key', (t) => {
  const text = `apiVersion: v1
kind: Secret
metadata: {name: tls}
type: kubernetes.io/tls
data:
  tls.crt: ${Buffer.from('old cert').toString('base64')}
  ca.crt: ${Buffer.from('ca').toString('base64')}
stringData:
  tls.crt: "new cert"
  tls.key: "k\\u00e9y"
`;
  const parsed = parseManifest('secret.yaml', text);
  const secret = parsed.objects[0];
  t.is(secret?.kind, 'Secret');
  if (secret?.kind !== 'Secret') return;
  t.false('stringData' in secret);
  t.deepEqual(
    Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
    { 'tls.crt': 'new cert', 'ca.crt': 'ca', 'tls.key': 'kéy' },
  );
});

test('JSON manifests parse too', (t) => {
  const parsed = parseManifest('svc.json', JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'j' } }));
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['j']);
});

test('a JSON file is read as JSON: a duplicate key keeps its last value (the YAML parser refuses the document)', (t) => {
  const text = '{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "first", "name": "last"}}';
  t.deepEqual(parseManifest('svc.json', text).objects.map((o) => o.metadata.name), ['last']);
  t.is(parseManifest('svc.yaml', text).objects.length, 0);
});

test('a .json file that is not JSON is read as YAML, as before', (t) => {
  const parsed = parseManifest('svc.json', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: y\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: z\n');
  t.deepEqual(parsed.objects.map((o) => o.metadata.name), ['y', 'z']);
  t.deepEqual(parsed.problems, []);
});
