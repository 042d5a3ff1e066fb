import test from 'ava';
import fc from 'fast-check';
import type { RouteTableIR, VirtualHostIR } from '../ir/index.js';
import { incrementalHostScan } from './host-scan.js';

/** A host whose contribution is its weight (0: none). */
function host(name: string, weight: number): VirtualHostIR {
  return { name, hostnames: [name], routes: [], weight } as unknown as VirtualHostIR;
}
const weightOf = (vhost: VirtualHostIR): number => (vhost as unknown as { weight: number }).weight;
const names = (contributions: readonly VirtualHostIR[]): string[] => contributions.map((h) => h.name);

test('after any sequence of splices the scan gives what a fresh scan of the tables gives (property)', (t) => {
  // Each step replaces a slice of one table by new hosts (inserted, removed, replaced), or swaps in a new table.
  const step = fc.record({ table: fc.nat(1), at: fc.nat(20), remove: fc.nat(3), add: fc.array(fc.nat(2), { maxLength: 3 }), fresh: fc.boolean() });
  let counter = 0;
  fc.assert(
    fc.property(fc.array(fc.array(fc.nat(2), { maxLength: 12 }), { minLength: 1, maxLength: 2 }), fc.array(step, { maxLength: 15 }), (initial, steps) => {
      const scan = incrementalHostScan((h) => h, (h) => weightOf(h) > 0, names);
      let tables: RouteTableIR[] = initial.map((weights, i) => ({ name: `t${i}`, virtualHosts: weights.map((w) => host(`h${counter++}`, w)) }));
      const check = (): boolean => {
        const expected = tables.flatMap((table) => table.virtualHosts.filter((h) => weightOf(h) > 0)).map((h) => h.name);
        return JSON.stringify(scan(tables)) === JSON.stringify(expected);
      };
      if (!check()) return false;
      for (const s of steps) {
        const i = s.table % tables.length;
        const hosts = [...tables[i]!.virtualHosts];
        if (s.fresh) hosts.splice(0, hosts.length, ...hosts.map((h) => host(h.name, weightOf(h))));
        else hosts.splice(Math.min(s.at, hosts.length), s.remove, ...s.add.map((w) => host(`h${counter++}`, w)));
        tables = tables.map((table, j) => (j === i ? { ...table, virtualHosts: hosts } : table));
        if (!check()) return false;
      }
      return true;
    }),
    { numRuns: 500 },
  );
  t.pass();
});

test('a splice that leaves the contributing hosts as they were gives the same output object', (t) => {
  const scan = incrementalHostScan((h) => h, (h) => weightOf(h) > 0, names);
  const a = host('a', 1);
  const first = scan([{ name: 't', virtualHosts: [a, host('b', 0)] }]);
  t.is(scan([{ name: 't', virtualHosts: [a, host('b', 0), host('c', 0)] }]), first);
  t.not(scan([{ name: 't', virtualHosts: [a, host('d', 1)] }]), first);
});
