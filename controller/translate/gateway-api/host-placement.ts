// Per socket (binding key) and host, the match lists of the routes placed there (ir-listeners.ts PortHosts). A full
// translation places every route; an incremental one starts from the last translation's placement and only adds and
// removes the routes whose placement changed (created, replaced, deleted, admitted or refused by the route budget),
// so an HTTPRoute change does not index every route's hosts again. The order of a host's lists does not matter: they
// are flattened by IR route name (unique per route) and sorted by precedence when a virtual host is made.
import type { PlacedMatch } from './httproute-rules.js';
import type { PortHosts } from './ir-listeners.js';

type MatchLists = (readonly PlacedMatch[])[];

export class HostPlacement {
  readonly byBinding: Map<string, PortHosts>;
  /** Binding maps and host lists made by this placement (changed in place); the others are the last one's. */
  readonly #own = new Set<PortHosts | MatchLists>();

  constructor(previous: ReadonlyMap<string, PortHosts> | undefined) {
    this.byBinding = new Map(previous ?? []);
  }

  #hostsOf(binding: string): PortHosts {
    const found = this.byBinding.get(binding);
    if (found !== undefined && this.#own.has(found)) return found;
    const hosts: PortHosts = new Map(found ?? []);
    this.#own.add(hosts);
    this.byBinding.set(binding, hosts);
    return hosts;
  }

  add(hostsByBinding: ReadonlyMap<string, ReadonlySet<string>>, matches: readonly PlacedMatch[]): void {
    for (const [binding, hosts] of hostsByBinding) {
      const portHosts = this.#hostsOf(binding);
      for (const host of hosts) {
        const lists = portHosts.get(host);
        if (lists !== undefined && this.#own.has(lists)) lists.push(matches);
        else {
          const made: MatchLists = lists === undefined ? [matches] : [...lists, matches];
          this.#own.add(made);
          portHosts.set(host, made);
        }
      }
    }
  }

  remove(hostsByBinding: ReadonlyMap<string, ReadonlySet<string>>, matches: readonly PlacedMatch[]): void {
    for (const [binding, hosts] of hostsByBinding) {
      const portHosts = this.#hostsOf(binding);
      for (const host of hosts) {
        const lists = portHosts.get(host);
        const at = lists?.indexOf(matches) ?? -1;
        if (lists === undefined || at < 0) continue;
        const left = this.#own.has(lists) ? lists : [...lists];
        left.splice(at, 1);
        if (left.length === 0) portHosts.delete(host);
        else {
          this.#own.add(left);
          portHosts.set(host, left);
        }
      }
    }
  }
}
