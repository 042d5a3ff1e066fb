/**
 * Removes what a node left on the host, in the order the kernel needs: processes (they hold mounts and network
 * namespaces), mounts (deepest first; the pods' network namespaces are mounts under containerd's state dir), the
 * node's links, its netfilter rules, chains and
 * the tables it made, the kubelet's cgroups, its directories, and last the sysctls it changed. Used by the
 * teardown of a running node and, at the next start, for what a killed test process never tore down: for that
 * it reads what the start wrote into NODE_DATA_DIR (which paths it created, the sysctls before).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kubeletCgroups, nodeMounts, nodeProcesses } from './kube-node-host-state.js';
import { NODE_BRIDGE, NODE_DATA_DIR, NODE_RUN_DIR, POD_BRIDGE, systemEnv } from './kube-node-layout.js';
import { sleep } from './wait.js';

const execFileAsync = promisify(execFile);
/** The system's tools (kube-node-layout.ts SYSTEM_PATH), not a command of the same name under node_modules/.bin. */
const run = (command: string, args: readonly string[], options: { maxBuffer?: number } = {}): Promise<{ stdout: string; stderr: string }> =>
  execFileAsync(command, args, { env: systemEnv(), encoding: 'utf8', ...options });
const RECORD = join(NODE_DATA_DIR, 'host-record.json');

/** What the start changed on the host, written before it changes anything. */
export interface HostRecord {
  /** Fixed paths (kube-node-layout.ts) that did not exist before the node. */
  createdPaths: string[];
  /** nftables tables (`family name`) that existed before the node: the others it made are deleted. */
  tablesBefore: string[];
  /** Sysctl values before the node. */
  sysctls: Record<string, string>;
}

export function writeHostRecord(record: HostRecord): void {
  writeFileSync(RECORD, JSON.stringify(record));
}

export function readHostRecord(): HostRecord | undefined {
  try {
    return JSON.parse(readFileSync(RECORD, 'utf8')) as HostRecord;
  } catch {
    return undefined;
  }
}

/** Removes everything; returns what it could not remove (empty when clean). */
export async function cleanUpHost(): Promise<string[]> {
  const problems: string[] = [];
  const record = readHostRecord();
  await killNodeProcesses(problems);
  unmountAll(problems);
  await deleteLinks(problems);
  await deleteNetfilterState(record?.tablesBefore, problems);
  removeCgroups(problems);
  for (const path of [NODE_RUN_DIR, ...(record?.createdPaths ?? [])]) removeQuietly(path, problems);
  if (record) restoreSysctls(record.sysctls, problems);
  removeQuietly(NODE_DATA_DIR, problems);
  return problems;
}

