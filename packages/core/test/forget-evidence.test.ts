/**
 * `forget { messages }` over a real stack (the in-memory stores, the hashing embedder, the offline extractor and a
 * small deterministic one): forget follows the evidence. What rests only on the forgotten messages goes with its
 * decision log; what other messages also support stays; bad input and workers change nothing.
 */
import { describe, expect, it } from 'vitest';
import type { StatementExtractor } from '../src/adapter.js';
import { ManualClock } from '../src/adapter.js';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createStack,
  forget,
  MemError,
  type Principal,
  type Stack,
} from '../src/index.js';
import { forgetFormedByEvidence } from '../src/services/forget-evidence.js';

const ann: Principal = { space: 'acme', agentId: 'travel', role: 'worker', userId: 'ann' };
const lead: Principal = { space: 'acme', agentId: 'boss', role: 'lead' };

function stack(extractor?: StatementExtractor): Stack {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder({ dimension: 64 }),
    clock: new ManualClock('2026-05-10T12:00:00.000Z'),
    ...(extractor ? { extractor } : {}),
  });
}

const said = (id: string, content: string, at: string) => ({ id, role: 'user' as const, content, at });

/** Lisbon rests on m1 and m3, Rex on m1 alone, the peanut allergy on m2 alone; plus one memory stored by hand. */
async function seeded(s: Stack): Promise<{ lisbon: string; rex: string; peanuts: string }> {
  const first = await s.knowledge.distill(ann, {
    messages: [
      said('m1', 'I live in Lisbon. I have a dog named Rex.', '2026-05-01T09:00:00.000Z'),
      said('m2', 'I am allergic to peanuts.', '2026-05-01T09:01:00.000Z'),
    ],
  });
  const byValue = new Map(first.decisions.map((d) => [d.value, d.memoryId]));
  const again = await s.knowledge.distill(ann, {
    messages: [said('m3', 'As I said, I live in Lisbon', '2026-05-02T09:00:00.000Z')],
  });
  expect(again.decisions).toMatchObject([{ decision: 'noop', memoryId: byValue.get('Lisbon') }]);
  await s.knowledge.store(ann, { content: 'Ann books trains when she can.', key: '/travel/trains' });
  return { lisbon: byValue.get('Lisbon')!, rex: byValue.get('Rex')!, peanuts: byValue.get('peanuts')! };
}

