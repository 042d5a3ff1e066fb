/**
 * Locates real kube-apiserver, kubectl and etcd binaries for tests: KUBE_APISERVER_BIN, KUBECTL_BIN and ETCD_BIN,
 * or the pinned builds made (once, into the user cache) by scripts/kube/ensure-binaries.sh.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { findRepoRoot } from './repo-root.js';

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
  const paths = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) paths.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const kubeApiServer = paths.get('kube-apiserver');
  const kubectl = paths.get('kubectl');
  const etcd = paths.get('etcd');
  if (!kubeApiServer || !kubectl || !etcd) {
    throw new Error(`expected kube-apiserver=, kubectl= and etcd= lines, got: ${JSON.stringify(stdout)}`);
  }
  return { kubeApiServer, kubectl, etcd };
}

function runEnsureBinaries(): Promise<KubeBinaries> {
  const script = join(findRepoRoot(), 'scripts', 'kube', 'ensure-binaries.sh');
  return new Promise((resolve, reject) => {
    // stderr goes straight through: a cold build prints its progress there and should not look like a hang.
    const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const timer = setTimeout(() => child.kill('SIGTERM'), KUBE_BINARIES_BUILD_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`Could not run ${script}: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${script} failed (${signal ?? `exit code ${code}`}); its stderr above says which step and how to retry`));
        return;
      }
      try {
        resolve(parseEnsureBinariesOutput(stdout));
      } catch (error) {
        reject(new Error(`${script}: ${error instanceof Error ? error.message : String(error)}`));
      }
    });
  });
}
