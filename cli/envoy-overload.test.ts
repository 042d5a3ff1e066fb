import test from 'ava';
import { isNearOverload, overloadRemedies, parseOverloadStats, type OverloadState } from './envoy-overload.js';

// What Envoy 1.40's admin /stats?filter=^overload\. answered with the cgroup memory monitor at 99 % (see
// test/envoy-overload-e2e.test.ts for the real thing).
const overloaded = `overload.envoy.overload_actions.reduce_timeouts.active: 1
overload.envoy.overload_actions.reduce_timeouts.scale_percent: 100
overload.envoy.overload_actions.reset_high_memory_stream.active: 1
overload.envoy.overload_actions.reset_high_memory_stream.scale_percent: 40
overload.envoy.overload_actions.shrink_heap.active: 1
overload.envoy.overload_actions.shrink_heap.scale_percent: 100
overload.envoy.overload_actions.shrink_heap.shrink_count: 3
overload.envoy.overload_actions.stop_accepting_requests.active: 1
overload.envoy.overload_actions.stop_accepting_requests.scale_percent: 100
overload.envoy.resource_monitors.cgroup_memory.failed_updates: 0
overload.envoy.resource_monitors.cgroup_memory.pressure: 99
overload.envoy.resource_monitors.cgroup_memory.skipped_updates: 0
overload.envoy.resource_monitors.global_downstream_max_connections.pressure: 0
overload.refresh_interval_delay: No recorded values
`;

const state = (pressure: Record<string, number>, actions: Record<string, number> = {}): OverloadState => ({ pressure, actions });

test('parseOverloadStats: each monitor\'s pressure and each action\'s scale, as fractions; counters and histograms ignored', (t) => {
  t.deepEqual(parseOverloadStats(overloaded), {
    pressure: { 'envoy.resource_monitors.cgroup_memory': 0.99, 'envoy.resource_monitors.global_downstream_max_connections': 0 },
    actions: {
      'envoy.overload_actions.reduce_timeouts': 1,
      'envoy.overload_actions.reset_high_memory_stream': 0.4,
      'envoy.overload_actions.shrink_heap': 1,
      'envoy.overload_actions.stop_accepting_requests': 1,
    },
  });
  t.deepEqual(parseOverloadStats(''), { pressure: {}, actions: {} });
});

test('isNearOverload: from 90 % of a limit or while requests are refused; over only below 85 % (no flapping around 90 %)', (t) => {
  const memory = 'envoy.resource_monitors.cgroup_memory';
  t.false(isNearOverload(state({ [memory]: 0.89 }), false));
  t.true(isNearOverload(state({ [memory]: 0.9 }), false));
  t.true(isNearOverload(state({ [memory]: 0.87 }), true), 'still near between 85 and 90 %');
  t.false(isNearOverload(state({ [memory]: 0.84 }), true));
  t.true(isNearOverload(state({ [memory]: 0.1 }, { 'envoy.overload_actions.stop_accepting_requests': 1 }), false));
  t.false(isNearOverload(state({ [memory]: 0.1 }, { 'envoy.overload_actions.stop_accepting_requests': 0 }), false));
  t.false(isNearOverload(state({}), false));
});

test('overloadRemedies: the monitors near their limit, fullest first, with what to raise', (t) => {
  const remedies = overloadRemedies(
    state({
      'envoy.resource_monitors.cgroup_memory': 0.93,
      'envoy.resource_monitors.global_downstream_max_connections': 0.97,
      'envoy.resource_monitors.fixed_heap': 0.2,
    }),
  );
  t.is(remedies.length, 2);
  t.regex(remedies[0]!, /^envoy\.resource_monitors\.global_downstream_max_connections at 97 %: raise --max-downstream-connections/);
  t.regex(remedies[1]!, /^envoy\.resource_monitors\.cgroup_memory at 93 %: raise the Envoy container's memory limit/);
  t.regex(overloadRemedies(state({ 'envoy.resource_monitors.fixed_heap': 0.99 }))[0]!, /raise --max-heap-bytes/);
});
