/**
 * Locates real kube-apiserver, kubectl and etcd binaries for tests: KUBE_APISERVER_BIN, KUBECTL_BIN and ETCD_BIN,
 * or the pinned builds made (once, into the user cache) by scripts/kube/ensure-binaries.sh.
 */
import { namedPaths, runBuildScript } from './build-script.js';

export interface KubeBinaries {
  kubeApiServer: string;
  kubectl: string;
  etcd: string;
}

/**
 * A cold cache means compiling Kubernetes from source: many minutes on a small machine. Tests that call
 * findKubeBinaries() should allow this long (ava: `t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS)` in a before hook).
 */
export const KUBE_BINARIES_BUILD_TIMEOUT_MS = 60 * 60_000;

let cached: Promise<KubeBinaries> | undefined;

/** Paths of the three binaries; the build script runs at most once per process. */
export function findKubeBinaries(): Promise<KubeBinaries> {
  const fromEnv = binariesFromEnv();
  if (fromEnv) return Promise.resolve(fromEnv);
  cached ??= runEnsureBinaries().catch((error: unknown) => {
    cached = undefined; // a later call may retry, e.g. after a network failure during the build
    throw error;
  });
  return cached;
}

/** The env overrides, when all three are set (the script honours each one on its own as well). */
function binariesFromEnv(): KubeBinaries | undefined {
  const kubeApiServer = process.env['KUBE_APISERVER_BIN'];
  const kubectl = process.env['KUBECTL_BIN'];
  const etcd = process.env['ETCD_BIN'];
  return kubeApiServer && kubectl && etcd ? { kubeApiServer, kubectl, etcd } : undefined;
}

/** Parses the script's `name=path` lines. Exported for tests. */
export function parseEnsureBinariesOutput(stdout: string): KubeBinaries {
  const paths = namedPaths(stdout);
  const kubeApiServer = paths.get('kube-apiserver');
  const kubectl = paths.get('kubectl');
  const etcd = paths.get('etcd');
  if (!kubeApiServer || !kubectl || !etcd) {
    throw new Error(`expected kube-apiserver=, kubectl= and etcd= lines, got: ${JSON.stringify(stdout)}`);
  }
  return { kubeApiServer, kubectl, etcd };
}

function runEnsureBinaries(): Promise<KubeBinaries> {
  return runBuildScript('kube/ensure-binaries.sh', KUBE_BINARIES_BUILD_TIMEOUT_MS, parseEnsureBinariesOutput);
}
