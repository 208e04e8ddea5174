// The store bundle of the adapter kit (storeBundle) and how createStack takes bundles: capabilities read and checked
// once at assembly, ports filled in from bundles, one idempotent close. Real in-memory adapters, no mocks.
import { describe, expect, it } from 'vitest';
import { type KnowledgeStore, STRUCTURED_PORTS, storeBundle, type TranscriptStore } from '../src/adapter.js';
import {
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
  MemError,
} from '../src/index.js';

/** A port whose close is counted (and fails when asked to). */
function counted<T extends { close(): Promise<void> }>(port: T, log: string[], name: string, fail = false): T {
  return Object.assign(Object.create(port) as T, {
    close: async () => {
      log.push(name);
      await port.close();
      if (fail) throw new Error(`${name} could not close`);
    },
  });
}

async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('storeBundle', () => {
  it('reads the capabilities of the ports it holds, frozen, and names the structured ports served', () => {
    const structured = createInMemoryStructuredStores();
    const bundle = storeBundle({ knowledge: createInMemoryKnowledgeStore(), structured });
    expect(bundle.capabilities.knowledge).toMatchObject({ keyword: true, vector: true });
    expect(bundle.capabilities.transcripts).toBeUndefined();
    expect(bundle.capabilities.structured).toEqual(STRUCTURED_PORTS);
    expect(bundle.capabilities.episodes).toEqual({ keyword: true, vector: true });
    expect(Object.isFrozen(bundle.capabilities)).toBe(true);
    expect(Object.isFrozen(bundle.capabilities.knowledge)).toBe(true);
  });

  it('refuses a port with malformed capabilities, naming the port and the flag', async () => {
    const knowledge = createInMemoryKnowledgeStore();
    const bad = Object.create(knowledge, { capabilities: { value: { keyword: true, vector: 'yes' } } });
    const error = await caught(() => storeBundle({ knowledge: bad as KnowledgeStore }));
    expect(MemError.is(error, 'INVALID_INPUT')).toBe(true);
    expect((error as MemError).message).toContain('knowledge store\'s capability "vector" is "yes"');
    const none = Object.create(createInMemoryTranscriptStore(), { capabilities: { value: undefined } });
    const error2 = await caught(() => storeBundle({ transcripts: none as TranscriptStore }));
    expect((error2 as MemError).message).toContain('The transcripts store declares no capabilities');
  });

  it('closes every port once, the knowledge store last, then releases; repeated and concurrent calls share it', async () => {
    const log: string[] = [];
    const bundle = storeBundle(
      {
        knowledge: counted(createInMemoryKnowledgeStore(), log, 'knowledge'),
        transcripts: counted(createInMemoryTranscriptStore(), log, 'transcripts'),
      },
      () => {
        log.push('release');
      },
    );
    await Promise.all([bundle.close(), bundle.close()]);
    await bundle.close();
    expect(log).toEqual(['transcripts', 'knowledge', 'release']);
  });

  it('keeps closing after a port fails, then throws the first failure (every later call too)', async () => {
    const log: string[] = [];
    const bundle = storeBundle(
      {
        knowledge: counted(createInMemoryKnowledgeStore(), log, 'knowledge'),
        transcripts: counted(createInMemoryTranscriptStore(), log, 'transcripts', true),
      },
      () => {
        log.push('release');
      },
    );
    await expect(bundle.close()).rejects.toThrow('transcripts could not close');
    await expect(bundle.close()).rejects.toThrow('transcripts could not close');
    expect(log).toEqual(['transcripts', 'knowledge', 'release']);
  });
});

describe('createStack({ stores })', () => {
  it('takes each port it was not given from the first bundle that serves it, and closes the bundles', async () => {
    const log: string[] = [];
    const own = createInMemoryTranscriptStore();
    const first = storeBundle({ transcripts: createInMemoryTranscriptStore() }, () => {
      log.push('first');
    });
    const second = storeBundle(
      { knowledge: createInMemoryKnowledgeStore(), structured: createInMemoryStructuredStores() },
      () => {
        log.push('second');
      },
    );
    const stack = createStack({ stores: [first, second], transcripts: own, requires: ['facts', 'transcripts'] });
    expect(stack.knowledgeStore).toBe(second.knowledge);
    expect(stack.conversations?.store).toBe(own);
    expect(stack.capabilities.structured).toEqual(STRUCTURED_PORTS);
    expect(stack.capabilities.embedder).toBe(false);
    await stack.port('facts').upsert('acme', {
      user: 'u1',
      topic: null,
      key: 'plan',
      value: 'pro',
      source: 'user',
      at: '2026-03-01T12:00:00.000Z',
    });
    expect(await second.structured!.facts!.get('acme', 'u1')).toHaveLength(1);
    await stack.close();
    expect(log).toEqual(['first', 'second']);
  });

  it('fails assembly, before any request, without a knowledge store or with malformed capabilities', async () => {
    const error = await caught(() =>
      createStack({ stores: storeBundle({ transcripts: createInMemoryTranscriptStore() }) }),
    );
    expect(MemError.is(error, 'INVALID_INPUT')).toBe(true);
    expect((error as MemError).message).toContain('createStack needs a knowledge store');
    const bad = Object.create(createInMemoryKnowledgeStore(), { capabilities: { value: { keyword: true } } });
    const error2 = await caught(() => createStack({ knowledge: bad as KnowledgeStore }));
    expect((error2 as MemError).message).toContain('capability "vector" is missing');
  });

  it('reads the capabilities once: a stack keeps what the ports declared when it was assembled', () => {
    const knowledge = createInMemoryKnowledgeStore();
    let reads = 0;
    const declared = knowledge.capabilities;
    const watched = Object.create(knowledge, {
      capabilities: {
        get: () => {
          reads++;
          return declared;
        },
      },
    }) as KnowledgeStore;
    const stack = createStack({ knowledge: watched });
    expect(reads).toBe(1);
    expect(stack.capabilities.knowledge).toEqual({ ...declared });
  });
});
