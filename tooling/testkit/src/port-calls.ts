/**
 * A port behind a Proxy that records the name of every method called through it, in order: how the suites count the
 * port calls of one operation. Self-contained (no imports): core's tests use it by path, as they use locomo.ts.
 */
export function recordPortCalls<T extends object>(port: T): { port: T; calls: () => string[] } {
  let log: string[] = [];
  const proxy = new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        log.push(prop);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  /** The calls since the last time this was asked. */
  const calls = () => {
    const out = log;
    log = [];
    return out;
  };
  return { port: proxy, calls };
}
