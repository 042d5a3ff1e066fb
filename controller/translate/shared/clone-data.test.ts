import test from 'ava';
import fc from 'fast-check';
import { cloneData } from './clone-data.js';

test('a copy equals the original and shares no object or array with it', (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const copy = cloneData(value);
      t.deepEqual(copy, value);
      const shared = (a: unknown, b: unknown): boolean =>
        typeof a === 'object' && a !== null && (a === b || Object.keys(a).some((k) => shared((a as never)[k], (b as never)[k])));
      t.false(shared(copy, value));
    }),
  );
});

test('an own "__proto__" member is copied as a member, not made the prototype (found by the property above)', (t) => {
  const value = JSON.parse('{"__proto__": {"a": 1}, "b": 2}') as Record<string, unknown>;
  const copy = cloneData(value);
  t.is(Object.getPrototypeOf(copy), Object.prototype);
  t.deepEqual(Object.keys(copy), ['__proto__', 'b']);
  t.deepEqual(copy, value);
});

test('instances of classes are kept as they are, undefined members too', (t) => {
  class Opaque {
    constructor(readonly secret: string) {}
  }
  const key = new Opaque('k');
  const copy = cloneData({ key, list: [key], gone: undefined });
  t.is(copy.key, key);
  t.is(copy.list[0], key);
  t.true('gone' in copy);
});
