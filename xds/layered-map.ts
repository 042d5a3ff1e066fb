// A read-only map made of a shared, name-sorted base and a small overlay of changes, so patching one resource of
// 10,000 does not copy the other 9,999 (the copy and its garbage were most of an endpoint patch's cost).
import type { XdsResource } from './resource.js';

/** Overlays larger than this are folded into a new base (amortised: one full copy per this many changes). */
const maxOverlay = 128;

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class LayeredMap implements ReadonlyMap<string, XdsResource> {
  /** Name order, like every map the snapshot cache publishes; never mutated. */
  readonly #base: ReadonlyMap<string, XdsResource>;
  /** name -> resource, or undefined for a name removed from the base; never mutated once built. */
  readonly #overlay: ReadonlyMap<string, XdsResource | undefined>;
  #overlayNames: string[] | undefined;
  readonly size: number;

  private constructor(base: ReadonlyMap<string, XdsResource>, overlay: ReadonlyMap<string, XdsResource | undefined>, size: number) {
    this.#base = base;
    this.#overlay = overlay;
    this.size = size;
  }

  /**
   * `previous` (a name-sorted map, or a LayeredMap) with `changes` applied (undefined removes a name). Shares the
   * base; folds everything into a fresh sorted Map when the overlay grows past a bound.
   */
  static patched(previous: ReadonlyMap<string, XdsResource>, changes: ReadonlyMap<string, XdsResource | undefined>): ReadonlyMap<string, XdsResource> {
    const base = previous instanceof LayeredMap ? previous.#base : previous;
    const overlay = new Map(previous instanceof LayeredMap ? previous.#overlay : undefined);
    let size = previous.size;
    for (const [name, r] of changes) {
      const had = previous.has(name);
      if (r === undefined && !had) continue;
      size += (r !== undefined ? 1 : 0) - (had ? 1 : 0);
      // A name not in the base needs no tombstone once removed again.
      if (r === undefined && !base.has(name)) overlay.delete(name);
      else overlay.set(name, r);
    }
    const layered = new LayeredMap(base, overlay, size);
    return overlay.size > maxOverlay ? new Map(layered) : layered;
  }

  get(name: string): XdsResource | undefined {
    return this.#overlay.has(name) ? this.#overlay.get(name) : this.#base.get(name);
  }

  has(name: string): boolean {
    return this.#overlay.has(name) ? this.#overlay.get(name) !== undefined : this.#base.has(name);
  }

  /** Base and overlay merged in name order. */
  *#entries(): Generator<[string, XdsResource]> {
    const names = (this.#overlayNames ??= [...this.#overlay.keys()].sort(byName));
    let i = 0;
    for (const [name, r] of this.#base) {
      while (i < names.length && names[i]! < name) {
        const added = this.#overlay.get(names[i]!);
        if (added !== undefined) yield [names[i]!, added];
        i += 1;
      }
      if (i < names.length && names[i] === name) {
        const changed = this.#overlay.get(name);
        if (changed !== undefined) yield [name, changed];
        i += 1;
        continue;
      }
      yield [name, r];
    }
    for (; i < names.length; i++) {
      const added = this.#overlay.get(names[i]!);
      if (added !== undefined) yield [names[i]!, added];
    }
  }

  entries(): MapIterator<[string, XdsResource]> {
    return this.#entries() as unknown as MapIterator<[string, XdsResource]>;
  }

  *#keys(): Generator<string> {
    for (const [name] of this.#entries()) yield name;
  }

  keys(): MapIterator<string> {
    return this.#keys() as unknown as MapIterator<string>;
  }

  *#values(): Generator<XdsResource> {
    for (const [, r] of this.#entries()) yield r;
  }

  values(): MapIterator<XdsResource> {
    return this.#values() as unknown as MapIterator<XdsResource>;
  }

  [Symbol.iterator](): MapIterator<[string, XdsResource]> {
    return this.entries();
  }

  forEach(fn: (value: XdsResource, key: string, map: ReadonlyMap<string, XdsResource>) => void, thisArg?: unknown): void {
    for (const [name, r] of this.#entries()) fn.call(thisArg, r, name, this);
  }
}
