// deploy/ stays consistent with the code: the bootstrap ConfigMap is what the CLI prints and Envoy accepts,
// and every flag the Deployment passes exists. (`kubectl apply --dry-run=server` runs in test/kube-e2e.test.ts.)
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { findRepoRoot } from './harness/repo-root.js';

const run = promisify(execFile);
const root = findRepoRoot();
const cli = (args: string[]) => run(process.execPath, [path.join(root, 'dist/cli/main.js'), ...args]);

async function docs(file: string): Promise<Record<string, any>[]> {
  return parseAllDocuments(await readFile(path.join(root, 'deploy', file), 'utf8')).map((d) => d.toJS() as Record<string, any>);
}

test('the bootstrap ConfigMap is exactly what `envoy-ingress bootstrap` prints, and Envoy accepts it', async (t) => {
  const [configMap] = await docs('04-envoy-bootstrap.yaml');
  const header = (await readFile(path.join(root, 'deploy/04-envoy-bootstrap.yaml'), 'utf8')).split('\n')[0]!;
  const args = header.replace(/^# Generated: envoy-ingress /, '').split(' ');
  const { stdout } = await cli(args);
  const bootstrap = parse(configMap!['data']['bootstrap.yaml']);
  t.deepEqual(bootstrap, parse(stdout), `regenerate deploy/04-envoy-bootstrap.yaml with: envoy-ingress ${args.join(' ')}`);
  const result = await validateWithEnvoy(bootstrap);
  t.true(result.ok, result.output);
  // The Deployment probes Envoy's readiness listener and points it at the controller's xDS port.
  const [deployment] = await docs('05-deployment.yaml');
  const envoy = deployment!['spec']['template']['spec']['containers'].find((c: any) => c.name === 'envoy');
  t.is(envoy.readinessProbe.httpGet.path, '/ready');
  const readyPort = envoy.ports.find((p: any) => p.name === envoy.readinessProbe.httpGet.port).containerPort;
  t.regex(JSON.stringify(bootstrap), new RegExp(`"port_value":${readyPort}\\b`));
});

test('every flag the Deployment passes to the controller exists', async (t) => {
  const [deployment] = await docs('05-deployment.yaml');
  const controller = deployment!['spec']['template']['spec']['containers'].find((c: any) => c.name === 'controller');
  const { stdout: help } = await cli(['help', 'run']);
  t.is(controller.args[0], 'run');
  for (const arg of controller.args.slice(1) as string[]) {
    const flag = arg.split('=')[0]!;
    t.true(help.includes(`${flag} `) || help.includes(`${flag}\n`), `${flag} is a flag of run`);
  }
  const health = controller.args.find((a: string) => a.startsWith('--health-address='));
  t.regex(health, new RegExp(`:${controller.readinessProbe.httpGet.port === 'health' ? controller.ports[0].containerPort : controller.readinessProbe.httpGet.port}$`));
});

test('every flag the install variants pass to our image exists (controller `run`, drainer `drain-envoy`)', async (t) => {
  const files = ['deploy/05-deployment.yaml', 'deploy-variants/edge-nodes/daemonset.yaml', 'deploy-variants/split/controller.yaml', 'deploy-variants/split/envoy-daemonset.yaml'];
  const helps = new Map<string, string>();
  let checked = 0;
  for (const file of files) {
    const workloads = parseAllDocuments(await readFile(path.join(root, file), 'utf8'))
      .map((d) => d.toJS() as Record<string, any>)
      .filter((d) => d['kind'] === 'Deployment' || d['kind'] === 'DaemonSet');
    for (const workload of workloads) {
      for (const c of workload['spec']['template']['spec']['containers'] as { name: string; image: string; args: string[] }[]) {
        if (!c.image.startsWith('envoy-ingress/controller:')) continue;
        const [command, ...args] = c.args;
        if (!helps.has(command!)) helps.set(command!, (await cli(['help', command!])).stdout);
        const help = helps.get(command!)!;
        for (const flag of args.map((a) => a.split('=')[0]!)) {
          t.true(help.includes(`${flag} `) || help.includes(`${flag}\n`), `${file} ${c.name}: ${flag} is a flag of ${command}`);
          checked += 1;
        }
      }
    }
  }
  t.deepEqual([...helps.keys()].sort(), ['drain-envoy', 'run']);
  t.true(checked > 20);
});

test('the optional ConfigMap Role (deploy/optional/nginx-configmap/) grants get/list/watch on one ConfigMap, in one namespace', async (t) => {
  const [role, binding] = parseAllDocuments(await readFile(path.join(root, 'deploy/optional/nginx-configmap/rbac.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, any>);
  t.is(role!['kind'], 'Role');
  t.deepEqual(role!['rules'], [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['ingress-nginx-controller'], verbs: ['get', 'list', 'watch'] }]);
  t.is(binding!['kind'], 'RoleBinding');
  t.is(binding!['metadata']['namespace'], role!['metadata']['namespace']);
  t.deepEqual(binding!['subjects'], [{ kind: 'ServiceAccount', name: 'envoy-ingress', namespace: 'envoy-ingress' }]);
});
