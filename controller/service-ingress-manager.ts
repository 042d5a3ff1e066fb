// The Service-annotation Ingress manager (--manage-service-ingress): a Service annotated `ingress/http: "true"`
// gets an Ingress of the same name, owned by it, routing `/` on a host made from a template to the Service's
// first port. Removing the annotation deletes that Ingress, but only if the Service owns it; an Ingress of the
// same name that the Service does not own is never touched. Deleting the Service leaves the Ingress to the
// garbage collector (through the ownerReference). Store changes and a periodic resync enqueue Service keys; a
// keyed work queue runs at most one operation per Service at a time; failures retry with exponential backoff up
// to a limit, after which the Service is left alone until it changes. Only the leader acts.
import { EventEmitter } from 'node:events';
import { ApiException, NetworkingV1Api, type KubeConfig, type V1Ingress } from '@kubernetes/client-node';
import { requestTimeoutOptions } from './leader-election.js';
import { normalizeObject } from './sources/normalize.js';
import type { ObjectStore, StoreChange } from './store.js';
import type { Diagnostic } from './translate/diagnostics.js';
import { parseHost } from './translate/hostname.js';
import type { Ingress, IngressRule, OwnerReference, Service } from './translate/kube-objects.js';

/** The annotation that asks for an Ingress; only the exact value "true" does. */
export const serviceIngressAnnotation = 'ingress/http';
import { defaultServiceIngressHostTemplate } from './service-ingress-host.js';

export { defaultServiceIngressHostTemplate };

/** Stable reasons of the warnings this manager reports (Event reasons / metric labels). */
export const ServiceIngressReason = {
  IngressNameTaken: 'IngressNameTaken',
  InvalidGeneratedHost: 'InvalidGeneratedHost',
  ServiceHasNoPorts: 'ServiceHasNoPorts',
  IngressManagementFailed: 'IngressManagementFailed',
} as const;

/** An owner reference as written to the API (the store's type omits blockOwnerDeletion). */
export interface ControllerOwnerReference extends OwnerReference {
  controller: true;
  blockOwnerDeletion: true;
}

export interface ServiceIngressSettings {
  /** spec.ingressClassName of the generated Ingresses (our class). */
  ingressClassName: string;
  /** Host of the generated rule; `{name}` and `{namespace}` are replaced by the Service's. */
  hostTemplate: string;
}

/** What to do for one Service, decided from the Service and the Ingress of the same name. */
export type ServiceIngressPlan =
  | { action: 'create'; ingress: Ingress }
  | { action: 'update'; ingress: Ingress }
  | { action: 'delete'; namespace: string; name: string; uid: string; resourceVersion: string }
  | { action: 'none'; why: 'not-requested' | 'up-to-date' | 'service-absent' }
  | { action: 'conflict'; diagnostic: Diagnostic }
  | { action: 'invalid'; diagnostic: Diagnostic };

export function wantsIngress(service: Service): boolean {
  return service.metadata.annotations?.[serviceIngressAnnotation] === 'true';
}

/** Whether the Ingress's controller reference is this very Service (same uid: not an earlier namesake). */
export function isOwnedBy(ingress: Ingress, service: Service): boolean {
  const uid = service.metadata.uid;
  if (!uid) return false;
  return (ingress.metadata.ownerReferences ?? []).some(
    (ref) => ref.controller === true && ref.uid === uid && ref.kind === 'Service' && ref.apiVersion === 'v1',
  );
}

export function renderHost(template: string, service: Service): string {
  return template
    .replaceAll('{name}', service.metadata.name)
    .replaceAll('{namespace}', service.metadata.namespace ?? 'default');
}

/** Throws unless the template yields valid exact host names (a wildcard would not name one Service). */
export function validateHostTemplate(template: string): void {
  const sample = renderHost(template, { kind: 'Service', metadata: { name: 'svc', namespace: 'ns' } });
  const parsed = parseHost(sample);
  if (!parsed.valid || sample.startsWith('*') || !template.includes('{name}')) {
    throw new Error(
      `Service Ingress host template ${JSON.stringify(template)} must give a DNS name and contain {name} ` +
        `(e.g. ${JSON.stringify(defaultServiceIngressHostTemplate)})`,
    );
  }
}

