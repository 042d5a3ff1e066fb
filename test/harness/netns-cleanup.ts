/**
 * Making sure test hosts do not outlive their test run: live hosts are removed when the process exits (a failed
 * test may never reach its destroy()), and hosts left by processes that died anyway (SIGKILL, crash) are found
 * by their owner pid, which no longer exists, and removed.
 */
import { readFileSync } from 'node:fs';
import { parseTestHostInterface, parseTestHostNamespace } from './netns-naming.js';
import { runIp, runIpSyncQuietly } from './netns-ip.js';

/** What the exit hook needs to remove one live test host. */
export interface ExitCleanupEntry {
  namespace: string;
  hostInterface: string;
  /** Processes running in the namespace, killed first. */
  pids(): Iterable<number>;
}

const live = new Set<ExitCleanupEntry>();
let exitHookInstalled = false;

/** Removes `entry`'s host when this process exits, unless unregistered first. Returns the unregister function. */
export function removeOnExit(entry: ExitCleanupEntry): () => void {
  installExitHook();
  live.add(entry);
  return () => live.delete(entry);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const entry of live) {
      for (const pid of entry.pids()) killQuietly(pid);
      // Deleting one veth end deletes the pair and its route, even while a process still holds the namespace.
      runIpSyncQuietly(['link', 'delete', entry.hostInterface]);
      runIpSyncQuietly(['netns', 'delete', entry.namespace]);
    }
    live.clear();
  });
}

/**
 * Removes test host namespaces (`ei-<pid>-<n>`) and root-namespace veths (`ei<pid>h<n>`) whose owner pid no
 * longer exists, killing whatever still runs in those namespaces. Hosts of live processes (other test files
 * running in parallel) are left alone. Returns the names removed.
 */
export async function cleanupStaleTestHosts(): Promise<string[]> {
  const removed: string[] = [];
  const namespaces = await runIp(['netns', 'list']);
  for (const line of namespaces.stdout.split('\n')) {
    // Lines look like "ei-123-0 (id: 4)" or just "ei-123-0".
    const name = line.trim().split(/\s+/)[0] ?? '';
    const owner = parseTestHostNamespace(name);
    if (!owner || isProcessAlive(owner.pid)) continue;
    const pids = await runIp(['netns', 'pids', name]);
    for (const pid of pids.stdout.split('\n').map(Number).filter((pid) => Number.isInteger(pid) && pid > 0)) {
      killQuietly(pid);
    }
    await runIp(['link', 'delete', `ei${owner.pid}h${owner.counter}`]);
    const deleted = await runIp(['netns', 'delete', name]);
    if (deleted.code === 0) removed.push(name);
  }
  // A veth whose namespace is already gone (or was never made to hold it) would still claim its /30.
  const links = await runIp(['-o', 'link', 'show']);
  for (const line of links.stdout.split('\n')) {
    // "7: ei123h0@if6: <BROADCAST,...": the name is the second field, before any "@peer".
    const name = (line.split(':')[1] ?? '').trim().split('@')[0] ?? '';
    const owner = parseTestHostInterface(name);
    if (!owner || isProcessAlive(owner.pid)) continue;
    const deleted = await runIp(['link', 'delete', name]);
    if (deleted.code === 0) removed.push(name);
  }
  return removed;
}

/** Whether `pid` is a running process; a zombie (dead, not yet reaped by its parent) counts as gone. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  try {
    // "<pid> (<comm>) <state> ...": comm may hold spaces and parentheses, the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
