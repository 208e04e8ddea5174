/**
 * `make(key)` computed on the first call for a key object and kept while that object lives (a WeakMap): for what is
 * derived from an object that does not change — a compiled pattern of a rule, an index's columns, a table's tools.
 */
export function memoByKey<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const held = new WeakMap<K, V>();
  return (key) => {
    if (held.has(key)) return held.get(key) as V;
    const value = make(key);
    held.set(key, value);
    return value;
  };
}
