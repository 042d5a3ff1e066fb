/**
 * Runs iproute2's `ip` for the test hosts. "ip is not installed" and "not allowed to create namespaces" become a
 * TestHostsUnavailableError that says what is missing, instead of a bare ENOENT or EPERM deep inside a test.
 */
import { execFile, execFileSync } from 'node:child_process';

export interface CommandResult {
  /** Exit code (signals count as -1). */
  code: number;
  stdout: string;
  stderr: string;
}

/** This machine or user cannot create network namespaces, so tests that need test hosts cannot run. */
export class TestHostsUnavailableError extends Error {
  override name = 'TestHostsUnavailableError';
}

const NEEDS =
  'Test hosts are network namespaces with a veth pair, created with iproute2 (`ip netns`, `ip link`), which ' +
  'needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)';

/** Runs a command; resolves with its exit code and output. Rejects only if it cannot be started. */
export function runCommand(command: string, args: readonly string[]): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      // A string code (ENOENT, EACCES...) means the command never ran; a number is its exit code.
      if (error && typeof error.code === 'string') {
        reject(error);
        return;
      }
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `ip ARGS`; a missing `ip` becomes a TestHostsUnavailableError. */
export async function runIp(args: readonly string[]): Promise<CommandResult> {
  try {
    return await runCommand('ip', args);
  } catch (error) {
    throw unavailableIfMissing(error);
  }
}

/** Runs `ip ARGS` and returns stdout; a failure throws with ip's message, a permission failure says root is needed. */
export async function runIpOk(args: readonly string[]): Promise<string> {
  const result = await runIp(args);
  if (result.code !== 0) throw ipFailure(args, result);
  return result.stdout;
}

/** The error for a failed `ip` command: TestHostsUnavailableError when it was refused for lack of privilege. */
export function ipFailure(args: readonly string[], result: CommandResult): Error {
  const said = result.stderr.trim() || `exit code ${result.code}`;
  if (/Operation not permitted|Permission denied/i.test(result.stderr)) {
    return new TestHostsUnavailableError(`${NEEDS}; \`ip ${args.join(' ')}\` was refused: ${said}`);
  }
  return new Error(`\`ip ${args.join(' ')}\` failed: ${said}`);
}

/** Synchronous `ip ARGS` for the process-exit hook (no event loop there); failures are ignored. */
export function runIpSyncQuietly(args: readonly string[]): void {
  try {
    execFileSync('ip', args, { stdio: 'ignore', timeout: 10_000 });
  } catch {
    // Best effort: the object may already be gone.
  }
}

function unavailableIfMissing(error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    return new TestHostsUnavailableError(
      `${NEEDS}, but the \`ip\` command was not found on PATH (${process.env['PATH'] ?? ''}); install iproute2.`,
    );
  }
  return error;
}
