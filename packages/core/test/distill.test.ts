/**
 * distill over a real stack (the in-memory stores, the hashing embedder, the offline extractor): decisions, the
 * world-time questions, the decision log, idempotence, the user dimension, safety, and the refusals of bad input.
 */
import { describe, expect, it } from 'vitest';
import type { StatementExtractor } from '../src/adapter.js';
import { ManualClock } from '../src/adapter.js';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createStack,
  forget,
  type Principal,
  type Stack,
} from '../src/index.js';

const alice: Principal = { space: 'acme', agentId: 'travel', role: 'worker' };

function stack(extractor?: StatementExtractor): { stack: Stack; clock: ManualClock } {
  const clock = new ManualClock('2026-05-10T12:00:00.000Z');
  const s = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder({ dimension: 64 }),
    clock,
    ...(extractor ? { extractor } : {}),
  });
  return { stack: s, clock };
}

const said = (id: string, content: string, at: string, role: 'user' | 'assistant' | 'tool' = 'user') => ({
  id,
  role,
  content,
  at,
});

describe('distill', () => {
  it('supersedes a changed preference: current, as of before the change, the history, and why', async () => {
    const { stack: s } = stack();
    const first = await s.knowledge.distill(alice, {
      messages: [said('t1', 'I prefer morning flights.', '2026-05-01T09:00:00.000Z')],
    });
    expect(first.decisions).toMatchObject([{ decision: 'add', attribute: 'preference.flight', evidence: ['t1'] }]);
    const second = await s.knowledge.distill(alice, {
      messages: [said('t2', 'Actually, afternoon flights suit me better now.', '2026-05-08T08:00:00.000Z')],
    });
    const old = first.decisions[0]!.memoryId;
    expect(second.decisions).toMatchObject([{ decision: 'update', previousId: old, evidence: ['t2'] }]);
    const now = await s.knowledge.search(alice, { query: 'flights' });
    expect(now.map((r) => r.content)).toEqual(['User prefers afternoon flights.']);
    expect(now[0]?.supersedes).toBe(old);
    const before = await s.knowledge.search(alice, { query: 'flights', asOf: '2026-05-05' });
    expect(before.map((r) => r.content)).toEqual(['User prefers morning flights.']);
    const all = await s.knowledge.search(alice, { query: 'flights', history: true });
    expect(all.map((r) => r.content).sort()).toEqual([
      'User prefers afternoon flights.',
      'User prefers morning flights.',
    ]);
    const closed = await s.knowledge.peek(alice, { id: old });
    expect(closed).toMatchObject({
      validTo: '2026-05-08T08:00:00.000Z',
      invalidatedAt: '2026-05-10T12:00:00.000Z',
      supersededBy: second.decisions[0]!.memoryId,
      source: 'distilled',
    });
    const why = await s.knowledge.why(alice, { id: second.decisions[0]!.memoryId });
    expect(why.evidence).toEqual(['t1', 't2']);
    expect(why.decisions.map((d) => d.decision)).toEqual(['add', 'update']);
    expect(why.chain.map((c) => [c.content, c.current])).toEqual([
      ['User prefers morning flights.', false],
      ['User prefers afternoon flights.', true],
    ]);
    expect((await s.knowledge.history(alice, { id: old })).chain).toHaveLength(2);
    // The recall block holds the current preference only.
    const block = await s.knowledge.recall(alice, 'book my flights for the trip', { threshold: 0 });
    expect(block.block).toContain('afternoon');
    expect(block.block).not.toContain('morning');
  });

  it('grows evidence for a fact said again, and changes nothing when the same messages are distilled twice', async () => {
    const { stack: s } = stack();
    const one = await s.knowledge.distill(alice, {
      messages: [said('a', 'I live in Lisbon.', '2026-05-01T09:00:00.000Z')],
    });
    const id = one.decisions[0]!.memoryId;
    const two = await s.knowledge.distill(alice, {
      messages: [said('b', 'As I said, I live in Lisbon', '2026-05-02T09:00:00.000Z')],
    });
    expect(two.decisions).toMatchObject([{ decision: 'noop', memoryId: id }]);
    expect((await s.knowledge.why(alice, { id })).evidence).toEqual(['a', 'b']);
    await s.knowledge.distill(alice, {
      messages: [said('b', 'As I said, I live in Lisbon', '2026-05-02T09:00:00.000Z')],
    });
    const why = await s.knowledge.why(alice, { id });
    expect(why.decisions.map((d) => d.decision)).toEqual(['add', 'noop']);
    expect((await s.knowledge.stats(alice)).documents).toBe(1);
  });

  it('closes a retracted fact without replacing or deleting it', async () => {
    const { stack: s } = stack();
    const one = await s.knowledge.distill(alice, {
      messages: [
        said('a', 'I live in Berlin.', '2026-04-01T09:00:00.000Z'),
        said('b', "I don't live in Berlin anymore.", '2026-05-01T09:00:00.000Z'),
      ],
    });
    expect(one.decisions.map((d) => d.decision)).toEqual(['add', 'invalidate']);
    const id = one.decisions[0]!.memoryId;
    expect(await s.knowledge.search(alice, { query: 'Berlin' })).toEqual([]);
    expect(await s.knowledge.peek(alice, { id })).toMatchObject({
      validTo: '2026-05-01T09:00:00.000Z',
      supersededBy: null,
    });
    expect((await s.knowledge.why(alice, { id })).decisions.map((d) => d.decision)).toEqual(['add', 'invalidate']);
  });

  it('never reads tool results, untrusted messages or the assistant unless allowed', async () => {
    const { stack: s } = stack();
    const r = await s.knowledge.distill(alice, {
      messages: [
        said('t', 'I prefer window seats.', '2026-05-01T09:00:00.000Z', 'tool'),
        { ...said('u', 'I live in Paris.', '2026-05-01T09:00:00.000Z'), untrusted: true },
        said('s', 'I am a travel assistant and I love helping.', '2026-05-01T09:00:00.000Z', 'assistant'),
      ],
    });
    expect(r.decisions).toEqual([]);
    expect((await s.knowledge.stats(alice)).documents).toBe(0);
    const allowed = await s.knowledge.distill(alice, {
      messages: [{ ...said('u', 'I live in Paris.', '2026-05-01T09:00:00.000Z'), untrusted: true }],
      allowUntrusted: true,
    });
    expect(allowed.decisions.map((d) => d.decision)).toEqual(['add']);
  });

  it('reports a proposal that carries a secret instead of storing it', async () => {
    const { stack: s } = stack();
    const r = await s.knowledge.distill(alice, {
      messages: [
        said('k', 'Remember that my api key is ghp_4IMOYqx6OFvCeNUc1JTMu0gr7MX3bqb9HGOC.', '2026-05-01T09:00:00.000Z'),
      ],
    });
    expect(r.decisions).toEqual([]);
    expect(r.failures.map((f) => f.code)).toContain('secret');
    expect((await s.knowledge.stats(alice)).documents).toBe(0);
  });

  it('keeps what it forms about a user for that user, across agents, and from nobody else', async () => {
    const { stack: s } = stack();
    const forAnn: Principal = { ...alice, userId: 'ann' };
    await s.knowledge.distill(forAnn, {
      messages: [said('a', 'I am allergic to peanuts.', '2026-05-01T09:00:00.000Z')],
    });
    const otherAgent: Principal = { space: 'acme', agentId: 'chef', role: 'worker', userId: 'ann' };
    expect((await s.knowledge.search(otherAgent, { query: 'peanuts allergic' })).map((r) => r.userId)).toEqual(['ann']);
    expect(await s.knowledge.search({ ...otherAgent, userId: 'ben' }, { query: 'peanuts allergic' })).toEqual([]);
    expect(
      await s.knowledge.search({ space: 'acme', agentId: 'chef', role: 'worker' }, { query: 'peanuts allergic' }),
    ).toEqual([]);
  });

  it('writes nothing in a dry run, and refuses bad input with what to fix', async () => {
    const { stack: s } = stack();
    const dry = await s.knowledge.distill(alice, {
      messages: [said('a', 'I live in Rome.', '2026-05-01T09:00:00.000Z')],
      dryRun: true,
    });
    expect(dry).toMatchObject({ dryRun: true, decisions: [{ decision: 'add' }] });
    expect((await s.knowledge.stats(alice)).documents).toBe(0);
    await expect(s.knowledge.distill(alice, { messages: [] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      s.knowledge.distill(alice, { messages: [{ role: 'user', content: 'x', at: 'yesterday' }] }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('ISO-8601') });
    await expect(s.knowledge.store(alice, { content: 'forged', source: 'distilled' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(s.knowledge.why(alice, { id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reports a proposal with a date that is none and keeps the others of the same distillation', async () => {
    const proposal = (value: string, validFrom: string | null) => ({
      kind: 'residence',
      subject: 'user',
      attribute: value === 'Oslo' ? 'residence' : 'pet.cat.tom',
      single: value === 'Oslo',
      value,
      statement: value === 'Oslo' ? 'User lives in Oslo.' : 'User has a cat named Tom.',
      stance: 'for' as const,
      polarity: 'holds' as const,
      validFrom,
      validTo: null,
      evidence: ['e1'],
    });
    const sloppy: StatementExtractor = {
      id: 'sloppy',
      model: null,
      promptVersion: 't1',
      extract: async () => ({ proposals: [proposal('Oslo', 'next spring'), proposal('Tom', null)], failures: [] }),
    };
    const { stack: s } = stack(sloppy);
    const r = await s.knowledge.distill(alice, { messages: [said('e1', 'whatever', '2026-05-01T09:00:00.000Z')] });
    expect(r.failures).toEqual([
      { code: 'bad-date', message: expect.stringContaining('"next spring", which is no date') },
    ]);
    expect(r.decisions.map((d) => [d.decision, d.value])).toEqual([['add', 'Tom']]);
  });

  it('forgets what was formed about a user, for every agent, and nothing of anyone else', async () => {
    const { stack: s } = stack();
    const ann: Principal = { space: 'acme', agentId: 'travel', role: 'worker', userId: 'ann' };
    const ben: Principal = { ...ann, agentId: 'chef', userId: 'ben' };
    await s.knowledge.distill(ann, { messages: [said('a1', 'I live in Oslo.', '2026-05-01T09:00:00.000Z')] });
    await s.knowledge.distill(ann, { messages: [said('a2', 'We moved to Bergen.', '2026-05-03T09:00:00.000Z')] });
    await s.knowledge.distill(
      { ...ann, agentId: 'chef' },
      {
        messages: [said('a3', "I'm allergic to peanuts.", '2026-05-02T09:00:00.000Z')],
      },
    );
    await s.knowledge.distill(ben, { messages: [said('b1', 'I live in Lyon.', '2026-05-01T09:00:00.000Z')] });
    const report = await forget(s, { space: 'acme', agentId: 'boss', role: 'lead' }, { userId: 'ann' });
    // Oslo (closed), Bergen (current) and the allergy another agent formed: three memories with one chunk each.
    expect(report.removed.memories).toMatchObject({ documents: 3, chunks: 3 });
    expect(await s.knowledge.search(ann, { query: 'Oslo Bergen peanuts', history: true })).toEqual([]);
    expect((await s.knowledge.search(ben, { query: 'Lyon' })).map((r) => r.userId)).toEqual(['ben']);
  });
});
