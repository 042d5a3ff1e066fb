/**
 * What the cluster tests run on the real node besides the product: echo backends (the echo image of
 * scripts/kube/build-images.sh) behind Services and Ingresses, and ways to look at the product's pods from the
 * host: their containers' processes (/proc/<pid>), their addresses, and requests through the node.
 */
import { readFileSync } from 'node:fs';
import { httpGet, type HttpResult } from './http-client.js';
import type { KubeNode } from './kube-node.js';
import { NODE_ADDRESS } from './kube-node-layout.js';
import { waitFor } from './wait.js';

export const ECHO_IMAGE = 'envoy-ingress/test-echo:dev';

/** A namespace with one echo Deployment, its Service (port 80) and an Ingress of class `ingressClass` for `host`. */
export function echoBackendManifests(options: { namespace: string; name: string; host: string; ingressClass: string; replicas?: number }): string {
  const { namespace, name, host, ingressClass } = options;
  const labels = { app: name };
  const docs = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace },
      spec: {
        replicas: options.replicas ?? 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            terminationGracePeriodSeconds: 5,
            securityContext: { runAsNonRoot: true, runAsUser: 65532 },
            containers: [
              {
                name: 'echo',
                image: ECHO_IMAGE,
                imagePullPolicy: 'IfNotPresent',
                env: [
                  { name: 'ECHO_SERVICE', value: name },
                  { name: 'PORT', value: '8080' },
                ],
                ports: [{ name: 'http', containerPort: 8080 }],
                readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 1 },
                resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name, namespace },
      spec: {
        ingressClassName: ingressClass,
        rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }] } }],
      },
    },
  ];
  return docs.map((d) => JSON.stringify(d)).join('\n---\n');
}

interface PodJson {
  metadata: { name: string; namespace: string; deletionTimestamp?: string; uid: string };
  spec: { nodeName?: string; containers: Array<{ name: string }> };
  status: {
    podIP?: string;
    phase?: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: Array<{ name: string; containerID?: string; ready: boolean; restartCount: number; started?: boolean }>;
  };
}

export async function podsOf(node: KubeNode, namespace: string, selector: string): Promise<PodJson[]> {
  const out = await node.kubectlOk(['get', 'pods', '-n', namespace, '-l', selector, '-o', 'json']);
  return (JSON.parse(out) as { items: PodJson[] }).items;
}

export function isReady(pod: PodJson): boolean {
  return !pod.metadata.deletionTimestamp && pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** Waits until exactly `count` pods match and all are Ready; resolves with them. */
export async function waitForReadyPods(node: KubeNode, namespace: string, selector: string, count: number, timeoutMs = 180_000): Promise<PodJson[]> {
  return waitFor(
    async () => {
      const pods = (await podsOf(node, namespace, selector)).filter((p) => !p.metadata.deletionTimestamp);
      return pods.length === count && pods.every(isReady) ? pods : undefined;
    },
    { timeoutMs, intervalMs: 1000, description: `${count} Ready pods ${selector} in ${namespace}` },
  );
}

/** The host pid of a pod's container (containerd's task of that container). */
export async function containerPid(node: KubeNode, pod: PodJson, container: string): Promise<number> {
  const id = pod.status.containerStatuses?.find((c) => c.name === container)?.containerID?.replace(/^containerd:\/\//, '');
  if (!id) throw new Error(`pod ${pod.metadata.name} has no running container ${container}`);
  const tasks = await node.ctr(['tasks', 'list']);
  const line = tasks.split('\n').find((l) => l.startsWith(`${id} `));
  const pid = Number(line?.trim().split(/\s+/)[1]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no task for container ${container} (${id}) of ${pod.metadata.name}:\n${tasks}`);
  return pid;
}

export interface ProcessIdentity {
  uid: number[];
  gid: number[];
  capEff: bigint;
  capPrm: bigint;
  capBnd: bigint;
  noNewPrivs: boolean;
  /** 0 disabled, 1 strict, 2 filter. */
  seccomp: number;
}

/** What the kernel says about a process: /proc/<pid>/status. */
export function processIdentity(pid: number): ProcessIdentity {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): string => {
    const value = new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1];
    if (value === undefined) throw new Error(`no ${name} in /proc/${pid}/status`);
    return value.trim();
  };
  return {
    uid: field('Uid').split(/\s+/).map(Number),
    gid: field('Gid').split(/\s+/).map(Number),
    capEff: BigInt(`0x${field('CapEff')}`),
    capPrm: BigInt(`0x${field('CapPrm')}`),
    capBnd: BigInt(`0x${field('CapBnd')}`),
    noNewPrivs: field('NoNewPrivs') === '1',
    seccomp: Number(field('Seccomp')),
  };
}

/** The mount options of the process's root filesystem, from its own mount namespace. */
export function rootMountOptions(pid: number): string[] {
  const line = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .filter((l) => l.split(' ')[4] === '/')
    .at(-1);
  if (!line) throw new Error(`no / mount in /proc/${pid}/mountinfo`);
  return line.split(' ')[5]!.split(',');
}

/** The node port of a Service's port `name`. */
export async function nodePortOf(node: KubeNode, namespace: string, service: string, name: string): Promise<number> {
  const out = await node.kubectlOk(['get', 'service', service, '-n', namespace, '-o', `jsonpath={.spec.ports[?(@.name=="${name}")].nodePort}`]);
  const port = Number(out.trim());
  if (!Number.isInteger(port) || port <= 0) throw new Error(`service ${namespace}/${service} has no nodePort for ${name}: ${out}`);
  return port;
}

/** A GET for `host` through the node's address (a NodePort) or any other address on the node's bridges. */
export function getVia(address: string, port: number, host: string, path = '/'): Promise<HttpResult> {
  return httpGet({ host: address, port, hostHeader: host, path, timeoutMs: 5_000 });
}

/** Waits until `host` answers 200 from backend `service` through address:port. */
export async function waitServes(address: string, port: number, host: string, service: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    async () => {
      const res = await getVia(address, port, host, '/probe');
      return res.status === 200 && res.json?.service === service;
    },
    { timeoutMs, intervalMs: 500, description: `${host} served by ${service} through ${address}:${port}` },
  );
}

export { NODE_ADDRESS };
