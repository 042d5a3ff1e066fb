// The Helm chart (deploy/helm/envoy-ingress) with the pinned helm (scripts/ensure-go-tools.sh) and a real API
// server: `helm lint`; the default render is exactly deploy/ and each variant's render is its kustomize overlay
// (so chart and manifests cannot drift); every render passes `kubectl apply --dry-run=server` (the ServiceMonitor
// against prometheus-operator's real CRD); every value reaches the objects; bad values are refused; `helm
// install` then `helm upgrade` to another values file changes, adds and removes the objects on the server.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import {
  asSet,
  chartDir,
  container,
  find,
  helmRunner,
  identity,
  manifestDirObjects,
  parseObjects,
  renderArgs,
  repoRoot,
  type KubeObject,
  type RenderOptions,
} from './fixtures/helm-chart.js';
import { useFileKubeCluster } from './fixtures/file-kube-cluster.js';
import { findGoTools, GO_TOOLS_BUILD_TIMEOUT_MS, type GoTools } from './harness/go-tools.js';
import { createTempDir, type TempDir } from './harness/temp-dir.js';

const run = promisify(execFile);
const variants = ['default', 'edge-nodes', 'split'] as const;
const allValues = path.join(repoRoot, 'testdata/helm/all-values.yaml');

const kube = useFileKubeCluster({
  prepare: async (cluster) => {
    // Namespaced objects need their namespace for a server-side dry run; the ServiceMonitor needs its CRD.
    await cluster.kubectlOk(['create', 'namespace', 'envoy-ingress']);
    await cluster.kubectlOk(['create', 'namespace', 'ingress-nginx']);
    await cluster.kubectlOk(['apply', '--server-side', '-f', (await findGoTools()).serviceMonitorCrd]);
    await cluster.kubectlOk(['wait', '--for=condition=Established', 'crd/servicemonitors.monitoring.coreos.com', '--timeout=60s']);
  },
});

let tools: GoTools;
let home: TempDir;
let helm: ReturnType<typeof helmRunner>;
test.before(async (t) => {
  t.timeout(GO_TOOLS_BUILD_TIMEOUT_MS, 'building or finding helm');
  tools = await findGoTools();
  home = await createTempDir('envoy-ingress-helm-');
  helm = helmRunner(tools.helm, home.path);
});
test.after.always(async () => {
  await home?.remove();
});

async function render(options: RenderOptions = {}): Promise<{ yaml: string; objects: KubeObject[] }> {
  const { stdout } = await helm(renderArgs(options));
  return { yaml: stdout, objects: parseObjects(stdout) };
}

async function kustomize(variant: string): Promise<KubeObject[]> {
  const { stdout } = await run(kube.kubectl, ['kustomize', path.join(repoRoot, 'deploy-variants', variant)], { maxBuffer: 16 * 1024 * 1024 });
  return parseObjects(stdout);
}

/**
 * The manifests' objects less their Namespace, which the chart leaves to `helm install --create-namespace` (a
 * chart owning its own namespace breaks `--create-namespace` and uninstall).
 */
function withoutNamespace(objects: KubeObject[]): KubeObject[] {
  const namespaces = objects.filter((o) => o.kind === 'Namespace').map(identity);
  if (namespaces.join() !== 'Namespace/envoy-ingress') throw new Error(`expected one Namespace envoy-ingress, got ${namespaces.join(', ')}`);
  return objects.filter((o) => o.kind !== 'Namespace');
}

test.serial('helm lint --strict passes for the default values, each variant and every value set', async (t) => {
  for (const variant of variants) {
    for (const valuesFiles of [[], [allValues]]) {
      const { stdout } = await helm(['lint', '--strict', chartDir, '--namespace', 'envoy-ingress', '--set', `variant=${variant}`, ...valuesFiles.flatMap((f) => ['--values', f])]);
      t.regex(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/, `${variant} ${valuesFiles.join()}`);
    }
  }
});

test.serial('the default values render exactly the objects of deploy/ (less the Namespace)', async (t) => {
  const { objects } = await render();
  const deployDir = withoutNamespace(await manifestDirObjects(path.join(repoRoot, 'deploy')));
  t.deepEqual(asSet(objects), asSet(deployDir));
  t.true(objects.some((o) => identity(o) === 'Deployment/envoy-ingress/envoy-ingress'));
});