export function controllerReference(service: Service): ControllerOwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    name: service.metadata.name,
    uid: service.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The spec fields this manager owns; anything else on the Ingress (tls, labels, annotations) is left alone. */
interface ManagedSpec {
  ingressClassName: string;
  rules: IngressRule[];
}

function managedSpec(service: Service, host: string, settings: ServiceIngressSettings): ManagedSpec | undefined {
  const port = service.spec?.ports?.[0];
  if (!port) return undefined;
  return {
    ingressClassName: settings.ingressClassName,
    rules: [
      {
        host,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: service.metadata.name, port: port.name ? { name: port.name } : { number: port.port } } },
            },
          ],
        },
      },
    ],
  };
}

/** Decides what to do for `service` given the Ingress of the same name (if any). Pure. */
export function planServiceIngress(
  service: Service | undefined,
  existing: Ingress | undefined,
  settings: ServiceIngressSettings,
): ServiceIngressPlan {
  // No Service: nothing to create, and an owned Ingress is the garbage collector's to delete.
  if (!service) return { action: 'none', why: 'service-absent' };
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name;
  const object = { kind: 'Service' as const, namespace, name };
  const owned = existing !== undefined && isOwnedBy(existing, service);
  if (!wantsIngress(service)) {
    if (existing && owned) {
      return { action: 'delete', namespace, name, uid: existing.metadata.uid ?? '', resourceVersion: existing.metadata.resourceVersion ?? '' };
    }
    return { action: 'none', why: 'not-requested' };
  }
  if (existing && !owned) {
    return {
      action: 'conflict',
      diagnostic: {
        object,
        severity: 'Warning',
        reason: ServiceIngressReason.IngressNameTaken,
        message: `Ingress ${namespace}/${name} exists and is not controlled by this Service; it is left untouched and no Ingress is generated`,
      },
    };
  }
  const host = renderHost(settings.hostTemplate, service);
  const parsed = parseHost(host);
  if (!parsed.valid) {
    return {
      action: 'invalid',
      diagnostic: { object, severity: 'Warning', reason: ServiceIngressReason.InvalidGeneratedHost, message: parsed.error },
    };
  }
  const spec = managedSpec(service, parsed.host, settings);
  if (!spec) {
    return {
      action: 'invalid',
      diagnostic: {
        object,
        severity: 'Warning',
        reason: ServiceIngressReason.ServiceHasNoPorts,
        message: `Service ${namespace}/${name} has no ports, so no Ingress can route to it`,
      },
    };
  }
  if (!existing) {
    return {
      action: 'create',
      ingress: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name, namespace, ownerReferences: [controllerReference(service)] },
        spec,
      },
    };
  }
  const current: ManagedSpec = { ingressClassName: existing.spec?.ingressClassName ?? '', rules: existing.spec?.rules ?? [] };
  if (stableJson(current) === stableJson(spec)) return { action: 'none', why: 'up-to-date' };
  // Replace on top of what was read: its resourceVersion makes the write fail if anyone changed it since.
  return { action: 'update', ingress: { ...existing, spec: { ...existing.spec, ...spec } } };
}

/** JSON with object keys sorted, so objects from the API and from code compare by content. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The Ingress writes the manager makes; errors carry the HTTP status as `code` (ApiException). */
export interface IngressApi {
  /** The Ingress as stored now, or undefined when there is none. */
  read(namespace: string, name: string): Promise<Ingress | undefined>;
  create(ingress: Ingress): Promise<Ingress>;
  /** Full update; fails with 409 unless metadata.resourceVersion is current. */
  replace(ingress: Ingress): Promise<Ingress>;
  /** Deletes only if the Ingress still has this uid and resourceVersion (else 409); a missing one is fine. */
  delete(namespace: string, name: string, preconditions: { uid: string; resourceVersion: string }): Promise<void>;
}

