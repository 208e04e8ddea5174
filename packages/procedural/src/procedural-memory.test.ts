import {
  createHashingEmbedder,
  createInMemoryStructuredStores,
  MemError,
  type MemErrorCode,
  type ProcedureInput,
} from '@mem/core';
import { ManualClock, procedureSearchText, type StructuredStores } from '@mem/core/adapter';
import { tokenEmbedder, wordTokens } from '@mem/testkit';
import { describe, expect, it } from 'vitest';
import { createProceduralMemory, type ProceduralMemory } from './index.js';

const S = 'acme';

async function expectCode(promise: Promise<unknown>, code: MemErrorCode): Promise<MemError> {
  try {
    await promise;
  } catch (error) {
    if (!MemError.is(error)) throw error;
    expect(error.code, error.message).toBe(code);
    return error;
  }
  throw new Error(`expected ${code}`);
}

const deploy = (name: string, extra: Partial<ProcedureInput> = {}): ProcedureInput => ({
  name,
  description: 'Deploy the api service to production',
  trigger: 'user asks to deploy or ship the api',
  steps: [
    { toolName: 'build', argsTemplate: { service: '{{service}}' }, expectedOutcome: 'image pushed' },
    { toolName: 'deploy', argsTemplate: { env: 'prod' } },
  ],
  tags: ['deploy'],
  ...extra,
});

function setup(withEmbedder = false): { memory: ProceduralMemory; clock: ManualClock; stores: StructuredStores } {
  const clock = new ManualClock('2026-03-01T09:00:00.000Z');
  const stores = createInMemoryStructuredStores();
  const store = stores.procedures;
  const memory = createProceduralMemory({
    store,
    embedder: withEmbedder ? createHashingEmbedder({ dimension: 128 }) : undefined,
    clock,
  });
  return { memory, clock, stores };
}

describe('ProceduralMemory', () => {
  it('stores a procedure with defaults and reads it back', async () => {
    const { memory } = setup();
    const p = await memory.store(S, { name: 'Restart worker', steps: [{ toolName: 'systemctl' }] });
    expect(p).toMatchObject({
      name: 'Restart worker',
      description: '',
      trigger: '',
      steps: [{ toolName: 'systemctl', argsTemplate: {}, expectedOutcome: '' }],
      successCount: 0,
      failureCount: 0,
      tags: [],
      metadata: {},
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    });
    expect(await memory.get(S, p.id)).toEqual(p);
    expect(await memory.count(S)).toBe(1);
    const imported = await memory.store(S, deploy('Imported', { id: 'proc-1', successCount: 7, failureCount: 1 }));
    expect(imported).toMatchObject({ id: 'proc-1', successCount: 7, failureCount: 1 });
  });

  it('suggests by relevance (any term may match), successRate 0 when unused', async () => {
    const { memory } = setup();
    const d = await memory.store(S, deploy('Deploy api'));
    const b = await memory.store(S, {
      name: 'Back up the database',
      description: 'Nightly postgres backup',
      steps: [{ toolName: 'pg_dump' }],
    });
    await memory.store(S, { name: 'Order lunch', steps: [{ toolName: 'food_app' }] });
    const s = await memory.suggest(S, 'please ship the api now');
    expect(s.map((x) => x.procedure.id)).toEqual([d.id]);
    expect(s[0]).toMatchObject({ successRate: 0, relevance: 1, keywordRank: 1, score: 0.5 });
    expect((await memory.suggest(S, 'postgres zebra')).map((x) => x.procedure.id)).toEqual([b.id]);
    expect(await memory.suggest(S, 'kubernetes')).toEqual([]);
  });

  it('ranks procedures that succeed above equally relevant ones that fail, and outcomes move them', async () => {
    for (const withEmbedder of [false, true]) {
      const { memory } = setup(withEmbedder);
      const a = await memory.store(S, deploy('Deploy api, variant A'));
      const b = await memory.store(S, deploy('Deploy api, variant B'));
      const before = await memory.suggest(S, 'deploy the api');
      expect(before).toHaveLength(2);
      expect(Math.abs(before[0]!.relevance - before[1]!.relevance)).toBeLessThan(0.05);
      for (let i = 0; i < 4; i++) {
        await memory.recordOutcome(S, a.id, false);
        await memory.recordOutcome(S, b.id, true);
      }
      const after = await memory.suggest(S, 'deploy the api');
      expect(after.map((x) => x.procedure.id)).toEqual([b.id, a.id]);
      expect(after[0]).toMatchObject({ successRate: 1 });
      expect(after[1]).toMatchObject({ successRate: 0 });
      expect(after[0]!.score).toBeGreaterThan(after[1]!.score);
      // The track record turns around: A now succeeds more often than B.
      for (let i = 0; i < 12; i++) await memory.recordOutcome(S, a.id, true);
      for (let i = 0; i < 8; i++) await memory.recordOutcome(S, b.id, false);
      const turned = await memory.suggest(S, 'deploy the api');
      expect(turned.map((x) => x.procedure.id)).toEqual([a.id, b.id]);
      expect(turned[0]!.successRate).toBeCloseTo(12 / 16);
      expect(turned[1]!.successRate).toBeCloseTo(4 / 12);
    }
  });

  it('a much more relevant procedure still beats a successful but marginal one', async () => {
    const { memory } = setup();
    const exact = await memory.store(S, {
      name: 'Rotate TLS certificates',
      trigger: 'certificates expire',
      steps: [{ toolName: 'certbot' }],
    });
    const marginal = await memory.store(S, {
      name: 'Weekly report',
      description: 'mentions certificates once',
      steps: [{ toolName: 'docs' }],
    });
    for (let i = 0; i < 10; i++) await memory.recordOutcome(S, marginal.id, true);
    await memory.recordOutcome(S, exact.id, true);
    await memory.recordOutcome(S, exact.id, false);
    const s = await memory.suggest(S, 'rotate TLS certificates');
    expect(s.map((x) => x.procedure.id)).toEqual([exact.id, marginal.id]);
    expect(s[0]).toMatchObject({ relevance: 1, successRate: 0.5 });
    expect(s[1]!.relevance).toBeLessThan(0.3);
  });

  it('records outcomes atomically, also from two instances over one store', async () => {
    const { memory, stores, clock } = setup();
    const p = await memory.store(S, deploy('Contested'));
    const other = createProceduralMemory({ store: createInMemoryStructuredStores(stores).procedures, clock });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? memory : other).recordOutcome(S, p.id, i % 4 !== 0)),
    );
    expect(await other.get(S, p.id)).toMatchObject({ successCount: 30, failureCount: 10 });
    clock.advance(60_000);
    expect((await memory.recordOutcome(S, p.id, true)).updatedAt).toBe('2026-03-01T09:01:00.000Z');
  });

  it('never crosses spaces', async () => {
    const { memory } = setup(true);
    const p = await memory.store(S, deploy('Deploy api'));
    expect(await memory.suggest('globex', 'deploy the api')).toEqual([]);
    await expectCode(memory.get('globex', p.id), 'NOT_FOUND');
    await expectCode(memory.recordOutcome('globex', p.id, true), 'NOT_FOUND');
    expect(await memory.count('globex')).toBe(0);
    expect((await memory.get(S, p.id)).successCount).toBe(0);
  });

  it('refuses bad input and secrets with stable codes, storing nothing', async () => {
    const { memory } = setup();
    await expectCode(memory.store(S, { name: 'x', steps: [] }), 'INVALID_INPUT');
    await expectCode(memory.store(S, { name: '', steps: [{ toolName: 'a' }] }), 'INVALID_INPUT');
    await expectCode(
      memory.store(S, { name: 'x', steps: [{ toolName: 'a', argsTemplate: 'not an object' as never }] }),
      'INVALID_INPUT',
    );
    await expectCode(memory.store(S, { name: 'x', steps: [{ toolName: 'a' }], successCount: -1 }), 'INVALID_INPUT');
    await expectCode(memory.store(S, { name: 'x', steps: [{ toolName: 'a' }], extra: 1 } as never), 'INVALID_INPUT');
    const e = await expectCode(
      memory.store(S, {
        name: 'Call the api',
        steps: [
          {
            toolName: 'http',
            argsTemplate: { headers: { Authorization: 'Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD' } },
          },
        ],
      }),
      'SECRET_DETECTED',
    );
    expect(e.message).not.toContain('abcdefghijklmnop');
    await expectCode(
      memory.store(S, { name: 'Use AKIAIOSFODNN7EXAMPLE', steps: [{ toolName: 'aws' }] }),
      'SECRET_DETECTED',
    );
    await expectCode(memory.suggest(S, '   '), 'INVALID_INPUT');
    await expectCode(memory.suggest(S, 'x', 0), 'INVALID_INPUT');
    await expectCode(memory.recordOutcome(S, 'missing', true), 'NOT_FOUND');
    await expectCode(memory.recordOutcome(S, 'x', 'yes' as never), 'INVALID_INPUT');
    await expectCode(memory.get(S, ''), 'INVALID_INPUT');
    expect(await memory.count(S)).toBe(0);
  });
});