async function killNodeProcesses(problems: string[]): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const left = nodeProcesses();
    if (left.length === 0) return;
    for (const line of left) {
      try {
        process.kill(Number(line.split(' ')[0]), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await sleep(100);
  }
  problems.push(...nodeProcesses().map((p) => `process still running: ${p}`));
}

function unmountAll(problems: string[]): void {
  // Deepest first: a mount under another one keeps the outer one busy.
  const mounts = nodeMounts().sort((a, b) => b.length - a.length);
  for (const mount of mounts) {
    if (!nodeMounts().includes(mount)) continue;
    try {
      execFileSyncQuiet('umount', [mount]);
    } catch {
      try {
        execFileSyncQuiet('umount', ['--lazy', mount]);
      } catch (error) {
        problems.push(`umount ${mount}: ${String(error)}`);
      }
    }
  }
}

async function deleteLinks(problems: string[]): Promise<void> {
  // Pods' veths whose namespace is gone went with it; any still attached to the pod bridge go first.
  const { stdout } = await run('ip', ['-o', 'link', 'show', 'master', POD_BRIDGE]).catch(() => ({ stdout: '' }));
  const ports = stdout.split('\n').map((line) => /^\d+: ([^:@]+)/.exec(line)?.[1]).filter((n): n is string => !!n);
  for (const link of [...ports, POD_BRIDGE, NODE_BRIDGE]) {
    await run('ip', ['link', 'delete', link]).catch((error: { stderr?: string }) => {
      if (!/Cannot find device|does not exist/.test(error.stderr ?? '')) problems.push(`ip link delete ${link}: ${error.stderr ?? String(error)}`);
    });
  }
}

const NODE_CHAIN = /^(KUBE|CNI)-/;

/**
 * kube-proxy (nftables mode) keeps its rules in tables of its own; the kubelet and the portmap plugin use
 * iptables, which is iptables-nft here: their chains (KUBE-…, CNI-…) sit in the ip/ip6 filter/nat/mangle tables.
 * Jumps into those chains go first, then the chains, then the tables that were not there before the node.
 */
async function deleteNetfilterState(tablesBefore: readonly string[] | undefined, problems: string[]): Promise<void> {
  const nft = (args: string[]): Promise<string> => run('nft', args, { maxBuffer: 64 * 1024 * 1024 }).then(({ stdout }) => stdout);
  const tables = (await nft(['list', 'tables']).catch(() => '')).split('\n').map((l) => l.replace(/^table /, '').trim()).filter(Boolean);
  for (const table of tables) {
    const [family, name] = table.split(' ') as [string, string];
    if (name === 'kube-proxy') {
      await nft(['delete', 'table', family, name]).catch((error: unknown) => problems.push(`nft delete table ${table}: ${String(error)}`));
      continue;
    }
    const listing = await nft(['-a', 'list', 'table', family, name]).catch(() => '');
    let chain = '';
    const jumps: Array<{ chain: string; handle: string }> = [];
    const nodeChains: string[] = [];
    for (const line of listing.split('\n')) {
      const chainMatch = /^\s*chain (\S+) \{/.exec(line);
      if (chainMatch?.[1]) {
        chain = chainMatch[1];
        if (NODE_CHAIN.test(chain)) nodeChains.push(chain);
        continue;
      }
      const handle = /# handle (\d+)$/.exec(line)?.[1];
      if (handle && !NODE_CHAIN.test(chain) && /\b(jump|goto) (KUBE|CNI)-/.test(line)) jumps.push({ chain, handle });
    }
    for (const jump of jumps) await nft(['delete', 'rule', family, name, jump.chain, 'handle', jump.handle]).catch((e: unknown) => problems.push(`nft delete rule: ${String(e)}`));
    for (const c of nodeChains) await nft(['flush', 'chain', family, name, c]).catch(() => undefined);
    for (const c of nodeChains) await nft(['delete', 'chain', family, name, c]).catch((e: unknown) => problems.push(`nft delete chain ${table} ${c}: ${String(e)}`));
    const wasThere = tablesBefore ? tablesBefore.includes(table) : !['filter', 'nat', 'mangle', 'raw'].includes(name);
    if (!wasThere) {
      // Only when nothing but empty base chains is left: a table with someone else's rules stays.
      const rest = await nft(['list', 'table', family, name]).catch(() => '');
      const hasRules = rest.split('\n').map((l) => l.trim()).some((l) => l !== '' && !/^(table |chain |type |policy |\})/.test(l));
      if (!hasRules) await nft(['delete', 'table', family, name]).catch((e: unknown) => problems.push(`nft delete table ${table}: ${String(e)}`));
    }
  }
}

function removeCgroups(problems: string[]): void {
  for (const top of kubeletCgroups()) {
    const dirs: string[] = [];
    const walk = (dir: string): void => {
      dirs.push(dir);
      for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(join(dir, entry.name));
    };
    try {
      walk(top);
    } catch {
      continue;
    }
    for (const dir of dirs.sort((a, b) => b.length - a.length)) {
      try {
        rmdirSync(dir);
      } catch (error) {
        if (existsSync(dir)) problems.push(`cgroup ${dir}: ${String(error)}`);
      }
    }
  }
}

function restoreSysctls(values: Record<string, string>, problems: string[]): void {
  for (const [name, value] of Object.entries(values)) {
    const file = join('/proc/sys', name);
    try {
      if (readFileSync(file, 'utf8').trim() !== value) writeFileSync(file, value);
    } catch (error) {
      problems.push(`sysctl ${name}=${value}: ${String(error)}`);
    }
  }
}

function removeQuietly(path: string, problems: string[]): void {
  try {
    if (existsSync(path)) rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    problems.push(`rm ${path}: ${String(error)}`);
  }
}

function execFileSyncQuiet(command: string, args: string[]): void {
  // Synchronous on purpose: unmounting is ordered, each step depends on the one before.
  execFileSync(command, args, { stdio: 'ignore', env: systemEnv() });
}