export function createIngressApi(kubeConfig: KubeConfig, options: { timeoutMs?: number } = {}): IngressApi {
  const api = kubeConfig.makeApiClient(NetworkingV1Api);
  const timeout = (): ReturnType<typeof requestTimeoutOptions> => requestTimeoutOptions(options.timeoutMs ?? 10_000);
  const plain = (ingress: V1Ingress): Ingress => {
    const n = normalizeObject({ ...ingress, kind: 'Ingress', apiVersion: 'networking.k8s.io/v1' });
    if (!n.ok || n.object.kind !== 'Ingress') throw new Error('the API server returned an unreadable Ingress');
    return n.object;
  };
  return {
    async read(namespace, name) {
      try {
        return plain(await api.readNamespacedIngress({ namespace, name }, timeout()));
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    },
    async create(ingress) {
      const namespace = ingress.metadata.namespace ?? 'default';
      return plain(await api.createNamespacedIngress({ namespace, body: toV1Ingress(ingress) }, timeout()));
    },
    async replace(ingress) {
      const namespace = ingress.metadata.namespace ?? 'default';
      const { status: _status, ...body } = ingress;
      return plain(await api.replaceNamespacedIngress({ namespace, name: ingress.metadata.name, body: toV1Ingress(body) }, timeout()));
    },
    async delete(namespace, name, preconditions) {
      try {
        await api.deleteNamespacedIngress({ namespace, name, body: { preconditions } }, timeout());
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw error;
      }
    },
  };
}

/**
 * Our plain objects already have the API's JSON shape; the client's serializer copies fields by those names and
 * passes timestamps that are strings through unchanged.
 */
function toV1Ingress(ingress: Omit<Ingress, 'status'>): V1Ingress {
  return ingress as unknown as V1Ingress;
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof ApiException) return error.code;
  return undefined;
}

export interface ServiceIngressLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface ServiceIngressManagerOptions extends ServiceIngressSettings {
  /** The manager writes only while this returns true (leader election). */
  isLeader: () => boolean;
  /** Retries after the first failure before giving up on a Service until it changes (default 5). */
  maxRetries?: number;
  /** First retry delay, doubled per retry up to maxBackoffMs (defaults 1 s and 60 s). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Every Service is looked at again this often (default 5 min); 0 turns the resync off. */
  resyncIntervalMs?: number;
  /** Operations on different Services that may run at once (default 4). */
  concurrency?: number;
  log?: ServiceIngressLog;
}

export type ReconcileOutcome =
  | 'created'
  | 'updated'
  | 'deleted'
  | 'unchanged'
  | 'not-requested'
  | 'service-absent'
  | 'conflict'
  | 'invalid'
  | 'not-leader';

export interface ServiceIngressManagerEvents {
  /** One Service was looked at (`key` is namespace/name) and this is what happened. */
  reconciled: [{ key: string; outcome: ReconcileOutcome }];
  /** An operation failed; `retryInMs` is absent when the manager gave up on the Service. */
  failed: [{ key: string; error: unknown; attempt: number; retryInMs?: number }];
  /** A Warning about a Service (name taken by a foreign Ingress, bad host, no ports, retries exhausted). */
  diagnostic: [Diagnostic];
}

const silentLog: ServiceIngressLog = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/**
 * At most one operation per key at a time: a key added while it is being processed runs once more afterwards;
 * a key added several times while waiting runs once.
 */
export class KeyedWorkQueue {
  readonly #waiting = new Set<string>();
  readonly #running = new Set<string>();
  readonly #again = new Set<string>();
  readonly #idle: (() => void)[] = [];
  #stopped = false;

  constructor(
    private readonly work: (key: string) => Promise<void>,
    private readonly concurrency: number,
  ) {}