describe('token usage of the embedder', () => {
  const tokens = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });

  it('storeReport and suggestReport carry what an embedder with embedWithUsage spent; store and suggest are unchanged', async () => {
    const memory = createProceduralMemory({
      store: createInMemoryStructuredStores().procedures,
      embedder: tokenEmbedder(),
      clock: new ManualClock('2026-03-01T09:00:00.000Z'),
    });
    const stored = await memory.storeReport(S, deploy('deploy api'));
    const spent = wordTokens([procedureSearchText(stored.procedure)]);
    expect(spent).toBeGreaterThan(5);
    expect(stored.usage).toEqual(tokens(spent));
    expect(await memory.count(S)).toBe(1);

    const suggested = await memory.suggestReport(S, 'ship the api to production');
    expect(suggested.usage).toEqual(tokens(5));
    expect(suggested.results.map((r) => r.procedure.id)).toEqual([stored.procedure.id]);
    expect(await memory.suggest(S, 'ship the api to production')).toEqual(suggested.results);

    const plain = await memory.store(S, deploy('deploy web'));
    expect(plain).not.toHaveProperty('usage');
  });

  it('the hashing embedder and no embedder report zero; bad input is refused before anything is spent', async () => {
    for (const embedder of [createHashingEmbedder({ dimension: 64 }), undefined]) {
      const memory = createProceduralMemory({ store: createInMemoryStructuredStores().procedures, embedder });
      expect((await memory.storeReport(S, deploy('deploy api'))).usage).toEqual(tokens(0));
      expect((await memory.suggestReport(S, 'deploy')).usage).toEqual(tokens(0));
    }
    const memory = createProceduralMemory({
      store: createInMemoryStructuredStores().procedures,
      embedder: tokenEmbedder(),
    });
    await expectCode(memory.storeReport(S, deploy('')), 'INVALID_INPUT');
    await expectCode(memory.suggestReport(S, 'x', 0), 'INVALID_INPUT');
    expect(await memory.count(S)).toBe(0);
  });
});
