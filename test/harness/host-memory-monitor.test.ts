import test from 'ava';
import { buildBootstrap } from '../../envoy/bootstrap.js';
import { bootstrapForThisHost } from './host-memory-monitor.js';

const bootstrap = buildBootstrap({ nodeId: 'n', nodeCluster: 'c', xdsHost: '127.0.0.1', xdsPort: 1, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta' });

test('where Envoy cannot read cgroup memory, test Envoys run without that monitor and its actions; elsewhere as built', (t) => {
  t.is(bootstrapForThisHost(bootstrap, true), bootstrap);
  const adapted = bootstrapForThisHost(bootstrap, false) as Record<string, any>;
  t.notRegex(JSON.stringify(adapted), /cgroup_memory/);
  t.deepEqual(adapted['overload_manager'].resource_monitors.map((m: any) => m.name), ['envoy.resource_monitors.global_downstream_max_connections']);
  t.deepEqual(adapted['overload_manager'].actions, []);
  t.deepEqual({ ...adapted, overload_manager: undefined }, { ...bootstrap, overload_manager: undefined });
});
