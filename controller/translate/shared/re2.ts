// RE2 as Envoy's safe_regex runs it, compiled to WebAssembly by the re2-wasm package: every translator checks its
// users' patterns with it, so a pattern Envoy would refuse is reported on its object instead of making Envoy reject a
// whole route configuration.
import { createRequire } from 'node:module';

/**
 * re2-wasm's compiled RE2 object, used directly: its RE2 class first rewrites JavaScript syntax into RE2 syntax
 * (`\u0041`, `(?<name>`, `/`), so it would accept text Envoy's RE2 refuses, and it costs a second compilation.
 * The object lives in a fixed 16 MiB WebAssembly heap and is never freed by the garbage collector: delete() it.
 */
export interface WrappedRe2 {
  ok(): boolean;
  error(): string;
  match(input: string, start: number, withGroups: boolean): { index: number; groups: (string | undefined)[] };
  delete(): void;
}
const { WrappedRE2 } = createRequire(import.meta.url)('re2-wasm/build/wasm/re2.js') as {
  WrappedRE2: new (pattern: string, ignoreCase: boolean, multiline: boolean, dotAll: boolean) => WrappedRe2;
};

export function withRe2<T>(pattern: string, use: (re: WrappedRe2) => T): T {
  const re = new WrappedRE2(pattern, false, false, false);
  try {
    return use(re);
  } finally {
    re.delete();
  }
}

/** A Map that forgets its least recently used entries beyond `limit`. */
export class RecentCache<V> {
  readonly #entries = new Map<string, V>();
  constructor(private readonly limit: number) {}
  get(key: string, compute: (key: string) => V): V {
    const known = this.#entries.get(key);
    if (known !== undefined || this.#entries.has(key)) {
      this.#entries.delete(key);
      this.#entries.set(key, known as V);
      return known as V;
    }
    const value = compute(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.limit) this.#entries.delete(this.#entries.keys().next().value as string);
    return value;
  }
}

// Translation runs on every change and sees the same patterns again: each is compiled once (about a millisecond
// each in WebAssembly), as long as fewer than this many distinct ones are in use.
export const cacheSize = 50_000;

export type Compiled = { ok: true } | { ok: false; error: string };
const compiled = new RecentCache<Compiled>(cacheSize);

/** Whether RE2 compiles `pattern` as it stands (what Envoy's safe_regex does), or RE2's complaint. */
export function compileRe2(pattern: string): Compiled {
  return compiled.get(pattern, () => withRe2(pattern, (re) => (re.ok() ? { ok: true } : { ok: false, error: re.error() })));
}
