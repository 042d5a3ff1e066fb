// Test and bench Envoys run as plain processes. Where /sys/fs/cgroup has neither cgroup layout Envoy's
// cgroup_memory monitor reads (a cgroup v2 host, outside containers: cli/envoy-memory-limit.ts), Envoy would refuse
// to start with the default bootstrap; there it runs without that monitor, as `run --envoy` does. On hosts where
// the monitor runs it stays, and the tests exercise it.
import { envoyFindsCgroupMemory } from '../../cli/envoy-memory-limit.js';
import { memoryMonitors } from '../../envoy/bootstrap.js';

type Json = Record<string, any>;

/** `bootstrap` without the cgroup memory monitor and the actions it triggers when this host cannot run it. */
export function bootstrapForThisHost(bootstrap: object, findsCgroupMemory = envoyFindsCgroupMemory()): object {
  const overload = (bootstrap as Json)['overload_manager'] as Json | undefined;
  if (findsCgroupMemory || overload === undefined) return bootstrap;
  const monitors = (overload['resource_monitors'] as Json[]).filter((m) => m['name'] !== memoryMonitors.cgroup);
  if (monitors.length === overload['resource_monitors'].length) return bootstrap;
  const { overload_manager: _, ...rest } = bootstrap as Json;
  if (monitors.length === 0) return rest;
  const actions = ((overload['actions'] ?? []) as Json[]).filter((a) => !(a['triggers'] as Json[]).some((t) => t['name'] === memoryMonitors.cgroup));
  const { buffer_factory_config: __, ...manager } = overload;
  return { ...rest, overload_manager: { ...manager, resource_monitors: monitors, actions } };
}
