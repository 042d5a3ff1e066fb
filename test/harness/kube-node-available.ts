/**
 * Locates everything a real node needs: kube-apiserver, kubectl and etcd (kube-available.ts) plus kubelet,
 * kube-controller-manager, kube-scheduler, kube-proxy, containerd, the pause program and the Debian tools, from
 * scripts/kube/ensure-node.sh (built once into the user cache; a cold build takes many minutes).
 */
import { namedPaths, runBuildScript } from './build-script.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS, type KubeBinaries } from './kube-available.js';

export interface KubeNodeBinaries extends KubeBinaries {
  kubelet: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  kubeProxy: string;
  containerd: string;
  containerdShim: string;
  ctr: string;
  pause: string;
  runc: string;
  cniBinDir: string;
  nft: string;
  iptables: string;
}

/** SKIP_NODE_TESTS=1 (or SKIP_KUBE_TESTS=1) leaves the real-node tests out. */
export function nodeTestsSkipped(): boolean {
  return process.env['SKIP_NODE_TESTS'] === '1' || process.env['SKIP_KUBE_TESTS'] === '1';
}

/** Parses ensure-node.sh's `name=path` lines. Exported for tests. */
export function parseEnsureNodeOutput(stdout: string): Omit<KubeNodeBinaries, keyof KubeBinaries> {
  const paths = namedPaths(stdout);
  const get = (name: string): string => {
    const value = paths.get(name);
    if (!value) throw new Error(`expected a ${name}= line, got: ${JSON.stringify(stdout)}`);
    return value;
  };
  return {
    kubelet: get('kubelet'),
    kubeControllerManager: get('kube-controller-manager'),
    kubeScheduler: get('kube-scheduler'),
    kubeProxy: get('kube-proxy'),
    containerd: get('containerd'),
    containerdShim: get('containerd-shim-runc-v2'),
    ctr: get('ctr'),
    pause: get('pause'),
    runc: get('runc'),
    cniBinDir: get('cni-bin-dir'),
    nft: get('nft'),
    iptables: get('iptables'),
  };
}

let cached: Promise<KubeNodeBinaries> | undefined;

export function findKubeNodeBinaries(): Promise<KubeNodeBinaries> {
  cached ??= (async () => {
    const kube = await findKubeBinaries();
    const node = await runBuildScript('kube/ensure-node.sh', KUBE_BINARIES_BUILD_TIMEOUT_MS, parseEnsureNodeOutput);
    return { ...kube, ...node };
  })().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}
