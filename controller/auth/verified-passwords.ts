// Successful password verifications, remembered so that a user whose hash is slow on purpose (bcrypt, SHA-crypt,
// apr1) pays the cost once, not on every request. Keyed by a SHA-256 of (hash, password): the key only ever
// matches the same password against the same hash, so a changed Secret (new hash) or a wrong password misses.
// Bounded: the least recently used entry goes first. Failures are remembered for a few seconds only (a client
// repeating a wrong password, e.g. a script with a stale one, costs one verification per `failureTtlMs`, not one
// per request), never as a success. Checks of the same key that arrive while one is being verified wait for that
// verification instead of starting their own (a burst of requests of a new user would otherwise pay bcrypt once per
// request).
import { createHash } from 'node:crypto';

export class VerifiedPasswords {
  readonly #entries = new Set<string>();
  readonly #inFlight = new Map<string, Promise<boolean | 'busy'>>();
  /** Recent failures: key -> when it is forgotten (insertion order is expiry order: one TTL for all). */
  readonly #failures = new Map<string, number>();

  constructor(
    private readonly capacity = 10_000,
    private readonly failureTtlMs = 5_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Each part length-prefixed (UTF-8 bytes): joined with a separator, a hash holding the separator could make
   * (hash, password) pairs of two Secrets hash alike.
   */
  static keyOf(hash: string, password: string): string {
    const digest = createHash('sha256');
    for (const part of [hash, password]) {
      const bytes = Buffer.from(part, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      digest.update(length).update(bytes);
    }
    return digest.digest('base64');
  }

  /** Whether this password failed against this hash in the last failureTtlMs. */
  failedRecently(key: string): boolean {
    const until = this.#failures.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.#failures.delete(key);
    return false;
  }

  addFailure(key: string): void {
    const now = this.now();
    // Forget what expired (the oldest first), and past capacity the oldest anyway.
    for (const [oldest, until] of this.#failures) {
      if (until > now && this.#failures.size < this.capacity) break;
      this.#failures.delete(oldest);
    }
    this.#failures.delete(key);
    this.#failures.set(key, now + this.failureTtlMs);
  }

  /** Whether this password was verified against this hash before (and marks it recently used). */
  has(key: string): boolean {
    if (!this.#entries.has(key)) return false;
    this.#entries.delete(key);
    this.#entries.add(key);
    return true;
  }

  add(key: string): void {
    this.#entries.delete(key);
    this.#entries.add(key);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.values().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** The result of `verify` for this key, sharing a verification already under way for it. */
  verifyOnce(key: string, verify: () => Promise<boolean | 'busy'>): Promise<boolean | 'busy'> {
    let pending = this.#inFlight.get(key);
    if (pending === undefined) {
      pending = verify().finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  get size(): number {
    return this.#entries.size;
  }
}
