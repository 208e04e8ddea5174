/**
 * Review mode of distill (docs/formation.md) over a real stack (in-memory stores, the offline extractor): proposals
 * wait in the queue instead of being applied; approve applies them as they stand then; reject drops them; the queue
 * is per agent and a proposal about a user is seen only for that user; bad requests change nothing; concurrent
 * writers lose nothing; forget takes a user's proposals; the runner queues in the background.
 */
import { describe, expect, it } from 'vitest';
import { approveReview, listReview, MAX_REVIEW_ITEMS, ManualClock, rejectReview } from '../src/adapter.js';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
  forget,
  MemError,
  type Principal,
  Runner,
  type Stack,
} from '../src/index.js';

const ben: Principal = { space: 'acme', agentId: 'travel', role: 'worker', userId: 'ben' };
const lead: Principal = { space: 'acme', agentId: 'boss', role: 'lead' };

function setup(review?: boolean) {
  const clock = new ManualClock('2026-05-10T12:00:00.000Z');
  const structured = createInMemoryStructuredStores();
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder(),
    transcripts: createInMemoryTranscriptStore(),
    structured,
    clock,
    ...(review ? { knowledgeOptions: { distillReview: true } } : {}),
  });
  return { stack, clock, structured };
}

const said = (id: string, content: string, at: string) => ({ id, role: 'user' as const, content, at });
const formed = async (stack: Stack, p: Principal, query: string, history = false) =>
  (await stack.knowledge.search(p, { query, history }))
    .filter((r) => r.source === 'distilled')
    .map((r) => r.content)
    .sort();

async function refused(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (e) {
    if (MemError.is(e)) return e.code;
    throw e;
  }
  throw new Error('expected a MemError');
}