for (const variant of ['edge-nodes', 'split'] as const) {
  test.serial(`variant=${variant} renders exactly kubectl kustomize deploy-variants/${variant} (with metrics off, as there)`, async (t) => {
    const { objects } = await render({ set: { variant, 'controller.metrics.enabled': 'false' } });
    t.deepEqual(asSet(objects), asSet(withoutNamespace(await kustomize(variant))));
  });
}

for (const variant of variants) {
  for (const values of ['defaults', 'every value set'] as const) {
    test.serial(`variant=${variant}, ${values}: the render passes kubectl apply --dry-run=server`, async (t) => {
      const { yaml, objects } = await render({ set: { variant }, valuesFiles: values === 'defaults' ? [] : [allValues] });
      const out = await kube.cluster.kubectlOk(['apply', '--dry-run=server', '-f', '-'], { input: yaml });
      // One line per object: the API server accepted each (admission and schema validation included).
      const accepted = out.split('\n').filter((line) => /(created|configured|unchanged) \(server dry run\)$/.test(line));
      t.is(accepted.length, objects.length, out);
      if (values !== 'defaults') t.true(objects.some((o) => o.kind === 'ServiceMonitor'));
    });
  }
}

test('every value reaches the objects (ingress-nginx value names where they mean the same)', async (t) => {
  const { objects } = await render({ valuesFiles: [allValues] });
  const deployment = find(objects, 'Deployment', 'envoy-ingress');
  const pod = deployment.spec.template.spec;
  const controller = container(deployment, 'controller');
  const envoy = container(deployment, 'envoy');
  t.is(deployment.spec.replicas, 3);
  // commonLabels on every object; selectors unchanged.
  for (const o of objects) t.is(o.metadata.labels?.['team'], 'edge', identity(o));
  t.deepEqual(deployment.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'envoy-ingress' });
  t.is(controller.image, 'registry.example.com/envoy-ingress/controller@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef');
  t.is(controller.imagePullPolicy, 'IfNotPresent');
  t.is(envoy.image, 'registry.example.com/envoy-ingress/envoy@sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210');
  t.is(envoy.imagePullPolicy, 'Always');
  t.deepEqual(controller.resources, { requests: { cpu: '300m', memory: '256Mi' }, limits: { memory: '768Mi' } });
  t.deepEqual(envoy.resources, { requests: { cpu: '500m', memory: '256Mi' }, limits: { memory: '2Gi' } });
  t.is(envoy.args[envoy.args.indexOf('--log-level') + 1], 'info');
  t.deepEqual(pod.nodeSelector, { 'kubernetes.io/os': 'linux' });
  t.is(pod.tolerations[0].key, 'dedicated');
  t.truthy(pod.affinity.nodeAffinity);
  t.deepEqual(deployment.spec.template.metadata.annotations, {
    'example.com/scraped-by': 'prometheus',
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': '9200',
  });
  for (const arg of ['--nginx-configmap=ingress-nginx/ingress-nginx-controller', '--manage-service-ingress', '--metrics-address=0.0.0.0:9200', '--ingress-class=nginx', '--controller-name=example.com/envoy-ingress', '--nginx-annotations', '--log-level=debug', '--allow-external-name']) {
    t.true(controller.args.includes(arg), arg);
  }
  t.deepEqual(controller.ports.find((p: { name: string }) => p.name === 'metrics'), { name: 'metrics', containerPort: 9200 });

  const ingressClass = find(objects, 'IngressClass', 'nginx');
  t.is(ingressClass.spec.controller, 'example.com/envoy-ingress');
  t.deepEqual(ingressClass.metadata.annotations, {
    'example.com/owner': 'edge-team',
    'ingressclass.kubernetes.io/is-default-class': 'true',
    'envoy-ingress.io/nginx-annotations': 'true',
  });

  const service = find(objects, 'Service', 'envoy-ingress');
  t.is(service.spec.type, 'NodePort');
  t.is(service.spec.externalTrafficPolicy, 'Cluster');
  t.is(service.metadata.annotations?.['service.beta.kubernetes.io/aws-load-balancer-type'], 'nlb');
  t.is(service.metadata.labels?.['exposed'], 'true');
  t.deepEqual(
    service.spec.ports.map((p: { port: number; nodePort: number }) => [p.port, p.nodePort]),
    [
      [8080, 30080],
      [8443, 30443],
    ],
  );

  const monitor = find(objects, 'ServiceMonitor', 'envoy-ingress');
  t.is(monitor.metadata.labels?.['release'], 'prometheus');
  t.deepEqual(monitor.spec.endpoints, [{ port: 'metrics', interval: '15s' }]);
  // It selects the metrics Service, which selects the controller's pods on their metrics port.
  const metricsService = find(objects, 'Service', 'envoy-ingress-metrics');
  t.like(metricsService.metadata.labels, monitor.spec.selector.matchLabels);
  t.false(Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => service.metadata.labels?.[k] === v), 'not the Service in front of Envoy');
  t.deepEqual(metricsService.spec.selector, deployment.spec.selector.matchLabels);
  t.deepEqual(metricsService.spec.ports, [{ name: 'metrics', port: 9200, targetPort: 'metrics', protocol: 'TCP' }]);

  // split: the Envoy DaemonSet takes envoy.* scheduling, the controller Deployment controller.*; the Secrets.
  const split = (await render({ valuesFiles: [allValues], set: { variant: 'split' } })).objects;
  const envoyPods = find(split, 'DaemonSet', 'envoy-ingress-envoy').spec.template;
  t.deepEqual(envoyPods.spec.nodeSelector, { 'node-role.example.com/edge': 'true' });
  t.deepEqual(envoyPods.spec.tolerations, [{ key: 'dedicated', operator: 'Exists' }]);
  t.deepEqual(envoyPods.metadata.annotations, { 'example.com/envoy': 'yes' });
  t.is(envoyPods.spec.volumes.find((v: { name: string }) => v.name === 'xds-tls').secret.secretName, 'my-xds-client');
  const splitController = find(split, 'Deployment', 'envoy-ingress-controller');
  t.is(splitController.spec.replicas, 3);
  t.deepEqual(splitController.spec.template.spec.nodeSelector, { 'kubernetes.io/os': 'linux' });
  t.is(splitController.spec.template.spec.volumes[0].secret.secretName, 'my-xds-server');
  t.deepEqual(find(split, 'Service', 'envoy-ingress-metrics').spec.selector, splitController.spec.selector.matchLabels);
});