  add(key: string): void {
    if (this.#stopped) return;
    if (this.#running.has(key)) this.#again.add(key);
    else this.#waiting.add(key);
    this.#pump();
  }

  /** Resolves when nothing is waiting or running. */
  idle(): Promise<void> {
    if (this.#waiting.size === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Drops waiting keys and waits for running ones. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#waiting.clear();
    this.#again.clear();
    await this.idle();
  }

  #pump(): void {
    for (const key of this.#waiting) {
      if (this.#running.size >= this.concurrency) break;
      this.#waiting.delete(key);
      this.#running.add(key);
      void this.work(key)
        .catch(() => undefined) // the work function reports its own errors
        .finally(() => {
          this.#running.delete(key);
          if (this.#again.delete(key) && !this.#stopped) this.#waiting.add(key);
          this.#pump();
          if (this.#waiting.size === 0 && this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
        });
    }
  }
}

export class ServiceIngressManager extends EventEmitter<ServiceIngressManagerEvents> {
  readonly #settings: ServiceIngressSettings;
  readonly #isLeader: () => boolean;
  readonly #maxRetries: number;
  readonly #baseBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #resyncIntervalMs: number;
  readonly #log: ServiceIngressLog;
  readonly #queue: KeyedWorkQueue;
  /** Failures in a row per key. */
  readonly #failures = new Map<string, number>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  /** Keys given up on: skipped until their Service changes. */
  readonly #gaveUp = new Set<string>();
  /** The last warning per key, so a resync does not repeat it. */
  readonly #reported = new Map<string, string>();
  #resyncTimer: NodeJS.Timeout | undefined;
  #started = false;
  readonly #onChange = (changes: StoreChange[]): void => this.#handleChanges(changes);

  constructor(
    private readonly store: ObjectStore,
    private readonly api: IngressApi,
    options: ServiceIngressManagerOptions,
  ) {
    super();
    validateHostTemplate(options.hostTemplate);
    this.#settings = { ingressClassName: options.ingressClassName, hostTemplate: options.hostTemplate };
    this.#isLeader = options.isLeader;
    this.#maxRetries = options.maxRetries ?? 5;
    this.#baseBackoffMs = options.baseBackoffMs ?? 1000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.#resyncIntervalMs = options.resyncIntervalMs ?? 5 * 60_000;
    this.#log = options.log ?? silentLog;
    this.#queue = new KeyedWorkQueue((key) => this.#process(key), options.concurrency ?? 4);
  }

  /** Subscribes to the store and looks at every Service once (call after the informers synced). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.store.on('change', this.#onChange);
    if (this.#resyncIntervalMs > 0) {
      this.#resyncTimer = setInterval(() => this.resync(), this.#resyncIntervalMs);
      this.#resyncTimer.unref();
    }
    this.resync();
  }

  /** Enqueues every Service (e.g. on becoming leader); Services given up on stay skipped until they change. */
  resync(): void {
    for (const service of this.store.list('Service')) this.#enqueue(keyOf(service.metadata.namespace, service.metadata.name));
  }

  /** Resolves when no operation is queued or running (retries waiting on their backoff do not count). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  async stop(): Promise<void> {
    this.store.off('change', this.#onChange);
    clearInterval(this.#resyncTimer);
    for (const timer of this.#retryTimers.values()) clearTimeout(timer);
    this.#retryTimers.clear();
    await this.#queue.stop();
    this.#started = false;
  }

  #handleChanges(changes: StoreChange[]): void {
    for (const change of changes) {
      const key = keyOf(change.namespace, change.name);
      if (change.kind === 'Service') {
        // A changed Service gets a fresh start: no backoff, no give-up.
        this.#gaveUp.delete(key);
        this.#failures.delete(key);
        this.#cancelRetry(key);
        if (change.type === 'deleted') this.#reported.delete(key);
        this.#enqueue(key);
      } else if (change.kind === 'Ingress' && this.store.get('Service', change.namespace, change.name)) {
        this.#enqueue(key);
      }
    }
  }

  #enqueue(key: string): void {
    if (this.#gaveUp.has(key) || this.#retryTimers.has(key)) return; // a pending retry will look anyway
    this.#queue.add(key);
  }

  #cancelRetry(key: string): void {
    const timer = this.#retryTimers.get(key);
    if (timer) clearTimeout(timer);
    this.#retryTimers.delete(key);
  }

  async #process(key: string): Promise<void> {
    try {
      const outcome = await this.#reconcile(key);
      this.#failures.delete(key);
      this.emit('reconciled', { key, outcome });
    } catch (error) {
      this.#failed(key, error);
    }
  }

  async #reconcile(key: string): Promise<ReconcileOutcome> {
    if (!this.#isLeader()) return 'not-leader';
    const [namespace, name] = splitKey(key);
    const service = this.store.get('Service', namespace, name) as Service | undefined;
    let existing = this.store.get('Ingress', namespace, name) as Ingress | undefined;
    // The store may lag behind writes (ours too): a 409, or a 404 on update, means "look again", once, at the API.
    for (let attempt = 0; ; attempt++) {
      const plan = planServiceIngress(service, existing, this.#settings);
      try {
        return await this.#execute(key, plan);
      } catch (error) {
        const status = statusOf(error);
        if (attempt >= 1 || !(status === 409 || (status === 404 && plan.action === 'update'))) throw error;
        this.#log.debug({ key, status }, 'the Ingress changed since it was read; reading it again');
        existing = await this.api.read(namespace, name);
      }
    }
  }

  async #execute(key: string, plan: ServiceIngressPlan): Promise<ReconcileOutcome> {
    if (plan.action !== 'conflict' && plan.action !== 'invalid') this.#reported.delete(key);
    // Leadership may have moved while this operation waited or read.
    if (plan.action === 'create' || plan.action === 'update' || plan.action === 'delete') {
      if (!this.#isLeader()) return 'not-leader';
    }
    switch (plan.action) {
      case 'create':
        await this.api.create(plan.ingress);
        this.#log.info({ key, host: plan.ingress.spec?.rules?.[0]?.host }, 'created Ingress for annotated Service');
        return 'created';
      case 'update':
        await this.api.replace(plan.ingress);
        this.#log.info({ key }, 'updated Ingress to follow its Service');
        return 'updated';
      case 'delete':
        await this.api.delete(plan.namespace, plan.name, { uid: plan.uid, resourceVersion: plan.resourceVersion });
        this.#log.info({ key }, 'deleted Ingress: its Service no longer asks for one');
        return 'deleted';
      case 'conflict':
      case 'invalid':
        this.#report(key, plan.diagnostic);
        return plan.action;
      case 'none':
        return plan.why === 'up-to-date' ? 'unchanged' : plan.why;
    }
  }

  #report(key: string, diagnostic: Diagnostic): void {
    const text = `${diagnostic.reason}|${diagnostic.message}`;
    if (this.#reported.get(key) === text) return;
    this.#reported.set(key, text);
    this.#log.warn({ key, reason: diagnostic.reason }, diagnostic.message);
    this.emit('diagnostic', diagnostic);
  }

  #failed(key: string, error: unknown): void {
    const attempt = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, attempt);
    const err = describeError(error);
    if (attempt > this.#maxRetries) {
      this.#failures.delete(key);
      this.#gaveUp.add(key);
      this.#log.warn({ key, attempts: attempt, err }, 'giving up on this Service until it changes');
      this.emit('failed', { key, error, attempt });
      const [namespace, name] = splitKey(key);
      this.#report(key, {
        object: { kind: 'Service', namespace, name },
        severity: 'Warning',
        reason: ServiceIngressReason.IngressManagementFailed,
        message: `could not manage Ingress ${namespace}/${name} after ${attempt} attempts (${err}); will try again when the Service changes`,
      });
      return;
    }
    const retryInMs = Math.min(this.#baseBackoffMs * 2 ** (attempt - 1), this.#maxBackoffMs);
    this.#log.warn({ key, attempt, err, retryInMs }, 'managing the Service Ingress failed; will retry');
    this.emit('failed', { key, error, attempt, retryInMs });
    const timer = setTimeout(() => {
      this.#retryTimers.delete(key);
      this.#queue.add(key);
    }, retryInMs);
    this.#retryTimers.set(key, timer);
  }
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

function describeError(error: unknown): string {
  if (error instanceof ApiException) {
    const body: unknown = error.body;
    const message = typeof body === 'string' ? body : (body as { message?: unknown } | undefined)?.message;
    return `HTTP ${error.code}${message ? `: ${String(message).slice(0, 300)}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