describe('forget { messages } (forget follows the evidence)', () => {
  it('removes what rests only on the messages, with its decision log, and keeps what others support', async () => {
    const s = stack();
    const { lisbon, rex, peanuts } = await seeded(s);
    expect((await s.knowledge.why(ann, { id: lisbon })).evidence).toEqual(['m1', 'm3']);

    const report = await forget(s, lead, { messages: ['m1'] });
    expect(report.subject).toEqual({ messages: ['m1'] });
    expect(report.removed.memories).toEqual({ documents: 1, chunks: 1, versions: 0, ratings: 0 });
    expect(report.removed.transcripts).toBe(0);
    expect(report.notes).toHaveLength(1);
    expect(report.notes[0]).toMatch(/^messages: 1 formed memory .* was kept because other messages also support it/);
    expect(report.notes[0]).toContain('transcript messages themselves are not deleted');

    // Rex is gone with its log lines; Lisbon (also said in m3), the allergy and the stored memory stay.
    await expect(s.knowledge.why(ann, { id: rex })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await s.knowledgeStore.formationLog('acme', [rex])).toEqual([]);
    expect((await s.knowledge.why(ann, { id: lisbon })).evidence).toEqual(['m1', 'm3']);
    expect((await s.knowledge.why(ann, { id: peanuts })).evidence).toEqual(['m2']);
    expect((await s.knowledge.stats(ann)).documents).toBe(3);

    // Forgetting the other message of Lisbon too takes it; ids nothing cites change nothing.
    const both = await forget(s, lead, { messages: ['m3', 'm1', 'm3', 'never-said'] });
    expect(both.subject).toEqual({ messages: ['m3', 'm1', 'never-said'] });
    expect(both.removed.memories.documents).toBe(1);
    expect(both.notes[0]).toMatch(/^messages: 0 formed memories .* were kept/);
    await expect(s.knowledge.why(ann, { id: lisbon })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await s.knowledge.why(ann, { id: peanuts })).evidence).toEqual(['m2']);
    expect((await s.knowledge.stats(ann)).documents).toBe(2);
    expect(await s.knowledge.get(ann, { key: '/travel/trains' })).toBeTruthy();
  });

  it('stays within the space, and removes a superseding memory without the one it superseded', async () => {
    const s = stack();
    const other: Principal = { ...ann, space: 'globex' };
    await s.knowledge.distill(other, { messages: [said('m1', 'I live in Lisbon.', '2026-05-01T09:00:00.000Z')] });
    const first = await s.knowledge.distill(ann, {
      messages: [said('t1', 'I prefer morning flights.', '2026-05-01T09:00:00.000Z')],
    });
    const second = await s.knowledge.distill(ann, {
      messages: [said('t2', 'Actually, afternoon flights suit me better now.', '2026-05-08T08:00:00.000Z')],
    });
    const old = first.decisions[0]!.memoryId;
    const next = second.decisions[0]!.memoryId;
    // The update's log line is the new memory's and cites t2 alone; the morning memory's own line cites t1: it
    // stays, closed as it was (forget reopens nothing).
    const report = await forget(s, lead, { messages: ['t2', 'm1'] });
    expect(report.removed.memories.documents).toBe(1);
    await expect(s.knowledge.why(ann, { id: next })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await s.knowledge.peek(ann, { id: old })).toMatchObject({
      content: 'User prefers morning flights.',
      invalidatedAt: '2026-05-10T12:00:00.000Z',
    });
    expect((await s.knowledge.search(other, { query: 'Lisbon' })).map((r) => r.content)).toEqual([
      'User lives in Lisbon.',
    ]);
  });

  it('refuses bad input and workers, and changes nothing then', async () => {
    const s = stack();
    const { rex } = await seeded(s);
    const before = await s.knowledge.stats(ann);
    const refused = async (principal: Principal, subject: unknown) =>
      forget(s, principal, subject as never).catch((e: unknown) => e);
    for (const subject of [
      { messages: [] },
      { agentId: 'travel', messages: ['m1'] },
      { userId: 'ann', messages: ['m1'] },
      { messages: [''] },
      { messages: ['   '] },
      { messages: ['x'.repeat(201)] },
      { messages: Array.from({ length: 1001 }, (_, i) => `m${i}`) },
      { messages: 'm1' },
      {},
    ]) {
      const e = await refused(lead, subject);
      expect([MemError.is(e), (e as MemError).code], JSON.stringify(subject).slice(0, 80)).toEqual([
        true,
        'INVALID_INPUT',
      ]);
    }
    expect(((await refused(lead, { agentId: 'travel', messages: ['m1'] })) as Error).message).toContain(
      'exactly one of agentId, userId or messages',
    );
    expect(await refused(ann, { messages: ['m1'] })).toMatchObject({ code: 'FORBIDDEN' });
    expect(await s.knowledge.stats(ann)).toEqual(before);
    expect((await s.knowledge.why(ann, { id: rex })).evidence).toEqual(['m1']);
  });

  it('pages through many formed memories and log lines (scan pages of 500, log batches of 200)', async () => {
    // One proposal per message: `cat N`, resting on that message and, for `cat N also K`, on message K too.
    const cats: StatementExtractor = {
      id: 'cats',
      model: null,
      promptVersion: 't1',
      extract: async ({ messages }) => ({
        failures: [],
        proposals: messages.map((m) => {
          const [, n, also] = /^cat (\d+)(?: also (\d+))?$/.exec(m.content)!;
          return {
            kind: 'pet',
            subject: 'user',
            attribute: `pet.cat.c${n}`,
            single: false,
            value: `c${n}`,
            statement: `User has a cat called c${n}.`,
            stance: 'for' as const,
            polarity: 'holds' as const,
            validFrom: null,
            validTo: null,
            evidence: also === undefined ? [m.id] : [m.id, `k${also}`],
          };
        }),
      }),
    };
    const s = stack(cats);
    const at = '2026-05-01T09:00:00.000Z';
    for (let start = 0; start < 1200; start += 600) {
      const messages = Array.from({ length: 600 }, (_, j) => {
        const i = start + j;
        return said(`k${i}`, i % 10 === 9 ? `cat ${i} also ${i - 1}` : `cat ${i}`, at);
      });
      const r = await s.knowledge.distill(ann, { messages });
      expect(r.decisions.filter((d) => d.decision === 'add')).toHaveLength(600);
    }
    // Forget every even message (600 ids).
    const even = new Set(Array.from({ length: 600 }, (_, i) => `k${2 * i}`));
    const { gone, kept } = await forgetFormedByEvidence(s, 'acme', even);
    // k ≡ 9 (mod 10) is odd and cites k-1 (even): kept, 120 of them. Every other even k rests on itself alone.
    expect({ documents: gone.documents, chunks: gone.chunks, kept }).toEqual({
      documents: 600,
      chunks: 600,
      kept: 120,
    });
    expect((await s.knowledge.stats(ann)).documents).toBe(600);
    expect(await s.knowledgeStore.formationLog('acme', ['nothing'])).toEqual([]);
    expect(await forgetFormedByEvidence(s, 'acme', new Set())).toEqual({
      gone: { documents: 0, chunks: 0, versions: 0, ratings: 0 },
      kept: 0,
    });
  });
});
