/**
 * Locates the pinned `helm` and `actionlint` (and prometheus-operator's ServiceMonitor CRD) for tests:
 * HELM_BIN, ACTIONLINT_BIN and SERVICEMONITOR_CRD, or what scripts/ensure-go-tools.sh builds (once, into the
 * user cache) from the Go module proxy.
 */
import { namedPaths, runBuildScript } from './build-script.js';

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
  const paths = namedPaths(stdout);
  const helm = paths.get('helm');
  const actionlint = paths.get('actionlint');
  const serviceMonitorCrd = paths.get('servicemonitor-crd');
  if (!helm || !actionlint || !serviceMonitorCrd) {
    throw new Error(`expected helm=, actionlint= and servicemonitor-crd= lines, got: ${JSON.stringify(stdout)}`);
  }
  return { helm, actionlint, serviceMonitorCrd };
}

function runEnsureGoTools(): Promise<GoTools> {
  return runBuildScript('ensure-go-tools.sh', GO_TOOLS_BUILD_TIMEOUT_MS, parseEnsureGoToolsOutput);
}
