// The Service-annotation Ingress manager (--manage-service-ingress): a Service annotated `ingress/http: "true"`
// gets an Ingress of the same name, owned by it, routing `/` on a host made from a template to the Service's
// first port. Removing the annotation deletes that Ingress, but only if the Service owns it; an Ingress of the
// same name that the Service does not own is never touched. Deleting the Service leaves the Ingress to the
// garbage collector (through the ownerReference). Store changes and a periodic resync enqueue Service keys; the
// retrying work queue (work-queue/) runs at most one operation per Service at a time; failures retry with
// exponential backoff up to a limit, after which the Service is left alone until it changes. Only the leader acts. What to do is decided
// by the pure plan (plan.ts) and done through the API client (ingress-api.ts); this file schedules and retries.
import { EventEmitter } from 'node:events';
import type { ObjectStore, StoreChange } from '../store.js';
import type { Diagnostic } from '../translate/shared/diagnostics.js';
import type { Ingress, Service } from '../translate/shared/kube-objects.js';
import { describeError, statusOf, type IngressApi } from './ingress-api.js';
import { RetryingWorkQueue, type WorkFailure } from '../work-queue/retrying-work-queue.js';
import { planServiceIngress, ServiceIngressReason, validateHostTemplate, type ServiceIngressPlan, type ServiceIngressSettings } from './plan.js';

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

export class ServiceIngressManager extends EventEmitter<ServiceIngressManagerEvents> {
  readonly #settings: ServiceIngressSettings;
  readonly #isLeader: () => boolean;
  readonly #resyncIntervalMs: number;
  readonly #log: ServiceIngressLog;
  /** Keys given up on are skipped until their Service changes (`forget`). */
  readonly #queue: RetryingWorkQueue;
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
    this.#resyncIntervalMs = options.resyncIntervalMs ?? 5 * 60_000;
    this.#log = options.log ?? silentLog;
    this.#queue = new RetryingWorkQueue((key) => this.#process(key), (failure) => this.#failed(failure), {
      maxRetries: options.maxRetries ?? 5,
      baseBackoffMs: options.baseBackoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      concurrency: options.concurrency ?? 4,
    });
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
    for (const service of this.store.list('Service')) this.#queue.add(keyOf(service.metadata.namespace, service.metadata.name));
  }

  /** Resolves when no operation is queued or running (retries waiting on their backoff do not count). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  async stop(): Promise<void> {
    this.store.off('change', this.#onChange);
    clearInterval(this.#resyncTimer);
    await this.#queue.stop();
    this.#started = false;
  }

  #handleChanges(changes: StoreChange[]): void {
    for (const change of changes) {
      const key = keyOf(change.namespace, change.name);
      if (change.kind === 'Service') {
        // A changed Service gets a fresh start: no backoff, no give-up.
        this.#queue.forget(key);
        if (change.type === 'deleted') this.#reported.delete(key);
        this.#queue.add(key);
      } else if (change.kind === 'Ingress' && this.store.get('Service', change.namespace, change.name)) {
        this.#queue.add(key);
      }
    }
  }

  /** Throws when the operation failed: the queue retries it. */
  async #process(key: string): Promise<void> {
    const outcome = await this.#reconcile(key);
    this.emit('reconciled', { key, outcome });
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

  #failed({ key, error, attempt, retryInMs }: WorkFailure): void {
    const err = describeError(error);
    if (retryInMs === undefined) {
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
    this.#log.warn({ key, attempt, err, retryInMs }, 'managing the Service Ingress failed; will retry');
    this.emit('failed', { key, error, attempt, retryInMs });
  }
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
