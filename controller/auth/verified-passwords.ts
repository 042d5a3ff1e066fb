// Successful password verifications, remembered so that a user whose hash is slow on purpose (bcrypt, SHA-crypt,
// apr1) pays the cost once, not on every request. Keyed by a SHA-256 of (hash, password): the key only ever
// matches the same password against the same hash, so a changed Secret (new hash) or a wrong password misses.
// Bounded: the least recently used entry goes first. Failures are never remembered. Checks of the same key that
// arrive while one is being verified wait for that verification instead of starting their own (a burst of requests
// of a new user would otherwise pay bcrypt once per request).
import { createHash } from 'node:crypto';

export class VerifiedPasswords {
  readonly #entries = new Set<string>();
  readonly #inFlight = new Map<string, Promise<boolean>>();

  constructor(private readonly capacity = 10_000) {}

  static keyOf(hash: string, password: string): string {
    return createHash('sha256').update(hash).update('\0').update(password).digest('base64');
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
  verifyOnce(key: string, verify: () => Promise<boolean>): Promise<boolean> {
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
