// Stopping a process the bench started: SIGTERM, then SIGKILL if it has not exited after a grace period.
import type { ChildProcess } from 'node:child_process';

/** Sends SIGTERM to `child`, SIGKILL after `graceMs`; resolves once `exited` (its close event) has. */
export async function terminateChild(child: ChildProcess, exited: Promise<void>, graceMs = 10_000): Promise<void> {
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
