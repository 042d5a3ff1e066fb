// Which served Ingresses contribute to each host and name each Service: what incremental translation
// (incremental-translate.ts) walks to find the Ingresses around a change. A cache of the state, updated in place
// from build to build.
import { catchAllHost } from '../../ir/index.js';
import type { Ingress } from './kube-objects.js';

/** Which served Ingresses contribute to each host (rules or TLS), kept up to date from build to build. */
export class HostIndex {
  readonly #byHost = new Map<string, Set<Ingress>>();
  readonly #byService = new Map<string, Set<Ingress>>();
  readonly #hostsOf = new WeakMap<Ingress, readonly string[]>();
  readonly #servicesOf = new WeakMap<Ingress, readonly string[]>();

  static of(ingresses: readonly Ingress[]): HostIndex {
    const index = new HostIndex();
    for (const ingress of ingresses) index.add(ingress);
    return index;
  }

  /** Lower-cased hosts of the Ingress's rules (`*` for a host-less rule) and TLS entries. */
  hostsOf(ingress: Ingress): readonly string[] {
    let hosts = this.#hostsOf.get(ingress);
    if (hosts === undefined) {
      const set = new Set<string>();
      for (const rule of ingress.spec?.rules ?? []) set.add(rule.host === undefined || rule.host === '' ? catchAllHost : rule.host.toLowerCase());
      for (const tls of ingress.spec?.tls ?? []) for (const host of tls.hosts ?? []) set.add(host.toLowerCase());
      hosts = [...set];
      this.#hostsOf.set(ingress, hosts);
    }
    return hosts;
  }

  /** `namespace/name` of the Services the Ingress's rules and default backend name. */
  servicesOf(ingress: Ingress): readonly string[] {
    let services = this.#servicesOf.get(ingress);
    if (services === undefined) {
      const namespace = ingress.metadata.namespace ?? 'default';
      const set = new Set<string>();
      const backend = ingress.spec?.defaultBackend?.service?.name;
      if (backend !== undefined) set.add(`${namespace}/${backend}`);
      for (const rule of ingress.spec?.rules ?? []) {
        for (const path of rule.http?.paths ?? []) if (path.backend.service !== undefined) set.add(`${namespace}/${path.backend.service.name}`);
      }
      services = [...set];
      this.#servicesOf.set(ingress, services);
    }
    return services;
  }

  add(ingress: Ingress): void {
    for (const host of this.hostsOf(ingress)) addTo(this.#byHost, host, ingress);
    for (const service of this.servicesOf(ingress)) addTo(this.#byService, service, ingress);
  }

  remove(ingress: Ingress): void {
    for (const host of this.hostsOf(ingress)) removeFrom(this.#byHost, host, ingress);
    for (const service of this.servicesOf(ingress)) removeFrom(this.#byService, service, ingress);
  }

  /** Served Ingresses naming the Service (`namespace/name`). */
  users(service: string): ReadonlySet<Ingress> {
    return this.#byService.get(service) ?? new Set();
  }

  /** Every host with its contributors (for tests and debugging). */
  hosts(): ReadonlyMap<string, ReadonlySet<Ingress>> {
    return this.#byHost;
  }

  contributors(host: string): ReadonlySet<Ingress> {
    return this.#byHost.get(host) ?? new Set();
  }
}

function addTo(map: Map<string, Set<Ingress>>, key: string, ingress: Ingress): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(ingress);
}

function removeFrom(map: Map<string, Set<Ingress>>, key: string, ingress: Ingress): void {
  const set = map.get(key);
  set?.delete(ingress);
  if (set?.size === 0) map.delete(key);
}
