// A scan of whole route tables, remembered for the last tables it saw. Every TLS filter chain of the HTTPS
// listener serves the same tables, and the listener keys look at them again: scanning once per build instead of
// once per chain keeps the listener O(chains + routes), not O(chains x routes) (5,000 chains x 100,000 hosts at
// 50,000 Ingresses took minutes).
import type { RouteTableIR } from '../ir/index.js';

/** `scan`, remembered per list of tables (the same tables in the same order, by identity; weakly held). */
export function perTablesMemo<O>(scan: (tables: readonly RouteTableIR[]) => O): (tables: readonly RouteTableIR[]) => O {
  const byFirstTable = new WeakMap<RouteTableIR, { tables: readonly RouteTableIR[]; output: O }>();
  return (tables) => {
    const first = tables[0];
    let made = first === undefined ? undefined : byFirstTable.get(first);
    if (made === undefined || !sameTables(made.tables, tables)) {
      made = { tables, output: scan(tables) };
      if (first !== undefined) byFirstTable.set(first, made);
    }
    return made.output;
  };
}

function sameTables(a: readonly RouteTableIR[], b: readonly RouteTableIR[]): boolean {
  return a.length === b.length && a.every((table, i) => table === b[i]);
}
