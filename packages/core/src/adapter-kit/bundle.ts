/**
 * The store bundle every adapter package builds (`createXStores(options)`): its capabilities read once from the ports,
 * and one idempotent close for all of them (the adapter kit, exported from `@mem/core/adapter`).
 */
import { MemError } from '../errors.js';
import type { CandidateStoreCapabilities } from '../ports/episode-store.js';
import type { StoreBundle, StoreBundleCapabilities, StructuredPort } from '../ports/store-bundle.js';

/** The structured port names, in the order of `StructuredStores`. */
export const STRUCTURED_PORTS: readonly StructuredPort[] = [
  'messages',
  'facts',
  'goals',
  'summaries',
  'users',
  'sessionState',
  'phases',
  'toolEvents',
  'episodes',
  'procedures',
  'graph',
];

type Ports = Omit<StoreBundle, 'capabilities' | 'close'>;

/** Something a bundle may close: a port, or a structured bundle with its own `close`. */
interface MaybeClosable {
  close?: () => Promise<void> | void;
}

/**
 * One port's capabilities, checked: an object whose listed flags are booleans. Anything else is an adapter bug,
 * reported once when a bundle or a stack is assembled (INVALID_INPUT naming the port and the flag).
 */
export function checkCapabilities<T extends object>(port: string, value: unknown, flags: readonly string[]): T {
  if (value === null || typeof value !== 'object') {
    throw new MemError(
      'INVALID_INPUT',
      `The ${port} store declares no capabilities: an adapter must give its port a \`capabilities\` object (${flags.join(', ')}).`,
      { details: { port } },
    );
  }
  for (const flag of flags) {
    const v = (value as Record<string, unknown>)[flag];
    if (typeof v !== 'boolean') {
      throw new MemError(
        'INVALID_INPUT',
        `The ${port} store's capability "${flag}" is ${v === undefined ? 'missing' : JSON.stringify(v)}: it must be true or false.`,
        { details: { port, capability: flag } },
      );
    }
  }
  return Object.freeze({ ...(value as T) });
}

const KNOWLEDGE_FLAGS = ['keyword', 'vector', 'exactVector'] as const;
const DURABILITY_FLAGS = ['durable', 'crossProcess'] as const;
const CANDIDATE_FLAGS = ['keyword', 'vector'] as const;

/** The capabilities of a set of ports, each read and checked once. */
export function bundleCapabilities(ports: Ports): StoreBundleCapabilities {
  const structured = ports.structured ?? {};
  const served = STRUCTURED_PORTS.filter((name) => structured[name] !== undefined);
  const candidate = (name: 'episodes' | 'procedures'): CandidateStoreCapabilities | undefined => {
    const port = structured[name];
    return port ? checkCapabilities(name, port.capabilities, CANDIDATE_FLAGS) : undefined;
  };
  const episodes = candidate('episodes');
  const procedures = candidate('procedures');
  return Object.freeze({
    ...(ports.knowledge && {
      knowledge: checkCapabilities('knowledge', ports.knowledge.capabilities, KNOWLEDGE_FLAGS),
    }),
    ...(ports.transcripts && {
      transcripts: checkCapabilities('transcripts', ports.transcripts.capabilities, DURABILITY_FLAGS),
    }),
    ...(ports.notebooks && {
      notebooks: checkCapabilities('notebooks', ports.notebooks.capabilities, DURABILITY_FLAGS),
    }),
    structured: Object.freeze(served),
    ...(episodes && { episodes }),
    ...(procedures && { procedures }),
  }) as StoreBundleCapabilities;
}

/**
 * A bundle over `ports`: the ports themselves, their capabilities (`bundleCapabilities`) and a `close()` that closes
 * the transcripts, notebooks and structured ports, then the knowledge store, then calls `release` (what the bundle
 * opened for them, e.g. a connection pool), one after the other. Every step runs even when one fails; the first
 * failure is thrown. The first call does the work: later and concurrent calls return the same promise.
 */
export function storeBundle<P extends Ports>(
  ports: P,
  release?: () => Promise<void> | void,
): P & Pick<StoreBundle, 'capabilities' | 'close'> {
  const capabilities = bundleCapabilities(ports);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const steps: MaybeClosable[] = [];
      if (ports.transcripts) steps.push(ports.transcripts);
      if (ports.notebooks) steps.push(ports.notebooks);
      const structured = ports.structured as (P['structured'] & MaybeClosable) | undefined;
      if (structured?.close) steps.push(structured);
      else if (structured) for (const name of STRUCTURED_PORTS) steps.push((structured[name] ?? {}) as MaybeClosable);
      if (ports.knowledge) steps.push(ports.knowledge);
      let failure: { error: unknown } | undefined;
      for (const step of steps) {
        try {
          await step.close?.();
        } catch (error) {
          failure ??= { error };
        }
      }
      try {
        await release?.();
      } catch (error) {
        failure ??= { error };
      }
      if (failure) throw failure.error;
    })();
    return closing;
  };
  return Object.assign(ports, { capabilities, close });
}
