// Runs a process that resolves names through its own /etc/hosts, for tests that need a DNS name pointing at
// loopback (a tenant's "127.0.0.1.nip.io") without touching the machine's /etc/hosts: the process gets a private
// mount namespace (`unshare -m`, mounts private by default, so nothing leaks out) in which the test's hosts file is
// bind-mounted over /etc/hosts. Needs root (CI and the developers' machines run as root).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

/** A command line that runs `bin args` with `hostsFile` as its /etc/hosts. */
export function withPrivateHosts(hostsFile: string, bin: string, args: readonly string[]): { bin: string; args: string[] } {
  // unshare execs its program (no --fork), so the pid the caller gets is, after the shell's exec, `bin` itself.
  return { bin: 'unshare', args: ['-m', '--', 'sh', '-c', 'mount --bind "$0" /etc/hosts && exec "$@"', hostsFile, bin, ...args] };
}

/** Writes a hosts file mapping each name to its address. */
export async function writeHostsFile(file: string, entries: Record<string, string>): Promise<void> {
  await writeFile(file, Object.entries(entries).map(([name, address]) => `${address} ${name}\n`).join(''));
}

/** Throws, saying why, where a private /etc/hosts cannot be had (not root, no mount namespaces). */
export async function assertPrivateHostsWork(hostsFile: string, name: string): Promise<void> {
  const { bin, args } = withPrivateHosts(hostsFile, 'getent', ['hosts', name]);
  try {
    await promisify(execFile)(bin, args);
  } catch (err) {
    throw new Error(`a private /etc/hosts (unshare -m, as root) is needed here: ${(err as Error).message}`);
  }
}
