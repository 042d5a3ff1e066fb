/**
 * Runs one of the scripts that build pinned binaries into the user cache (scripts/kube/ensure-binaries.sh,
 * scripts/ensure-go-tools.sh) and reads the `name=path` lines it prints on stdout.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { findRepoRoot } from './repo-root.js';

/** The `name=path` lines of a build script's stdout, by name. */
export function namedPaths(stdout: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) paths.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return paths;
}

/** Runs `scripts/<relativePath>`, killed after `timeoutMs`, and parses its stdout with `parse`. */
export function runBuildScript<T>(relativePath: string, timeoutMs: number, parse: (stdout: string) => T): Promise<T> {
  const script = join(findRepoRoot(), 'scripts', relativePath);
  return new Promise((resolve, reject) => {
    // stderr goes straight through: a cold build prints its progress there and should not look like a hang.
    const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
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
        resolve(parse(stdout));
      } catch (error) {
        reject(new Error(`${script}: ${error instanceof Error ? error.message : String(error)}`));
      }
    });
  });
}
