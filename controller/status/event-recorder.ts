// Turns translation diagnostics into core/v1 Events on the Ingresses they concern (and on the ingress-nginx
// ConfigMap, --nginx-configmap), so `kubectl describe ingress` tells the user what is wrong. A diagnostic that persists across builds is reported once; once it is gone and
// comes back, again. Events are created one at a time by the leader only; failures are retried a few times and
// otherwise dropped (Events are best effort), to be reported again by a later build.
import { CoreV1Api, type CoreV1Event, type KubeConfig } from '@kubernetes/client-node';
import type { ObjectStore } from '../store.js';
import type { Diagnostic } from '../translate/shared/diagnostics.js';
import type { StatusLog } from './status-writer.js';

export const eventSourceComponent = 'envoy-ingress';
export const eventReportingComponent = 'envoy-ingress.io/ingress-controller';

export interface EventRecorderOptions {
  kubeConfig: KubeConfig;
  store: ObjectStore;
  isLeader: () => boolean;
  /** This controller instance (e.g. the pod name): the Events' reportingInstance. */
  identity: string;
  log: StatusLog;
  /** Diagnostics remembered for de-duplication; beyond this, further ones are not reported (default 5000). */
  maxRemembered?: number;
  /** Events waiting to be created; beyond this, new ones are dropped for now (default 500). */
  maxQueued?: number;
  /** Attempts per Event (default 3) and the delay before the first retry, doubling (default 500 ms). */
  maxAttempts?: number;
  retryDelayMs?: number;
  now?: () => Date;
}

export interface EventRecorderStats {
  created: number;
  /** Events given up on after their last attempt. */
  failed: number;
  /** Events not queued because the queue was full or too many diagnostics were active. */
  dropped: number;
}

interface PendingEvent {
  key: string;
  namespace: string;
  name: string;
  body: Omit<CoreV1Event, 'metadata'>;
}

/** Event messages beyond this are cut (events.k8s.io limits a note to 1 kB). */
const maxMessageLength = 1024;

export class EventRecorder {
  readonly stats: EventRecorderStats = { created: 0, failed: 0, dropped: 0 };
  readonly #api: CoreV1Api;
  /** Diagnostics of the last build that are reported (or being reported). */
  #active = new Set<string>();
  /** Non-Ingress diagnostics of the last build, so each is logged once while it persists. */
  #logged = new Set<string>();
  readonly #queue: PendingEvent[] = [];
  #running = false;
  #stopped = false;
  #sequence = 0;
  #idle: (() => void)[] = [];

  constructor(private readonly options: EventRecorderOptions) {
    this.#api = options.kubeConfig.makeApiClient(CoreV1Api);
  }

  /** The diagnostics of the latest build: new ones become Events. */
  record(diagnostics: readonly Diagnostic[]): void {
    if (this.#stopped) return;
    if (!this.options.isLeader()) {
      // Forget what was reported: a new leader term reports the problems that exist then.
      this.#active.clear();
      this.#queue.length = 0;
      return;
    }
    const maxRemembered = this.options.maxRemembered ?? 5000;
    const active = new Set<string>();
    const logged = new Set<string>();
    let overflow = 0;
    for (const d of diagnostics) {
      const { kind, namespace, name } = d.object;
      // Events go on Ingresses and on the ingress-nginx ConfigMap (both in the store); other objects' problems are logged.
      const obj = kind === 'Ingress' || kind === 'ConfigMap' ? this.options.store.get(kind, namespace, name) : undefined;
      if (!obj) {
        if (kind === 'Ingress') continue; // deleted since the build: nothing to attach the Event to
        const key = `${kind}/${namespace}/${name}|${d.reason}|${d.message}`;
        if (logged.size < maxRemembered) logged.add(key);
        if (!this.#logged.has(key)) this.options.log.info({ object: `${kind}/${namespace}/${name}`, reason: d.reason }, `no Event for a ${kind}: ${d.message}`);
        continue;
      }
      const key = `${obj.metadata.uid ?? `${namespace}/${name}`}|${d.reason}|${d.message}`;
      if (active.has(key)) continue;
      if (active.size >= maxRemembered) {
        overflow += 1;
        continue;
      }
      active.add(key);
      if (this.#active.has(key)) continue;
      if (this.#queue.length >= (this.options.maxQueued ?? 500)) {
        active.delete(key); // not reported: a later build tries again
        overflow += 1;
        continue;
      }
      this.#queue.push({
        key,
        namespace,
        name,
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          involvedObject: {
            apiVersion: obj.apiVersion ?? (kind === 'Ingress' ? 'networking.k8s.io/v1' : 'v1'),
            kind,
            namespace,
            name,
            ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}),
            ...(obj.metadata.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
          },
          reason: d.reason,
          message: d.message.length > maxMessageLength ? `${d.message.slice(0, maxMessageLength - 3)}...` : d.message,
          type: d.severity,
          source: { component: eventSourceComponent },
          reportingComponent: eventReportingComponent,
          reportingInstance: this.options.identity.slice(0, 128),
          count: 1,
        },
      });
    }
    if (overflow > 0) {
      this.stats.dropped += overflow;
      this.options.log.warn({ notReported: overflow }, 'too many Ingress problems at once; some are not reported as Events now');
    }
    this.#active = active;
    this.#logged = logged;
    this.#run();
  }

  /** Resolves when no Event is queued or being created. */
  idle(): Promise<void> {
    if (!this.#running && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  stop(): void {
    this.#stopped = true;
    this.#queue.length = 0;
  }

  #run(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#loop().finally(() => {
      this.#running = false;
      // Events queued after the loop's last look (it ends a microtask after emptying the queue) start it again.
      if (this.#queue.length > 0 && !this.#stopped) this.#run();
      else for (const resolve of this.#idle.splice(0)) resolve();
    });
  }

  async #loop(): Promise<void> {
    for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
      if (this.#stopped || !this.options.isLeader()) {
        this.#queue.length = 0;
        return;
      }
      await this.#create(next);
    }
  }

  async #create(event: PendingEvent): Promise<void> {
    const attempts = this.options.maxAttempts ?? 3;
    let delay = this.options.retryDelayMs ?? 500;
    for (let attempt = 1; ; attempt += 1) {
      const now = (this.options.now ?? (() => new Date()))();
      const body: CoreV1Event = {
        ...event.body,
        metadata: { name: this.#eventName(event.name, now), namespace: event.namespace },
        firstTimestamp: now,
        lastTimestamp: now,
      };
      try {
        await this.#api.createNamespacedEvent({ namespace: event.namespace, body });
        this.stats.created += 1;
        this.options.log.debug({ ingress: `${event.namespace}/${event.name}`, reason: event.body.reason }, 'event recorded');
        return;
      } catch (err: unknown) {
        if (attempt >= attempts || this.#stopped || !this.options.isLeader()) {
          this.stats.failed += 1;
          this.#active.delete(event.key); // let a later build report it again
          this.options.log.warn(
            { ingress: `${event.namespace}/${event.name}`, reason: event.body.reason, err: err instanceof Error ? err.message.split('\n')[0] : String(err) },
            'could not record Event',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        delay *= 2;
      }
    }
  }

  /** Like client-go: the object's name, a dot, and a unique hex suffix (time plus a sequence number). */
  #eventName(objectName: string, now: Date): string {
    this.#sequence = (this.#sequence + 1) % 0x10000;
    const suffix = `${now.getTime().toString(16)}${this.#sequence.toString(16).padStart(4, '0')}`;
    return `${objectName.slice(0, 253 - suffix.length - 1)}.${suffix}`;
  }
}
