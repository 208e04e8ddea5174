import { createHashingEmbedder } from '@mem/core';
import type { KnowledgeStore, MemoryRecord, SearchFilter } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { formationEntry as entry, memoryRecord } from '../memory-record.js';
import { keywordHits, vectorHits } from '../search-arms.js';
import { expectCode, type KnowledgeSuite } from './fixture.js';

const NOW = '2026-03-10T12:00:00.000Z';
const filter = (over: Partial<SearchFilter> = {}): SearchFilter => ({
  space: 'acme',
  viewerAgentId: 'alice',
  now: NOW,
  ...over,
});

const embedder = createHashingEmbedder({ dimension: 32 });

/** A formed memory: a claim about the user, said on `validFrom`, with a vector so both arms see it. */
async function formed(content: string, over: Partial<MemoryRecord> = {}): Promise<MemoryRecord> {
  const [embedding] = await embedder.embed([content]);
  return memoryRecord(
    {
      content,
      scope: 'swarm',
      embedding: embedding!,
      embeddingModel: embedder.id,
      validFrom: '2026-03-02T09:00:00.000Z',
      claim: {
        kind: 'preference',
        subject: 'user',
        attribute: 'preference.flight',
        single: true,
        value: content,
        stance: 'for',
      },
      ...over,
    },
    'frm',
  );
}

/** Both arms' ids for `terms` / the query vector of `text`, sorted (what the filter let through). */
async function seen(store: KnowledgeStore, f: SearchFilter, text: string): Promise<{ kw: string[]; vec: string[] }> {
  const [v] = await embedder.embed([text]);
  const kw = (await keywordHits(store, { filter: f, terms: text.split(' '), limit: 10 })).map((h) => h.id).sort();
  const vec = (await vectorHits(store, { filter: f, vector: v!, limit: 10 })).map((h) => h.id).sort();
  return { kw, vec };
}

/**
 * Formation's part of the port (docs/formation.md): every memory's world and system time, the supersede chain, the
 * user it is about, and the decision log, kept by every store alike; both search arms apply the time and user rules
 * before their cut.
 */
