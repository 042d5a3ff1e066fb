// The memory limit of Envoy's overload manager from the flags, and whether it can be the cgroup's on this host (for the
// Envoy `run --envoy` starts here).
// Envoy 1.40 reads /sys/fs/cgroup/memory.current and memory.max (cgroup v2: a container's own cgroup is mounted at
// /sys/fs/cgroup) or, when those are missing, /sys/fs/cgroup/memory/memory.usage_in_bytes and memory.limit_in_bytes
// (cgroup v1), and refuses to start when /sys/fs/cgroup/memory does not exist either ("No supported cgroup memory
// implementation found"). That is the case outside containers on cgroup v2 hosts: the root cgroup has no
// memory.current or memory.max. In a Kubernetes pod one of the two is always there.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { MemoryLimit } from '../envoy/bootstrap.js';

export function envoyFindsCgroupMemory(root = '/sys/fs/cgroup'): boolean {
  const v2 = existsSync(path.join(root, 'memory.current')) && existsSync(path.join(root, 'memory.max'));
  return v2 || existsSync(path.join(root, 'memory'));
}

/** `limit` for an Envoy on a host where its cgroup_memory monitor `runs` or not: no memory limit where it cannot. */
export function memoryLimitForHost(limit: MemoryLimit, runs: boolean): MemoryLimit {
  return limit.source === 'cgroup' && !runs ? { source: 'none' } : limit;
}

/** `--max-heap-bytes`: absent, the container's limit (cgroup); 0, no memory limit; else a fixed heap limit. */
export function memoryLimitOfFlag(maxHeapBytes: number | undefined): MemoryLimit {
  if (maxHeapBytes === undefined) return { source: 'cgroup' };
  return maxHeapBytes === 0 ? { source: 'none' } : { source: 'heap', maxBytes: maxHeapBytes };
}