test('controller.manageServiceIngress adds the flag and exactly the RBAC of deploy/optional/service-ingress-manager-rbac.yaml', async (t) => {
  const plain = (await render()).objects;
  const managing = (await render({ set: { 'controller.manageServiceIngress': 'true' } })).objects;
  const added = managing.filter((o) => !plain.some((p) => identity(p) === identity(o)));
  const optional = parseObjects(await readFile(path.join(repoRoot, 'deploy/optional/service-ingress-manager-rbac.yaml'), 'utf8'));
  t.deepEqual(asSet(added), asSet(optional));
  const args = (objects: KubeObject[]) => container(find(objects, 'Deployment', 'envoy-ingress'), 'controller').args as string[];
  t.deepEqual(args(managing), [...args(plain), '--manage-service-ingress']);
});

test('controller.gatewayPortRange adds the flag and exactly the RBAC of deploy/optional/gateway-services-rbac.yaml', async (t) => {
  const plain = (await render()).objects;
  const ranged = (await render({ set: { 'controller.gatewayPortRange': '20000-20999' } })).objects;
  const added = ranged.filter((o) => !plain.some((p) => identity(p) === identity(o)));
  const optional = parseObjects(await readFile(path.join(repoRoot, 'deploy/optional/gateway-services-rbac.yaml'), 'utf8'));
  t.deepEqual(asSet(added), asSet(optional));
  const args = (objects: KubeObject[]) => container(find(objects, 'Deployment', 'envoy-ingress'), 'controller').args as string[];
  t.deepEqual(args(ranged), [...args(plain), '--gateway-port-range=20000-20999']);
  // The Gateway Services' EndpointSlices list the ready endpoints of the Service whose selector is exactly
  // --gateway-service-selector: in the split variant the Envoy Service's (the DaemonSet's pods), not the controller's.
  const split = (await render({ set: { 'controller.gatewayPortRange': '20000-20999', variant: 'split' } })).objects;
  const flag = (container(find(split, 'Deployment', 'envoy-ingress-controller'), 'controller').args as string[]).find((a) => a.startsWith('--gateway-service-selector='));
  const selector = Object.fromEntries((flag ?? '').slice('--gateway-service-selector='.length).split(',').map((pair) => pair.split('=')));
  t.deepEqual(selector, find(split, 'Service', 'envoy-ingress').spec.selector);
});

