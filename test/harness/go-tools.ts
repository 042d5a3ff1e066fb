/**
 * Locates the pinned `helm` and `actionlint` (and prometheus-operator's ServiceMonitor CRD) for tests:
 * HELM_BIN, ACTIONLINT_BIN and SERVICEMONITOR_CRD, or what scripts/ensure-go-tools.sh builds (once, into the
 * user cache) from the Go module proxy.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { findRepoRoot } from './repo-root.js';

export interface GoTools {
  helm: string;
  actionlint: string;
  serviceMonitorCrd: string;
}

/** A cold cache compiles Helm (a few minutes on a small machine, longer while other builds run). */
export const GO_TOOLS_BUILD_TIMEOUT_MS = 30 * 60_000;

let cached: Promise<GoTools> | undefined;

/** Paths of the tools; the script runs at most once per process. */
export function findGoTools(): Promise<GoTools> {
  const helm = process.env['HELM_BIN'];
  const actionlint = process.env['ACTIONLINT_BIN'];
  const serviceMonitorCrd = process.env['SERVICEMONITOR_CRD'];
  if (helm && actionlint && serviceMonitorCrd) return Promise.resolve({ helm, actionlint, serviceMonitorCrd });
  cached ??= runEnsureGoTools().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

/** Parses the script's `name=path` lines. */
export function parseEnsureGoToolsOutput(stdout: string): GoTools {
  const paths = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) paths.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const helm = paths.get('helm');
  const actionlint = paths.get('actionlint');
  const serviceMonitorCrd = paths.get('servicemonitor-crd');
  if (!helm || !actionlint || !serviceMonitorCrd) {
    throw new Error(`expected helm=, actionlint= and servicemonitor-crd= lines, got: ${JSON.stringify(stdout)}`);
  }
  return { helm, actionlint, serviceMonitorCrd };
}

function runEnsureGoTools(): Promise<GoTools> {
  const script = join(findRepoRoot(), 'scripts', 'ensure-go-tools.sh');
  return new Promise((resolve, reject) => {
    // stderr goes straight through: a cold build prints its progress there.
    const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const timer = setTimeout(() => child.kill('SIGTERM'), GO_TOOLS_BUILD_TIMEOUT_MS);
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
        resolve(parseEnsureGoToolsOutput(stdout));
      } catch (error) {
        reject(new Error(`${script}: ${error instanceof Error ? error.message : String(error)}`));
      }
    });
  });
}
