/**
 * What a real node leaves on the host, read from /proc, /sys, `ip` and `nft`: taken before the node starts and
 * after its teardown, so a test can say exactly what was left behind (a process, a mount, a network namespace, a
 * link, a netfilter table or chain, a cgroup, a directory, a changed sysctl).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIXED_HOST_PATHS, NODE_BRIDGE, NODE_DATA_DIR, NODE_RUN_DIR, NODE_SYSCTLS, POD_BRIDGE, systemEnv } from './kube-node-layout.js';

const execFileAsync = promisify(execFile);
/** The system's tools (kube-node-layout.ts SYSTEM_PATH), not a command of the same name under node_modules/.bin. */
const run = (command: string, args: readonly string[], options: { maxBuffer?: number } = {}): Promise<{ stdout: string; stderr: string }> =>
  execFileAsync(command, args, { env: systemEnv(), encoding: 'utf8', ...options });

export interface HostState {
  /** `pid command line` of the node's processes (nodeProcesses()). */
  processes: string[];
  /** Mount points of the node: under its directories (pods' network namespaces among them) or the fixed paths. */
  mounts: string[];
  /** Every link name (veths of pods are recognised by name against what the node had during its run). */
  links: string[];
  /** `family name` of every nftables table. */
  nftTables: string[];
  /** Netfilter chains named like Kubernetes' or CNI's (KUBE-…, CNI-…), from the whole ruleset. */
  nodeChains: string[];
  /** Cgroup directories of the kubelet (`kubepods` in any v1 hierarchy). */
  cgroups: string[];
  /** Which of the node's directories and the fixed paths exist. */
  paths: string[];
  /** The node's sysctls and their values (absent ones left out). */
  sysctls: Record<string, string>;
}

export async function readHostState(): Promise<HostState> {
  const [links, nftTables, ruleset] = await Promise.all([
    run('ip', ['-o', 'link', 'show']).then(({ stdout }) => stdout.split('\n').map((line) => /^\d+: ([^:@]+)/.exec(line)?.[1]).filter((n): n is string => !!n)),
    run('nft', ['list', 'tables']).then(({ stdout }) => stdout.split('\n').map((l) => l.replace(/^table /, '').trim()).filter(Boolean), () => []),
    run('nft', ['list', 'ruleset'], { maxBuffer: 64 * 1024 * 1024 }).then(({ stdout }) => stdout, () => ''),
  ]);
  const nodeChains = [...new Set(ruleset.match(/\b(KUBE|CNI)-[A-Z0-9-]+/g) ?? [])].sort();
  return {
    processes: nodeProcesses(),
    mounts: nodeMounts(),
    links: links.sort(),
    nftTables: nftTables.sort(),
    nodeChains,
    cgroups: kubeletCgroups(),
    paths: [NODE_DATA_DIR, NODE_RUN_DIR, ...FIXED_HOST_PATHS].filter((p) => existsSync(p)),
    sysctls: readSysctls(),
  };
}

export function readSysctls(): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of NODE_SYSCTLS) {
    try {
      values[name] = readFileSync(join('/proc/sys', name), 'utf8').trim();
    } catch {
      // Not on this kernel (e.g. br_netfilter not loaded): nothing to restore.
    }
  }
  return values;
}

/**
 * What `after` has that `before` had not (and sysctls that differ), as readable lines; `podLinks` are the names of
 * the pods' veths and the node's bridges seen while the node ran (links come and go with other tests too, so only
 * the node's own are judged).
 */
export function hostLeftovers(before: HostState, after: HostState, podLinks: readonly string[]): string[] {
  const added = (kind: string, a: readonly string[], b: readonly string[]): string[] =>
    b.filter((x) => !a.includes(x)).map((x) => `${kind}: ${x}`);
  const ownLinks = new Set([NODE_BRIDGE, POD_BRIDGE, ...podLinks]);
  return [
    ...after.processes.map((p) => `process: ${p}`),
    ...added('mount', before.mounts, after.mounts),
    ...after.links.filter((l) => ownLinks.has(l)).map((l) => `link: ${l}`),
    ...added('nftables table', before.nftTables, after.nftTables),
    ...added('netfilter chain', before.nodeChains, after.nodeChains),
    ...added('cgroup', before.cgroups, after.cgroups),
    ...added('path', before.paths, after.paths),
    ...Object.entries(before.sysctls)
      .filter(([name, value]) => after.sysctls[name] !== undefined && after.sysctls[name] !== value)
      .map(([name, value]) => `sysctl: ${name} is ${after.sysctls[name]}, was ${value}`),
  ];
}

/**
 * The node's processes: those whose command line names the node's directories (every component's flags do, and
 * containerd's shims name its socket there), and those in a kubelet pod cgroup. Never by binary path alone: other
 * tests run the same etcd and kube-apiserver binaries for clusters of their own.
 */
export function nodeProcesses(directories: readonly string[] = [NODE_DATA_DIR, NODE_RUN_DIR]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let args: string[] = [];
    let cgroup = '';
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      cgroup = readFileSync(`/proc/${entry}/cgroup`, 'utf8');
    } catch {
      continue; // gone
    }
    if (args.length === 0) continue; // kernel thread or zombie
    const namesDirectory = args.some((arg) => directories.some((d) => arg.endsWith(d) || arg.includes(`${d}/`)));
    if (namesDirectory || /:\/kubepods(\/|$)/m.test(cgroup)) found.push(`${entry} ${args.join(' ').slice(0, 160)}`);
  }
  return found;
}

/** Mount points (field 5 of mountinfo, octal escapes decoded) under the node's paths. */
export function nodeMounts(): string[] {
  const roots = [NODE_DATA_DIR, NODE_RUN_DIR, ...FIXED_HOST_PATHS];
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p): p is string => !!p)
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => roots.some((root) => p === root || p.startsWith(`${root}/`)))
    .sort();
}

/** `kubepods` cgroup directories in every cgroup v1 hierarchy (or the v2 root). */
export function kubeletCgroups(): string[] {
  const found: string[] = [];
  const base = '/sys/fs/cgroup';
  const candidates = existsSync(join(base, 'cgroup.controllers')) ? [base] : readdirSync(base).map((h) => join(base, h));
  for (const dir of candidates) {
    for (const name of ['kubepods', 'kubepods.slice']) if (existsSync(join(dir, name))) found.push(join(dir, name));
  }
  return found.sort();
}