test('controller.nginxConfigMap adds the flag and exactly the Role of deploy/optional/nginx-configmap/, in the ConfigMap\'s namespace', async (t) => {
  const plain = (await render()).objects;
  const reading = (await render({ set: { 'controller.nginxConfigMap': 'ingress-nginx/ingress-nginx-controller' } })).objects;
  const added = reading.filter((o) => !plain.some((p) => identity(p) === identity(o)));
  const optional = parseObjects(await readFile(path.join(repoRoot, 'deploy/optional/nginx-configmap/rbac.yaml'), 'utf8'));
  t.deepEqual(asSet(added), asSet(optional));
  const args = (objects: KubeObject[]) => container(find(objects, 'Deployment', 'envoy-ingress'), 'controller').args as string[];
  t.deepEqual(args(reading), [...args(plain), '--nginx-configmap=ingress-nginx/ingress-nginx-controller']);
  // Another ConfigMap: the Role follows it.
  const other = (await render({ set: { 'controller.nginxConfigMap': 'edge/nginx-settings' } })).objects;
  const role = find(other, 'Role', 'envoy-ingress-nginx-configmap');
  t.is(role.metadata.namespace, 'edge');
  t.deepEqual((role as any).rules[0].resourceNames, ['nginx-settings']);
  t.is(find(other, 'RoleBinding', 'envoy-ingress-nginx-configmap').metadata.namespace, 'edge');
});

test('controller.service.enabled=false: no Service, and no --publish-service naming it', async (t) => {
  for (const variant of ['default', 'split']) {
    const { objects } = await render({ set: { variant, 'controller.service.enabled': 'false' } });
    t.false(objects.some((o) => o.kind === 'Service' && o.metadata.name === 'envoy-ingress'), variant);
    const controller = objects.find((o) => o.kind === 'Deployment')!;
    t.false(container(controller, 'controller').args.some((a: string) => a.startsWith('--publish-service')), variant);
  }
});

test('names and addresses follow the release and its namespace', async (t) => {
  const { objects } = await render({ release: 'edge', namespace: 'ingress-system', set: { variant: 'split' } });
  const controller = container(find(objects, 'Deployment', 'edge-envoy-ingress-controller'), 'controller');
  t.true(controller.args.includes('--publish-service=ingress-system/edge-envoy-ingress'));
  t.true(controller.args.includes('--leader-election-namespace=ingress-system'));
  t.true(controller.args.includes('--xds-tls-client-san=edge-envoy-ingress-envoy.ingress-system.svc'));
  const bootstrap = find(objects, 'ConfigMap', 'edge-envoy-ingress-bootstrap').data!['bootstrap.yaml']!;
  t.regex(bootstrap, /address: edge-envoy-ingress-xds\.ingress-system\.svc\n/);
  t.regex(bootstrap, /exact: edge-envoy-ingress-xds\.ingress-system\.svc\n/);
  t.truthy(find(objects, 'Service', 'edge-envoy-ingress-xds'));
  t.deepEqual((find(objects, 'ClusterRoleBinding', 'edge-envoy-ingress') as any).subjects, [{ kind: 'ServiceAccount', name: 'edge-envoy-ingress', namespace: 'ingress-system' }]);
  const edge = (await render({ release: 'edge', namespace: 'ingress-system', set: { variant: 'edge-nodes', nameOverride: 'public' } })).objects;
  t.true(container(find(edge, 'DaemonSet', 'edge-public'), 'controller').args.includes('--publish-nodes=app.kubernetes.io/name=public'));
});

test('bad values are refused, naming the value', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ variant: 'mesh' }, /variant/],
    [{ 'controller.ingressClassResource.controllerValue': 'no-slash' }, /controllerValue/],
    [{ 'controller.image.digest': 'latest' }, /digest/],
    [{ 'controller.service.type': 'ExternalName' }, /service/],
    [{ 'envoy.logLevel': 'verbose' }, /logLevel/],
    [{ 'controller.nginxConfigMap': 'ingress-nginx-controller' }, /nginxConfigMap/],
  ];
  for (const [set, message] of cases) {
    const error = await t.throwsAsync(render({ set }));
    t.regex(error!.message, message, JSON.stringify(set));
    t.regex(error!.message, /values don't meet the specifications of the schema/, JSON.stringify(set));
  }
});