describe('distill review mode', () => {
  it('queues instead of applying; approve applies; reject drops; nothing else changes', async () => {
    const { stack } = setup();
    const first = await stack.distill(ben, {
      review: true,
      messages: [said('m1', 'I prefer morning flights.', '2026-05-01T09:00:00.000Z')],
    });
    expect(first.dryRun).toBe(true);
    expect(first.queued).toHaveLength(1);
    expect(await formed(stack, ben, 'flights', true)).toEqual([]);
    const [item] = await listReview(stack, ben);
    expect(item).toMatchObject({
      id: first.queued![0],
      decision: 'add',
      target: null,
      text: 'User prefers morning flights.',
      userId: 'ben',
      agentId: 'travel',
      said: [{ id: 'm1', at: '2026-05-01T09:00:00.000Z' }],
      extractor: { id: 'offline' },
    });

    const approved = await approveReview(stack, ben, [item!.id]);
    expect(approved.ids).toEqual([item!.id]);
    expect(approved.reports[0]!.decisions).toMatchObject([{ decision: 'add', evidence: ['m1'] }]);
    expect(await formed(stack, ben, 'flights')).toEqual(['User prefers morning flights.']);
    expect(await listReview(stack, ben)).toEqual([]);
    const morning = approved.reports[0]!.decisions[0]!.memoryId;
    const why = await stack.knowledge.why(ben, { id: morning });
    expect(why.evidence).toEqual(['m1']);

    // A change of mind waits as an update of the morning; rejected, the morning stays current.
    const second = await stack.distill(ben, {
      review: true,
      messages: [said('m2', 'Actually, afternoon flights suit me better now.', '2026-05-08T08:00:00.000Z')],
    });
    const [change] = await listReview(stack, ben);
    expect(change).toMatchObject({ id: second.queued![0], decision: 'update', target: morning });
    expect(await rejectReview(stack, ben, [change!.id])).toEqual({ ids: [change!.id], reports: [] });
    expect(await formed(stack, ben, 'flights', true)).toEqual(['User prefers morning flights.']);
    expect(await listReview(stack, ben)).toEqual([]);
  });

  it('approve decides again against what is current then', async () => {
    const { stack } = setup();
    await stack.distill(ben, { messages: [said('m1', 'I live in Berlin.', '2026-05-01T09:00:00.000Z')] });
    const kept = await stack.distill(ben, {
      review: true,
      messages: [said('m2', 'I moved to Lisbon last week.', '2026-05-08T09:00:00.000Z')],
    });
    // Meanwhile, applied directly: Porto supersedes Berlin.
    const porto = await stack.distill(ben, {
      messages: [said('m3', 'I moved to Porto.', '2026-05-09T09:00:00.000Z')],
    });
    const portoId = porto.decisions[0]!.memoryId;
    const approved = await approveReview(stack, ben, kept.queued!);
    expect(approved.reports[0]!.decisions).toMatchObject([{ decision: 'update', previousId: portoId }]);
    expect(await formed(stack, ben, 'live moved residence')).toEqual([expect.stringContaining('Lisbon')]);
  });

  it('per agent and per user; bad requests are refused and change nothing', async () => {
    const { stack } = setup();
    const r = await stack.distill(ben, {
      review: true,
      messages: [said('m1', 'My dog is called Pixel.', '2026-05-01T09:00:00.000Z')],
    });
    const id = r.queued![0]!;
    // Another user of the agent, the agent with no user, another worker: none sees or decides it.
    expect(await listReview(stack, { ...ben, userId: 'ada' })).toEqual([]);
    expect(await listReview(stack, { ...ben, userId: undefined })).toEqual([]);
    expect(await refused(() => listReview(stack, { ...ben, agentId: 'desk' }, 'travel'))).toBe('FORBIDDEN');
    expect(await refused(() => approveReview(stack, { ...ben, userId: 'ada' }, [id]))).toBe('NOT_FOUND');
    expect(await refused(() => approveReview(stack, ben, [id, 'prop_missing']))).toBe('NOT_FOUND');
    expect(await refused(() => rejectReview(stack, ben, []))).toBe('INVALID_INPUT');
    expect(await refused(() => stack.distill(ben, { review: 'yes', messages: [said('x', 'hi', '2026-05-01')] }))).toBe(
      'INVALID_INPUT',
    );
    expect((await listReview(stack, ben)).map((x) => x.id)).toEqual([id]);
    expect(await formed(stack, ben, 'dog Pixel', true)).toEqual([]);
    // A lead of the space sees the agent's queue (for the user it acts for).
    expect((await listReview(stack, { ...lead, userId: 'ben' }, 'travel')).map((x) => x.id)).toEqual([id]);
    // A secret said in passing is reported, never queued.
    const secret = await stack.distill(ben, {
      review: true,
      messages: [said('m9', 'My password is hunter2-Xy9!kQ.', '2026-05-01T09:00:00.000Z')],
    });
    expect(secret.queued ?? []).toEqual([]);
  });

  it('two writers at once lose nothing; a full queue refuses and keeps the transcript to read', async () => {
    const { stack, structured } = setup();
    const runs = await Promise.all(
      ['I love jazz.', 'I hate olives.', 'I am allergic to peanuts.', 'My cat is called Miso.'].map((content, i) =>
        stack.distill(ben, { review: true, messages: [said(`c${i}`, content, '2026-05-01T09:00:00.000Z')] }),
      ),
    );
    const ids = runs.flatMap((r) => r.queued ?? []);
    expect(ids).toHaveLength(4);
    expect((await listReview(stack, ben)).map((x) => x.id).sort()).toEqual([...ids].sort());

    // Fill the queue to the brim, then a transcript distillation is refused and its cursor stays.
    const row = await structured.sessionState!.get('acme', '.distill-review/travel');
    const items = { ...(row!.state as Record<string, unknown>) };
    for (let i = Object.keys(items).length; i < MAX_REVIEW_ITEMS; i++)
      items[`prop_fill${i}`] = { ...(Object.values(items)[0] as object), id: `prop_fill${i}` };
    await structured.sessionState!.set('acme', '.distill-review/travel', items as never, '2026-05-10T12:00:00.000Z');
    await stack.conversations!.open({ space: 'acme', agentId: 'travel' }).add('user', 'I love tea.');
    expect(await refused(() => stack.distill(ben, { review: true }))).toBe('TOO_LARGE');
    await rejectReview(stack, ben, ids);
    const again = await stack.distill(ben, { review: true });
    expect(again.queued).toHaveLength(1);
    expect(again.messages).toBe(1);
  });

  it('forget takes a user’s proposals and those resting only on forgotten messages', async () => {
    const { stack } = setup();
    await stack.conversations!.open({ space: 'acme', agentId: 'travel' }).add('user', 'hello');
    await stack.distill(ben, { review: true, messages: [said('m1', 'I love jazz.', '2026-05-01T09:00:00.000Z')] });
    const ada = { ...ben, userId: 'ada' };
    await stack.distill(ada, { review: true, messages: [said('m2', 'I love tea.', '2026-05-01T09:00:00.000Z')] });
    const gone = await forget(stack, lead, { userId: 'ben' });
    expect(gone.removed.proposals).toBe(1);
    expect(await listReview(stack, ben)).toEqual([]);
    expect(await listReview(stack, ada)).toHaveLength(1);
    const byMessage = await forget(stack, lead, { messages: ['m2'] });
    expect(byMessage.removed.proposals).toBe(1);
    expect(await listReview(stack, ada)).toEqual([]);
  });

  it('the stack setting puts the runner in review mode: its runs queue, nothing is formed', async () => {
    const { stack } = setup(true);
    const runner = new Runner(stack, {});
    await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'I prefer window seats.' }] });
    const end = await runner.endSession({ principal: ben, summary: 'seats' });
    const stats = runner.distillationStats()!;
    expect(stats.queued).toBe(1);
    expect(stats.add).toBe(0);
    expect(end.distillation).toMatchObject({ trigger: 'session-end' });
    expect(await formed(stack, ben, 'window seats', true)).toEqual([]);
    expect((await listReview(stack, ben)).map((x) => x.text)).toEqual(['User prefers window seats.']);
  });
});