export function formationTests(t: KnowledgeSuite): void {
  it('keeps a formed memory’s times, chain, user and claim', async () => {
    const { store } = await t.open();
    const rec = await formed('Flights in the morning suit the user.', {
      validTo: '2026-04-01T00:00:00.000Z',
      supersedes: 'frm-older',
      userId: 'user-7',
    });
    await store.insertDocument([rec]);
    const [back] = await store.getDocument('acme', rec.docId);
    expect(back).toMatchObject({
      validFrom: rec.validFrom,
      validTo: rec.validTo,
      invalidatedAt: null,
      supersedes: 'frm-older',
      supersededBy: null,
      userId: 'user-7',
      claim: rec.claim,
    });
    const plain = memoryRecord({ content: 'a memory written on purpose' });
    await store.insertDocument([plain]);
    const scanned = await store.scan({ space: 'acme', limit: 10 });
    expect(scanned.find((r) => r.docId === plain.docId)).toMatchObject({
      validFrom: null,
      validTo: null,
      userId: null,
      claim: null,
    });
    expect(scanned.find((r) => r.docId === rec.docId)?.claim).toEqual(rec.claim);
  });

  it('searches what is current by default, what held at a time with asOf, everything with history', async () => {
    const { store } = await t.open();
    const ended = await formed('morning flights window seat', { validTo: '2026-03-05T00:00:00.000Z' });
    const current = await formed('afternoon flights window seat', { validFrom: '2026-03-05T00:00:00.000Z' });
    const endsLater = await formed('evening flights window seat', { validTo: '2026-03-20T00:00:00.000Z' });
    const startsLater = await formed('night flights window seat', { validFrom: '2026-03-15T00:00:00.000Z' });
    // Written on purpose: no validFrom, so it holds from when it was recorded.
    const plain = await formed('window seat flights', {
      validFrom: null,
      claim: null,
      createdAt: '2026-03-03T00:00:00.000Z',
    });
    await store.insertDocuments([[ended], [current], [endsLater], [startsLater], [plain]]);
    const text = 'flights window seat';
    const now = await seen(store, filter(), text);
    // Current: not ended by now; a memory said to start later is already known.
    expect(now.kw).toEqual([current.id, endsLater.id, startsLater.id, plain.id].sort());
    expect(now.vec).toEqual(now.kw);
    const before = await seen(store, filter({ asOf: '2026-03-04T00:00:00.000Z' }), text);
    // Held on March 4: begun by then (validFrom, else createdAt) and not yet ended.
    expect(before.kw).toEqual([ended.id, endsLater.id, plain.id].sort());
    expect(before.vec).toEqual(before.kw);
    const early = await seen(store, filter({ asOf: '2026-03-02T12:00:00.000Z' }), text);
    expect(early.kw).toEqual([ended.id, endsLater.id].sort());
    const all = await seen(store, filter({ history: true, asOf: '2026-03-04T00:00:00.000Z' }), text);
    expect(all.kw).toEqual([ended.id, current.id, endsLater.id, startsLater.id, plain.id].sort());
    expect(all.vec).toEqual(all.kw);
  });

  it('shows a memory about a user only to searches for that user', async () => {
    const { store } = await t.open();
    const ann = await formed('ann likes aisle seats', { userId: 'ann' });
    const ben = await formed('ben likes aisle seats', { userId: 'ben' });
    const nobody = await formed('everyone likes aisle seats');
    await store.insertDocuments([[ann], [ben], [nobody]]);
    const text = 'likes aisle seats';
    expect((await seen(store, filter(), text)).kw).toEqual([nobody.id]);
    expect((await seen(store, filter(), text)).vec).toEqual([nobody.id]);
    const forAnn = await seen(store, filter({ userId: 'ann' }), text);
    expect(forAnn.kw).toEqual([ann.id, nobody.id].sort());
    expect(forAnn.vec).toEqual(forAnn.kw);
    expect((await seen(store, filter({ userId: 'carl' }), text)).kw).toEqual([nobody.id]);
    // History widens time, never users.
    expect((await seen(store, filter({ userId: 'ben', history: true }), text)).kw).toEqual([ben.id, nobody.id].sort());
  });

  it('forms atomically: inserts, closes and logs in one write; a second close of the same memory changes nothing', async () => {
    const { store } = await t.open();
    const old = await formed('The user prefers morning flights.');
    await store.form('acme', { insert: [[old]], close: [], log: [entry(old.docId)] });
    const next = await formed('The user prefers afternoon flights.', {
      validFrom: '2026-03-09T10:00:00.000Z',
      supersedes: old.docId,
    });
    const close = {
      docId: old.docId,
      validTo: '2026-03-09T10:00:00.000Z',
      invalidatedAt: '2026-03-09T10:00:07.000Z',
      supersededBy: next.docId,
    };
    const update = entry(next.docId, {
      decision: 'update',
      previousId: old.docId,
      text: 'The user prefers afternoon flights.',
      evidence: ['m-2'],
      related: [old.docId],
      at: '2026-03-09T10:00:07.000Z',
    });
    await store.form('acme', { insert: [[next]], close: [close], log: [update] });
    const [closed] = await store.getDocument('acme', old.docId);
    expect(closed).toMatchObject({
      validTo: close.validTo,
      invalidatedAt: close.invalidatedAt,
      supersededBy: next.docId,
      content: old.content,
    });
    expect((await store.getDocument('acme', next.docId))[0]?.supersedes).toBe(old.docId);
    const log = await store.formationLog('acme', [old.docId, next.docId]);
    expect(log.map((e) => [e.memoryId, e.decision, e.previousId])).toEqual([
      [old.docId, 'add', null],
      [next.docId, 'update', old.docId],
    ]);
    expect(log[1]).toEqual(update);
    // Another distillation closing the same memory again: CONFLICT, and neither its insert nor its log line lands.
    const late = await formed('The user prefers red-eye flights.', { supersedes: old.docId });
    await expectCode(
      store.form('acme', {
        insert: [[late]],
        close: [{ ...close, supersededBy: late.docId }],
        log: [entry(late.docId, { decision: 'update' })],
      }),
      'CONFLICT',
    );
    expect(await store.getDocument('acme', late.docId)).toEqual([]);
    expect(await store.formationLog('acme', [late.docId])).toEqual([]);
    expect((await store.getDocument('acme', old.docId))[0]?.supersededBy).toBe(next.docId);
    // A close of a memory that does not exist is refused the same way.
    await expectCode(
      store.form('acme', { insert: [], close: [{ ...close, docId: 'frm-missing' }], log: [] }),
      'CONFLICT',
    );
  });

  it('writes nothing of a formation whose insert is refused', async () => {
    const { store } = await t.open();
    const old = await formed('The user lives in Berlin.');
    const holder = await formed('something else', { key: '/formed/taken' });
    await store.insertDocuments([[old], [holder]]);
    const next = await formed('The user lives in Munich.', { key: '/formed/taken', supersedes: old.docId });
    await expectCode(
      store.form('acme', {
        insert: [[next]],
        close: [{ docId: old.docId, validTo: NOW, invalidatedAt: NOW, supersededBy: next.docId }],
        log: [entry(next.docId, { decision: 'update' })],
      }),
      'KEY_TAKEN',
    );
    expect((await store.getDocument('acme', old.docId))[0]).toMatchObject({ validTo: null, invalidatedAt: null });
    expect(await store.formationLog('acme', [next.docId])).toEqual([]);
  });

  it('keeps decision logs per space and drops a memory’s lines with the memory', async () => {
    const { store } = await t.open();
    const a = await formed('The user has a dog called Rex.');
    const b = await formed('The user has a cat called Tom.', { agentId: 'bob' });
    const c = await formed('The user is vegetarian.', { expiresAt: '2026-03-05T00:00:00.000Z' });
    await store.form('acme', {
      insert: [[a], [b], [c]],
      close: [],
      log: [entry(a.docId), entry(a.docId, { decision: 'noop', evidence: ['m-9'] }), entry(b.docId), entry(c.docId)],
    });
    expect((await store.formationLog('acme', [a.docId])).map((e) => e.decision)).toEqual(['add', 'noop']);
    expect(await store.formationLog('globex', [a.docId])).toEqual([]);
    await store.deleteDocument('acme', a.docId);
    expect(await store.formationLog('acme', [a.docId])).toEqual([]);
    await store.deleteByAgent('acme', 'bob');
    expect(await store.formationLog('acme', [b.docId])).toEqual([]);
    await store.deleteExpired(NOW);
    expect(await store.formationLog('acme', [c.docId])).toEqual([]);
  });

  it('keeps formed memories and their log for another instance of the same database', async () => {
    const fx = await t.open();
    if (!fx.openAnother) return;
    const rec = await formed('The user moved to Lisbon.', { userId: 'ann' });
    await fx.store.form('acme', { insert: [[rec]], close: [], log: [entry(rec.docId, { userId: 'ann' })] });
    const again = await fx.openAnother();
    t.extra.push(again);
    expect((await again.getDocument('acme', rec.docId))[0]).toMatchObject({ userId: 'ann', claim: rec.claim });
    expect((await again.formationLog('acme', [rec.docId]))[0]?.userId).toBe('ann');
  });
}