test.serial('helm install, then helm upgrade to another values file, then helm rollback, on the real API server', async (t) => {
  const kubeconfig = home.file('kubeconfig');
  await writeFile(kubeconfig, kube.cluster.kubeconfig({ token: kube.cluster.adminToken }), { mode: 0o600 });
  const inCluster = ['--kubeconfig', kubeconfig, '--namespace', 'ingress-system'];
  const get = async (what: string): Promise<any> => JSON.parse(await kube.cluster.kubectlOk(['get', '-n', 'ingress-system', '-o', 'json', ...what.split(' ')]));
  const names = async (kinds: string): Promise<string[]> =>
    (await get(kinds)).items.map((o: KubeObject) => `${o.kind}/${o.metadata.name}`).sort();

  // The documented install: the namespace comes from --create-namespace.
  await helm(['install', 'envoy-ingress', chartDir, ...inCluster, '--create-namespace', '--values', path.join(repoRoot, 'testdata/helm/upgrade-1.yaml')]);
  t.deepEqual(await names('deployments,daemonsets,services,configmaps -l app.kubernetes.io/name=envoy-ingress'), [
    'ConfigMap/envoy-ingress-bootstrap',
    'Deployment/envoy-ingress',
    'Service/envoy-ingress',
  ]);
  t.is((await get('deployment envoy-ingress')).spec.replicas, 2);
  const classBefore = JSON.parse(await kube.cluster.kubectlOk(['get', 'ingressclass', 'envoy-ingress', '-o', 'json']));
  t.is(classBefore.metadata.annotations['ingressclass.kubernetes.io/is-default-class'], 'true');
  t.is((await get('service envoy-ingress')).spec.type, 'LoadBalancer');

  await helm(['upgrade', 'envoy-ingress', chartDir, ...inCluster, '--values', path.join(repoRoot, 'testdata/helm/upgrade-2.yaml')]);
  // The variant's objects replace the default's: the old Deployment is gone, the new ones are there.
  t.deepEqual(await names('deployments,daemonsets,services,configmaps,servicemonitors -l app.kubernetes.io/name=envoy-ingress'), [
    'ConfigMap/envoy-ingress-bootstrap',
    'DaemonSet/envoy-ingress-envoy',
    'Deployment/envoy-ingress-controller',
    'Service/envoy-ingress',
    'Service/envoy-ingress-metrics',
    'Service/envoy-ingress-xds',
    'ServiceMonitor/envoy-ingress',
  ]);
  t.is((await get('deployment envoy-ingress-controller')).spec.replicas, 3);
  const service = await get('service envoy-ingress');
  t.is(service.spec.type, 'NodePort');
  t.is(service.metadata.annotations['example.com/exposed-by'], 'envoy-ingress');
  t.is(service.spec.selector['app.kubernetes.io/component'], 'envoy');
  const bootstrap = (await get('configmap envoy-ingress-bootstrap')).data;
  t.deepEqual(Object.keys(bootstrap).sort(), ['bootstrap.yaml', 'xds-client-certificate.yaml', 'xds-trusted-ca.yaml']);
  t.regex(bootstrap['bootstrap.yaml'], /address: envoy-ingress-xds\.ingress-system\.svc\n/);
  const classAfter = JSON.parse(await kube.cluster.kubectlOk(['get', 'ingressclass', 'envoy-ingress', '-o', 'json']));
  t.is(classAfter.metadata.annotations['envoy-ingress.io/nginx-annotations'], 'true');
  t.is(classAfter.metadata.annotations['ingressclass.kubernetes.io/is-default-class'], undefined);

  const { stdout: history } = await helm(['history', 'envoy-ingress', ...inCluster, '--output', 'json']);
  t.deepEqual(
    JSON.parse(history).map((r: { revision: number; status: string }) => [r.revision, r.status]),
    [
      [1, 'superseded'],
      [2, 'deployed'],
    ],
  );
  // Rollback: revision 1's objects again, the split's gone.
  await helm(['rollback', 'envoy-ingress', '1', ...inCluster]);
  t.deepEqual(await names('deployments,daemonsets,services,configmaps,servicemonitors -l app.kubernetes.io/name=envoy-ingress'), [
    'ConfigMap/envoy-ingress-bootstrap',
    'Deployment/envoy-ingress',
    'Service/envoy-ingress',
  ]);
  t.is((await get('service envoy-ingress')).spec.type, 'LoadBalancer');
  await helm(['uninstall', 'envoy-ingress', ...inCluster]);
  t.deepEqual(await names('deployments,daemonsets,services,configmaps,servicemonitors -l app.kubernetes.io/name=envoy-ingress'), []);
});

