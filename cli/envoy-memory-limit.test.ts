import { mkdir, writeFile } from 'node:fs/promises';
import test from 'ava';
import { createTempDir } from '../test/harness/temp-dir.js';
import { envoyFindsCgroupMemory, memoryLimitForHost, memoryLimitOfFlag } from './envoy-memory-limit.js';

test('--max-heap-bytes: absent follows the container (cgroup), 0 is no memory limit, a number a fixed heap limit', (t) => {
  t.deepEqual(memoryLimitOfFlag(undefined), { source: 'cgroup' });
  t.deepEqual(memoryLimitOfFlag(0), { source: 'none' });
  t.deepEqual(memoryLimitOfFlag(805_306_368), { source: 'heap', maxBytes: 805_306_368 });
});

test('envoyFindsCgroupMemory: cgroup v2 files of a container, or the v1 memory hierarchy, as Envoy looks for them', async (t) => {
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  // A cgroup v2 host seen from outside containers: the root cgroup has no memory.current / memory.max.
  await writeFile(dir.file('cgroup.controllers'), 'cpu memory pids\n');
  t.false(envoyFindsCgroupMemory(dir.path));
  await writeFile(dir.file('memory.current'), '123\n');
  t.false(envoyFindsCgroupMemory(dir.path), 'Envoy needs memory.max too');
  await writeFile(dir.file('memory.max'), 'max\n');
  t.true(envoyFindsCgroupMemory(dir.path));
  const v1 = await createTempDir();
  t.teardown(() => v1.remove());
  await mkdir(v1.file('memory'));
  t.true(envoyFindsCgroupMemory(v1.path));
});

test('memoryLimitForHost: the cgroup limit only where Envoy can read it; other limits as they are', (t) => {
  t.deepEqual(memoryLimitForHost({ source: 'cgroup' }, true), { source: 'cgroup' });
  t.deepEqual(memoryLimitForHost({ source: 'cgroup' }, false), { source: 'none' });
  t.deepEqual(memoryLimitForHost({ source: 'heap', maxBytes: 1 }, false), { source: 'heap', maxBytes: 1 });
});
