/**
 * Conformance suites of the episode and procedure stores (docs/structured.md). These are storage ports: they return
 * candidates (keyword hits, vector hits); the ranking is checked in @mem/episodic and @mem/procedural.
 */
import { createHashingEmbedder, type Episode, type Procedure } from '@mem/core';
import {
  type EpisodeStore,
  episodeSearchText,
  type ProcedureStore,
  procedureSearchText,
  queryTerms,
  type StoredEmbedding,
} from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { at, expectMemError, type PortFactory, type PortSuiteOptions, withFixture } from './port-fixture.js';
import { expectPlainTerms, PLAIN_TERM_TEXTS } from './query-syntax.js';

const A = 'acme';
const B = 'globex';
const embedder = createHashingEmbedder({ dimension: 64 });

async function embed(text: string, model = embedder.id): Promise<StoredEmbedding> {
  const [vector] = await embedder.embed([text]);
  return { vector: vector!, model };
}

function episode(id: string, summary: string, minute: number, extra: Partial<Episode> = {}): Episode {
  return {
    id,
    summary,
    keyDecisions: [],
    toolsUsed: [],
    outcome: 'success',
    sessionId: 's1',
    timestamp: at(minute),
    tags: [],
    metadata: {},
    ...extra,
  };
}

/** A candidate store (episodes or procedures) as the plain-terms check uses it. */
interface CandidateRows<R> {
  insert(space: string, row: R, embedding: null): Promise<unknown>;
  keywordSearch(space: string, terms: string[], limit: number): Promise<{ id: string }[]>;
  count(space: string): Promise<number>;
}

/** `expectPlainTerms` over three rows made by `row` (an episode or a procedure) holding `PLAIN_TERM_TEXTS`. */
async function expectPlainCandidateTerms<R>(
  store: CandidateRows<R>,
  row: (id: string, text: string, minute: number) => R,
): Promise<void> {
  for (const [i, id] of (['deploy', 'lunch', 'ops'] as const).entries())
    await store.insert(A, row(id, PLAIN_TERM_TEXTS[id], i + 1), null);
  const search = async (terms: string[]) => (await store.keywordSearch(A, terms, 10)).map((h) => h.id);
  await expectPlainTerms(search, { deploy: 'deploy', lunch: 'lunch', ops: 'ops' });
  expect(await store.count(A)).toBe(3);
}

/** A closed instance refuses reads and writes with `STORE_UNAVAILABLE`, its message naming the adapter. */
async function expectUnreachable<R>(
  fixture: { unreachable?: () => Promise<CandidateRows<R> & { name: string }> },
  row: (id: string, text: string, minute: number) => R,
): Promise<void> {
  if (!fixture.unreachable) return; // process memory: nothing can be out of reach
  const store = await fixture.unreachable();
  for (const [method, call] of [
    ['insert', () => store.insert(A, row('late', 'written after close', 1), null)],
    ['count', () => store.count(A)],
    ['keywordSearch', () => store.keywordSearch(A, ['deploy'], 5)],
  ] as const) {
    const error = await expectMemError(call(), 'STORE_UNAVAILABLE');
    expect(error.message, method).toMatch(new RegExp(`^${store.name}: `));
  }
}

