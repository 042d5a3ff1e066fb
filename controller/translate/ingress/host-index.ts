// Which served Ingresses contribute to each host and name each Service or Secret: what incremental translation
// (incremental-translate.ts) walks to find the Ingresses around a change. A cache of the state, updated in place
// from build to build.
import { catchAllHost } from '../../../ir/index.js';
import type { Ingress } from '../shared/kube-objects.js';
import { namespaceOf } from '../shared/kinds.js';

const nginxAnnotationPrefix = 'nginx.ingress.kubernetes.io/';

/** Whether the Ingress has ingress-nginx annotations (features that may reach beyond its hosts). */
export function hasNginxAnnotations(ingress: Ingress): boolean {
  for (const key of Object.keys(ingress.metadata.annotations ?? {})) if (key.startsWith(nginxAnnotationPrefix)) return true;
  return false;
}

/** An Ingress's names of one kind, worked out once per Ingress object (objects are replaced, never changed). */
function memoized(cache: WeakMap<Ingress, readonly string[]>, ingress: Ingress, namesOf: (ingress: Ingress) => string[]): readonly string[] {
  let names = cache.get(ingress);
  if (names === undefined) {
    names = namesOf(ingress);
    cache.set(ingress, names);
  }
  return names;
}

function hostsNamedBy(ingress: Ingress): string[] {
  const hosts = new Set<string>();
  for (const rule of ingress.spec?.rules ?? []) hosts.add(rule.host === undefined || rule.host === '' ? catchAllHost : rule.host.toLowerCase());
  for (const tls of ingress.spec?.tls ?? []) for (const host of tls.hosts ?? []) hosts.add(host.toLowerCase());
  return [...hosts];
}

function servicesNamedBy(ingress: Ingress): string[] {
  const namespace = namespaceOf(ingress.metadata);
  const services = new Set<string>();
  const backend = ingress.spec?.defaultBackend?.service?.name;
  if (backend !== undefined) services.add(`${namespace}/${backend}`);
  for (const rule of ingress.spec?.rules ?? []) {
    for (const path of rule.http?.paths ?? []) if (path.backend.service !== undefined) services.add(`${namespace}/${path.backend.service.name}`);
  }
  return [...services];
}

/**
 * The Secrets the Ingress may read: those its TLS entries name in its own namespace (one of another namespace is
 * refused without being read), and for an Ingress with ingress-nginx annotations every Secret an annotation value
 * could name (auth-secret), a superset, so a change to any of them is never missed.
 */
function secretsNamedBy(ingress: Ingress): string[] {
  const namespace = namespaceOf(ingress.metadata);
  const secrets = new Set<string>();
  for (const tls of ingress.spec?.tls ?? []) {
    const name = tls.secretName;
    if (name !== undefined && name !== '' && !name.includes('/')) secrets.add(`${namespace}/${name}`);
  }
  for (const [key, value] of Object.entries(ingress.metadata.annotations ?? {})) {
    if (!key.startsWith(nginxAnnotationPrefix)) continue;
    const name = value.trim();
    secrets.add(name.includes('/') ? name : `${namespace}/${name}`);
  }
  return [...secrets];
}

/** Which served Ingresses contribute to each host (rules or TLS), kept up to date from build to build. */
export class HostIndex {
  readonly #byHost = new Map<string, Set<Ingress>>();
  readonly #byService = new Map<string, Set<Ingress>>();
  readonly #bySecret = new Map<string, Set<Ingress>>();
  readonly #hostsOf = new WeakMap<Ingress, readonly string[]>();
  readonly #servicesOf = new WeakMap<Ingress, readonly string[]>();
  readonly #secretsOf = new WeakMap<Ingress, readonly string[]>();

  static of(ingresses: readonly Ingress[]): HostIndex {
    const index = new HostIndex();
    for (const ingress of ingresses) index.add(ingress);
    return index;
  }

  /** Lower-cased hosts of the Ingress's rules (`*` for a host-less rule) and TLS entries. */
  hostsOf(ingress: Ingress): readonly string[] {
    return memoized(this.#hostsOf, ingress, hostsNamedBy);
  }

  /** `namespace/name` of the Services the Ingress's rules and default backend name. */
  servicesOf(ingress: Ingress): readonly string[] {
    return memoized(this.#servicesOf, ingress, servicesNamedBy);
  }

  /** `namespace/name` of the Secrets the Ingress may read (secretsNamedBy). */
  secretsOf(ingress: Ingress): readonly string[] {
    return memoized(this.#secretsOf, ingress, secretsNamedBy);
  }

  add(ingress: Ingress): void {
    for (const host of this.hostsOf(ingress)) addTo(this.#byHost, host, ingress);
    for (const service of this.servicesOf(ingress)) addTo(this.#byService, service, ingress);
    for (const secret of this.secretsOf(ingress)) addTo(this.#bySecret, secret, ingress);
  }

  remove(ingress: Ingress): void {
    for (const host of this.hostsOf(ingress)) removeFrom(this.#byHost, host, ingress);
    for (const service of this.servicesOf(ingress)) removeFrom(this.#byService, service, ingress);
    for (const secret of this.secretsOf(ingress)) removeFrom(this.#bySecret, secret, ingress);
  }

  /** Served Ingresses that may read the Secret (`namespace/name`, see secretsOf). */
  secretUsers(secret: string): ReadonlySet<Ingress> {
    return this.#bySecret.get(secret) ?? new Set();
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