test('every flag the chart passes to our image exists, with every value set, in every variant', async (t) => {
  const helps = new Map<string, string>();
  const flags = new Set<string>();
  for (const variant of variants) {
    const { objects } = await render({ valuesFiles: [allValues], set: { variant } });
    for (const workload of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet')) {
      for (const c of workload.spec.template.spec.containers as { name: string; image: string; args: string[] }[]) {
        if (!c.image.startsWith('registry.example.com/envoy-ingress/controller@')) continue;
        const [command, ...args] = c.args;
        if (!helps.has(command!)) helps.set(command!, (await run(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), 'help', command!])).stdout);
        for (const flag of args.map((a) => a.split('=')[0]!)) {
          t.true(helps.get(command!)!.includes(`${flag} `) || helps.get(command!)!.includes(`${flag}\n`), `${variant} ${c.name}: ${flag} is a flag of ${command}`);
          flags.add(flag);
        }
      }
    }
  }
  t.deepEqual([...helps.keys()].sort(), ['drain-envoy', 'run']);
  // The value-driven flags are among them.
  for (const flag of ['--ingress-class', '--controller-name', '--nginx-annotations', '--metrics-address', '--publish-nodes', '--xds-tls-cert']) t.true(flags.has(flag), flag);
});

test.serial('an install made with kubectl apply -f deploy/ is adopted by helm install as docs/install/upgrades.md says, without replacing a pod template', async (t) => {
  const kubeconfig = home.file('kubeconfig-adopt');
  await writeFile(kubeconfig, kube.cluster.kubeconfig({ token: kube.cluster.adminToken }), { mode: 0o600 });
  const deployDir = path.join(repoRoot, 'deploy');
  await kube.cluster.kubectlOk(['apply', '-f', deployDir]);
  const before = JSON.parse(await kube.cluster.kubectlOk(['get', '-n', 'envoy-ingress', 'deployment', 'envoy-ingress', '-o', 'json']));
  // Without the ownership metadata Helm refuses to touch the objects.
  const refused = await t.throwsAsync(helm(['install', 'envoy-ingress', chartDir, '--kubeconfig', kubeconfig, '--namespace', 'envoy-ingress']));
  t.regex(refused!.message, /exists and cannot be imported into the current release/);
  // The command of docs/install/upgrades.md: Helm takes the objects over (kubectl's client-side apply owns fields the API server
  // defaulted, e.g. fieldRef.apiVersion, hence --force-conflicts: the values are the same).
  await helm(['install', 'envoy-ingress', chartDir, '--kubeconfig', kubeconfig, '--namespace', 'envoy-ingress', '--take-ownership', '--force-conflicts']);
  const after = JSON.parse(await kube.cluster.kubectlOk(['get', '-n', 'envoy-ingress', 'deployment', 'envoy-ingress', '-o', 'json']));
  t.is(after.metadata.uid, before.metadata.uid);
  // The same spec, pod template included: no rollout. (metadata.generation does move: a Deployment counts
  // annotation changes too, Helm's own among them.)
  t.deepEqual(after.spec, before.spec);
  t.is(after.metadata.annotations['meta.helm.sh/release-name'], 'envoy-ingress');
  const { stdout } = await helm(['list', '--kubeconfig', kubeconfig, '--namespace', 'envoy-ingress', '--output', 'json']);
  t.deepEqual(
    JSON.parse(stdout).map((r: { name: string; status: string }) => [r.name, r.status]),
    [['envoy-ingress', 'deployed']],
  );
  await helm(['uninstall', 'envoy-ingress', '--kubeconfig', kubeconfig, '--namespace', 'envoy-ingress']);
});