export function describeEpisodeStore(
  name: string,
  factory: PortFactory<EpisodeStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`EpisodeStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('round-trips every field; lists the newest first; counts', () =>
      withFixture(factory, async ({ store }) => {
        const full = episode('e1', 'Migrated the billing database to Postgres 16 — zero downtime 🎉', 10, {
          keyDecisions: ['Use logical replication', 'Cut over at 02:00 UTC'],
          toolsUsed: ['psql', 'pg_dump'],
          outcome: 'partial',
          sessionId: null,
          tags: ['database', 'migration'],
          metadata: { ticket: 'OPS-12', durationMin: 95, reviewers: ['ana', 'bo'] },
        });
        await store.insert(A, full, null);
        await store.insert(A, episode('e2', 'Older task', 5), null);
        await store.insert(A, episode('e3', 'Newest task', 20), null);
        await store.insert(A, episode('e0', 'Same time as e1, smaller id', 10), null);
        expect(await store.get(A, 'e1')).toEqual(full);
        expect(await store.get(A, 'missing')).toBeNull();
        expect((await store.getMany(A, ['e3', 'missing', 'e1'])).map((e) => e.id)).toEqual(['e3', 'e1']);
        expect((await store.recent(A, 10)).map((e) => e.id)).toEqual(['e3', 'e1', 'e0', 'e2']);
        expect((await store.recent(A, 2)).map((e) => e.id)).toEqual(['e3', 'e1']);
        expect(await store.count(A)).toBe(4);
        expect(await store.delete(A, 'e3')).toBe(true);
        expect(await store.delete(A, 'e3')).toBe(false);
        expect(await store.count(A)).toBe(3);
      }));

    it('takes keyword terms as plain words: no query syntax of any engine widens, breaks or escapes a search', () =>
      withFixture(factory, ({ store }) => expectPlainCandidateTerms(store, episode)));

    it('answers STORE_UNAVAILABLE, naming its adapter, once its connection is gone', () =>
      withFixture(factory, (fixture) => expectUnreachable(fixture, episode)));

    it('finds episodes by tag exactly, never by substring or case', () =>
      withFixture(factory, async ({ store }) => {
        await store.insert(A, episode('e1', 'Deployed the api', 1, { tags: ['deploy', 'api'] }), null);
        await store.insert(A, episode('e2', 'Wrote the deployment guide', 2, { tags: ['deployment'] }), null);
        await store.insert(A, episode('e3', 'Deployed the web app', 3, { tags: ['deploy'] }), null);
        await store.insert(A, episode('e4', 'Capitalised tag', 4, { tags: ['Deploy'] }), null);
        await store.insert(A, episode('e5', 'Tag with a dash', 5, { tags: ['pre-deploy'] }), null);
        expect((await store.byTag(A, 'deploy', 10)).map((e) => e.id)).toEqual(['e3', 'e1']);
        expect((await store.byTag(A, 'deploy', 1)).map((e) => e.id)).toEqual(['e3']);
        expect((await store.byTag(A, 'deployment', 10)).map((e) => e.id)).toEqual(['e2']);
        expect(await store.byTag(A, 'dep', 10)).toEqual([]);
        expect(await store.byTag(A, 'deploy%', 10)).toEqual([]);
        expect(await store.byTag(A, '%', 10)).toEqual([]);
      }));

    it('keyword search matches any term over summary, decisions and tags', () =>
      withFixture(factory, async ({ store }) => {
        await store.insert(
          A,
          episode('both', 'Rollback of the friday release', 1, { keyDecisions: ['rollback first, debug later'] }),
          null,
        );
        await store.insert(A, episode('one', 'Planned the friday offsite agenda', 2), null);
        await store.insert(
          A,
          episode('decision', 'Incident review', 3, { keyDecisions: ['Always run a rollback drill'] }),
          null,
        );
        await store.insert(A, episode('tagged', 'Weekly report', 4, { tags: ['rollback'] }), null);
        await store.insert(A, episode('none', 'Lunch order for the team', 5), null);
        // Enough unrelated rows that no query term sits in more than half of them (BM25 engines give such terms ~0 weight).
        for (let i = 0; i < 4; i++)
          await store.insert(A, episode(`filler-${i}`, `Quarterly planning notes, part ${i}`, 6 + i), null);
        const hits = await store.keywordSearch(A, queryTerms('rollback on friday'), 10);
        const ids = hits.map((h) => h.id);
        expect(ids[0]).toBe('both');
        expect(ids.sort()).toEqual(['both', 'decision', 'one', 'tagged']);
        expect(hits.every((h) => h.score > 0)).toBe(true);
        expect(await store.keywordSearch(A, ['friday'], 1)).toHaveLength(1);
        expect(await store.keywordSearch(A, ['zebra'], 10)).toEqual([]);
        // Not an exact phrase and not all terms: one shared word is enough.
        expect((await store.keywordSearch(A, queryTerms('offsite zebra unicorn'), 10)).map((h) => h.id)).toEqual([
          'one',
        ]);
        expect(episodeSearchText({ summary: 's', keyDecisions: ['d'], tags: ['t'] })).toBe('s\nd\nt');
      }));

    it('vector search compares vectors of the same model only', () =>
      withFixture(factory, async ({ store }) => {
        if (!store.capabilities.vector) return;
        const texts: [string, string][] = [
          ['kube', 'Scaled the kubernetes cluster node pool'],
          ['cook', 'Baked sourdough bread with rye flour'],
          ['db', 'Tuned postgres autovacuum settings'],
        ];
        for (const [id, text] of texts) await store.insert(A, episode(id, text, 1), await embed(text));
        await store.insert(
          A,
          episode('other-model', 'Scaled the kubernetes cluster node pool', 1),
          await embed('Scaled the kubernetes cluster node pool', 'other-model'),
        );
        await store.insert(A, episode('no-vector', 'Scaled the kubernetes cluster node pool', 1), null);
        const q = await embed('kubernetes node pool scaling');
        const hits = await store.vectorSearch(A, q.vector, embedder.id, 10);
        expect(hits.map((h) => h.id).sort()).toEqual(['cook', 'db', 'kube']);
        expect(hits[0]?.id).toBe('kube');
        expect(hits[0]!.similarity).toBeGreaterThan(hits[1]!.similarity);
        expect(hits[0]!.similarity).toBeLessThanOrEqual(1.000001);
        expect(await store.vectorSearch(A, q.vector, embedder.id, 1)).toHaveLength(1);
        expect((await store.vectorSearch(A, q.vector, 'other-model', 10)).map((h) => h.id)).toEqual(['other-model']);
      }));

    it('never crosses spaces', () =>
      withFixture(factory, async ({ store }) => {
        const text = 'Rotated the acme signing certificates';
        await store.insert(A, episode('e1', text, 1, { tags: ['security'] }), await embed(text));
        await store.insert(
          B,
          episode('e1', 'Globex holiday calendar', 1, { tags: ['hr'] }),
          await embed('Globex holiday calendar'),
        );
        expect((await store.get(B, 'e1'))?.summary).toBe('Globex holiday calendar');
        expect(await store.getMany(B, ['e1'])).toHaveLength(1);
        expect(await store.keywordSearch(B, ['certificates', 'acme'], 10)).toEqual([]);
        expect(await store.byTag(B, 'security', 10)).toEqual([]);
        expect((await store.recent(B, 10)).map((e) => e.summary)).toEqual(['Globex holiday calendar']);
        if (store.capabilities.vector) {
          const q = await embed(text);
          expect((await store.vectorSearch(B, q.vector, embedder.id, 10)).map((h) => h.id)).toEqual(['e1']);
          expect((await store.vectorSearch(B, q.vector, embedder.id, 10))[0]!.similarity).toBeLessThan(0.9);
        }
        expect(await store.count(B)).toBe(1);
        expect(await store.delete(B, 'e1')).toBe(true);
        expect(await store.get(A, 'e1')).not.toBeNull();
      }));

    it('refuses a duplicate id', () =>
      withFixture(factory, async ({ store }) => {
        await store.insert(A, episode('e1', 'first', 1), null);
        await expectMemError(store.insert(A, episode('e1', 'second', 2), null), 'CONFLICT');
        expect((await store.get(A, 'e1'))?.summary).toBe('first');
        expect(await store.count(A)).toBe(1);
      }));

    it('persists across instances and loses nothing when two instances write at once', () =>
      withFixture(factory, async ({ store, openAnother }) => {
        if (!openAnother) return;
        const second = await openAnother();
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 ? store : second).insert(A, episode(`e${i}`, `task number ${i}`, i, { tags: ['race'] }), null),
          ),
        );
        expect(await store.count(A)).toBe(40);
        expect(await second.byTag(A, 'race', 100)).toHaveLength(40);
      }));
  });
}

function procedure(id: string, name: string, minute: number, extra: Partial<Procedure> = {}): Procedure {
  return {
    id,
    name,
    description: '',
    trigger: '',
    steps: [{ toolName: 'noop', argsTemplate: {}, expectedOutcome: '' }],
    successCount: 0,
    failureCount: 0,
    tags: [],
    metadata: {},
    createdAt: at(minute),
    updatedAt: at(minute),
    ...extra,
  };
}

export function describeProcedureStore(
  name: string,
  factory: PortFactory<ProcedureStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`ProcedureStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('round-trips every field; lists newest first; counts', () =>
      withFixture(factory, async ({ store }) => {
        const full = procedure('p1', 'Deploy the api service', 10, {
          description: 'Blue-green deploy with a smoke test — safe on Fridays ✅',
          trigger: 'user asks to ship or deploy the api',
          steps: [
            {
              toolName: 'build',
              argsTemplate: { target: '{{service}}', cache: true },
              expectedOutcome: 'image pushed',
            },
            {
              toolName: 'deploy',
              argsTemplate: { env: '{{env}}', replicas: 3, extra: null },
              expectedOutcome: 'green is live',
            },
          ],
          successCount: 4,
          failureCount: 1,
          tags: ['deploy', 'api'],
          metadata: { owner: 'platform', runbook: ['a', 'b'] },
        });
        await store.insert(A, full, null);
        await store.insert(A, procedure('p2', 'Older', 5), null);
        await store.insert(A, procedure('p3', 'Newest', 20), null);
        expect(await store.get(A, 'p1')).toEqual(full);
        expect(await store.get(A, 'missing')).toBeNull();
        expect((await store.getMany(A, ['p3', 'nope', 'p2'])).map((p) => p.id)).toEqual(['p3', 'p2']);
        expect((await store.list(A, 10)).map((p) => p.id)).toEqual(['p3', 'p1', 'p2']);
        expect((await store.list(A, 1)).map((p) => p.id)).toEqual(['p3']);
        expect(await store.count(A)).toBe(3);
        expect(await store.delete(A, 'p2')).toBe(true);
        expect(await store.delete(A, 'p2')).toBe(false);
        expect(await store.count(A)).toBe(2);
        await expectMemError(store.insert(A, procedure('p1', 'dup', 30), null), 'CONFLICT');
      }));

    it('keyword search matches any term over name, description and trigger', () =>
      withFixture(factory, async ({ store }) => {
        await store.insert(A, procedure('name', 'Rotate certificates', 1), null);
        await store.insert(
          A,
          procedure('desc', 'Renewal', 2, { description: 'Renew TLS certificates before expiry' }),
          null,
        );
        await store.insert(A, procedure('trig', 'Cert job', 3, { trigger: 'when certificates expire soon' }), null);
        await store.insert(
          A,
          procedure('steps-only', 'Unrelated', 4, {
            steps: [{ toolName: 'certificates', argsTemplate: {}, expectedOutcome: 'certificates' }],
          }),
          null,
        );
        await store.insert(A, procedure('none', 'Order lunch', 5), null);
        const hits = await store.keywordSearch(A, queryTerms('rotate the certificates'), 10);
        expect(hits[0]?.id).toBe('name');
        expect(hits.map((h) => h.id).sort()).toEqual(['desc', 'name', 'trig']);
        expect(hits.every((h) => h.score > 0)).toBe(true);
        expect((await store.keywordSearch(A, ['lunch', 'zebra'], 10)).map((h) => h.id)).toEqual(['none']);
        expect(procedureSearchText({ name: 'n', description: 'd', trigger: 't' })).toBe('n\nd\nt');
      }));

    it('takes keyword terms as plain words: no query syntax of any engine widens, breaks or escapes a search', () =>
      withFixture(factory, ({ store }) => expectPlainCandidateTerms(store, procedure)));

    it('answers STORE_UNAVAILABLE, naming its adapter, once its connection is gone', () =>
      withFixture(factory, (fixture) => expectUnreachable(fixture, procedure)));

    it('vector search compares vectors of the same model only', () =>
      withFixture(factory, async ({ store }) => {
        if (!store.capabilities.vector) return;
        const texts: [string, string][] = [
          ['deploy', 'Deploy the api service with blue-green'],
          ['backup', 'Back up the postgres database nightly'],
        ];
        for (const [id, text] of texts) await store.insert(A, procedure(id, text, 1), await embed(text));
        await store.insert(A, procedure('other', texts[0]![1], 1), await embed(texts[0]![1], 'other-model'));
        const q = await embed('deploy api service');
        const hits = await store.vectorSearch(A, q.vector, embedder.id, 10);
        expect(hits.map((h) => h.id)).toEqual(['deploy', 'backup']);
        expect(hits[0]!.similarity).toBeGreaterThan(hits[1]!.similarity);
      }));

    it('counts outcomes; unknown ids and other spaces are NOT_FOUND', () =>
      withFixture(factory, async ({ store }) => {
        await store.insert(A, procedure('p1', 'Deploy', 0), null);
        const s1 = await store.incrementOutcome(A, 'p1', true, at(5));
        expect(s1).toMatchObject({ successCount: 1, failureCount: 0, updatedAt: at(5), createdAt: at(0) });
        await store.incrementOutcome(A, 'p1', true, at(6));
        const f1 = await store.incrementOutcome(A, 'p1', false, at(7));
        expect(f1).toMatchObject({ successCount: 2, failureCount: 1, updatedAt: at(7) });
        expect(await store.get(A, 'p1')).toMatchObject({ successCount: 2, failureCount: 1 });
        await expectMemError(store.incrementOutcome(A, 'nope', true, at(8)), 'NOT_FOUND');
        await expectMemError(store.incrementOutcome(B, 'p1', true, at(8)), 'NOT_FOUND');
        expect(await store.get(A, 'p1')).toMatchObject({ successCount: 2, failureCount: 1 });
      }));

    it('never crosses spaces', () =>
      withFixture(factory, async ({ store }) => {
        await store.insert(A, procedure('p1', 'Rotate acme certificates', 0), await embed('Rotate acme certificates'));
        await store.insert(B, procedure('p1', 'Globex payroll run', 0), await embed('Globex payroll run'));
        expect((await store.get(B, 'p1'))?.name).toBe('Globex payroll run');
        expect(await store.keywordSearch(B, ['certificates'], 10)).toEqual([]);
        expect((await store.list(B, 10)).map((p) => p.name)).toEqual(['Globex payroll run']);
        await store.incrementOutcome(B, 'p1', true, at(1));
        expect((await store.get(A, 'p1'))?.successCount).toBe(0);
        expect(await store.count(B)).toBe(1);
        expect(await store.delete(B, 'p1')).toBe(true);
        expect(await store.get(A, 'p1')).not.toBeNull();
      }));

    it('loses no outcome when two instances report at once', () =>
      withFixture(factory, async ({ store, openAnother }) => {
        if (!openAnother) return;
        const second = await openAnother();
        await store.insert(A, procedure('p1', 'Contested', 0), null);
        const reports: Promise<unknown>[] = [];
        for (let i = 0; i < 30; i++) {
          reports.push(store.incrementOutcome(A, 'p1', i % 3 !== 0, at(i)));
          reports.push(second.incrementOutcome(A, 'p1', i % 2 === 0, at(i)));
        }
        await Promise.all(reports);
        const final = await second.get(A, 'p1');
        // store: 20 successes, 10 failures; second: 15 successes, 15 failures.
        expect(final).toMatchObject({ successCount: 35, failureCount: 25 });
      }));
  });
}
