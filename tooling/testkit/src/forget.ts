import {
  agentSessionId,
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createStack,
  type Episode,
  forget,
  type Principal,
  type Stack,
  withEpisodeAuthor,
} from '@mem/core';
import {
  type Erasable,
  type KnowledgeStore,
  ManualClock,
  type NotebookStore,
  type StructuredStores,
  type TranscriptStore,
} from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';

/**
 * What a factory gives the forget suite: the ports the adapter provides (a fresh, empty store each), how to read
 * everything it keeps at rest, and how to clean up. Ports left out are served by nothing (or, for knowledge, by the
 * in-memory store of @mem/core, which `raw` does not see).
 */
export interface ForgetFixture {
  knowledge?: KnowledgeStore;
  structured?: Partial<StructuredStores> & Erasable & { close?(): Promise<void> | void };
  transcripts?: TranscriptStore;
  notebooks?: NotebookStore;
  /**
   * Everything the adapter keeps at rest, as text: the bytes of its database file(s) or folder (a server's data
   * directory), or every row of its tables. The forget test calls it twice: right after `forget` returns, while the
   * stack (the "server") is still open, and again after the stack is closed. Without it the suite checks through the
   * ports only.
   */
  raw?: () => Promise<string>;
  cleanup: () => Promise<void>;
}

export type ForgetFactory = () => Promise<ForgetFixture>;

const SPACE = 'acme';
const lead: Principal = { space: SPACE, agentId: 'lead-1', role: 'lead' };
const alice: Principal = { space: SPACE, agentId: 'alice', role: 'worker' };
const bob: Principal = { space: SPACE, agentId: 'bob', role: 'worker' };
/** Markers: one word each, so full-text indexes keep them as one term. */
const ALICE = 'qzxalicemarker';
const USER = 'qzxusermarker';
const BOB = 'qzxbobmarker';
const AT = '2026-03-01T12:00:00.000Z';

/** An episode written by `agentId` (its author in the metadata, as forget finds it), every text field holding `summary`. */
export const authoredEpisode = (id: string, summary: string, agentId: string): Episode => ({
  id,
  summary,
  keyDecisions: [`decided ${summary}`],
  toolsUsed: ['deploy'],
  outcome: 'success',
  sessionId: null,
  timestamp: AT,
  tags: ['ops'],
  metadata: withEpisodeAuthor({ metadata: { note: summary } }, agentId).metadata,
});

/** The raw storage holds nothing of alice or ada, and still holds bob's data (so the scan does see data). */
async function expectNoTrace(name: string, raw: () => Promise<string>, when: string): Promise<void> {
  // The first 10 letters: a full-text index may keep a stemmed form of a marker ("qzxalicemark").
  const text = (await raw()).toLowerCase();
  const trace = (marker: string) => text.includes(marker.slice(0, 10));
  expect(trace(BOB), `the raw scan must see the data that stays (${when})`).toBe(true);
  expect(trace(ALICE), `a trace of the forgotten agent remains in the raw storage of ${name} ${when}`).toBe(false);
  expect(trace(USER), `a trace of the forgotten user remains in the raw storage of ${name} ${when}`).toBe(false);
}

async function exported(stack: Stack, p: Principal): Promise<string> {
  const out: unknown[] = [];
  for await (const r of stack.knowledge.export(p)) out.push(r);
  return JSON.stringify(out);
}

/**
 * The privacy suite (docs/safety.md, issue 9 §4–5). Transcripts: a secret is replaced by `[REDACTED:<kind>]` before it is
 * written, so neither the transcript, an archive nor the raw storage holds it (and `redactSecrets: false` writes text
 * as given). Forget: after `forget --agent` and `forget --user`, nothing of the subject remains
 * in any port the adapter provides — not in search, export or listings, and not in the raw storage (database file,
 * folder or table rows), where another agent's data written alongside is still found (so the scan does see data).
 */
export function describeForget(name: string, factory: ForgetFactory, options: { timeoutMs?: number } = {}): void {
  describe(`forget leaves no trace: ${name}`, { timeout: options.timeoutMs ?? 120_000 }, () => {
    it('transcripts: a secret is redacted before it is written (no transcript or archive holds it); configurable', async () => {
      const f = await factory();
      if (!f.transcripts) {
        await f.cleanup();
        return;
      }
      const stack = createStack({
        knowledge: f.knowledge ?? createInMemoryKnowledgeStore(),
        clock: new ManualClock(AT),
        transcripts: f.transcripts,
      });
      const redacted = `ghp_${'Rd4Ct3dSecretValue0'.repeat(2)}`;
      const kept = `ghp_${'Kp7NotRedactedValue'.repeat(2)}`;
      try {
        const conv = stack.conversations!.open({ space: SPACE, agentId: 'alice' });
        const added = await conv.add('user', `my token is ${redacted}, keep it`);
        expect(added?.content).toBe('my token is [REDACTED:github-token], keep it');
        await conv.compact(`Summary: the token ${redacted} was shared.`);
        await conv.add('assistant', `Stored ${redacted}.`);
        const text = JSON.stringify([
          await stack.conversations!.store.read(SPACE, 'alice'),
          ...(await Promise.all(
            (
              await stack.conversations!.archives(SPACE, 'alice')
            ).map((a) => stack.conversations!.readArchive(SPACE, 'alice', a.id)),
          )),
        ]);
        expect(text).toContain('[REDACTED:github-token]');
        expect(text).not.toContain(redacted);
        // Turned off, the text is written as given (which also shows the raw scan below sees transcripts).
        const raw = stack.conversations!.open({ space: SPACE, agentId: 'bob', options: { redactSecrets: false } });
        expect((await raw.add('user', `token ${kept}`))?.content).toBe(`token ${kept}`);
      } finally {
        await stack.close();
      }
      try {
        if (f.raw) {
          const bytes = await f.raw();
          expect(bytes.includes(kept), 'the raw scan must see transcript text').toBe(true);
          expect(bytes.includes(redacted), `a redacted secret reached the raw storage of ${name}`).toBe(false);
          expect(bytes.includes(redacted.slice(0, 14)), `part of a redacted secret is in ${name}`).toBe(false);
        }
      } finally {
        await f.cleanup();
      }
    });

    it('removes an agent and a user from every port, down to the raw storage', async () => {
      const f = await factory();
      const stack = createStack({
        knowledge: f.knowledge ?? createInMemoryKnowledgeStore(),
        embedder: createHashingEmbedder({ dimension: 32 }),
        clock: new ManualClock(AT),
        ...(f.structured ? { structured: f.structured } : {}),
        ...(f.transcripts ? { transcripts: f.transcripts } : {}),
        ...(f.notebooks ? { notebooks: f.notebooks } : {}),
      });
      try {
        // Knowledge: alice owns an agent-scope and a swarm-scope memory, one edited (a version row) and rated.
        const own = await stack.knowledge.store(alice, { content: `Alice keeps the ${ALICE} deploy checklist.` });
        const shared = await stack.knowledge.store(alice, {
          content: `The ${ALICE} service pages on-call.`,
          name: `${ALICE} paging`,
          scope: 'swarm',
        });
        await stack.knowledge.edit(alice, { id: own.id, intent: 'sharpen', content: `Alice owns the ${ALICE} list.` });
        await stack.knowledge.rate(bob, { id: shared.id, useful: true, taskId: 't-1', note: `rated ${ALICE}` });
        await stack.knowledge.store(bob, { content: `Bob keeps the ${BOB} runbook.`, scope: 'swarm' });

        if (stack.conversations) {
          const conv = stack.conversations.open({ space: SPACE, agentId: 'alice' });
          await conv.add('user', `Remember ${ALICE} please.`);
          await conv.compact(`Summary of ${ALICE}.`);
          await conv.add('assistant', `Noted ${ALICE}.`);
          await stack.conversations.open({ space: SPACE, agentId: 'bob' }).add('user', `Bob says ${BOB}.`);
        }
        if (stack.notebook) {
          await stack.notebook.write(alice, { content: `- ${ALICE} main note` });
          await stack.notebook.write(alice, { content: `- ${ALICE} plan`, file: 'plans/q3.md' });
          await stack.notebook.write({ ...alice, user: 'ada' }, { content: `- ${USER} likes tea` });
          await stack.notebook.write(bob, { content: `- ${BOB} note` });
        }
        const { facts, goals, users, episodes } = stack.structured;
        if (facts) {
          await facts.upsert(SPACE, { user: 'ada', topic: null, key: 'drink', value: USER, source: 'user', at: AT });
          await facts.upsert(SPACE, { user: 'ada', topic: 'work', key: 'team', value: USER, source: 'user', at: AT });
          await facts.upsert(SPACE, { user: 'bo', topic: null, key: 'drink', value: BOB, source: 'user', at: AT });
        }
        if (goals)
          await goals.setActive(SPACE, { id: 'g-1', user: 'ada', topic: null, goal: USER, metadata: {}, at: AT });
        if (users) await users.ensure(SPACE, 'ada', { id: 'int-ada', at: AT });
        if (episodes) {
          const embed = async (e: Episode) =>
            episodes.capabilities.vector && stack.embedder
              ? { vector: (await stack.embedder.embed([e.summary]))[0]!, model: stack.embedder.id }
              : null;
          for (const e of [
            authoredEpisode('ep-a1', `Alice shipped ${ALICE}`, 'alice'),
            authoredEpisode('ep-a2', `Alice fixed ${ALICE}`, 'alice'),
            authoredEpisode('ep-b1', `Bob paged ${BOB}`, 'bob'),
          ])
            await episodes.insert(SPACE, e, await embed(e));
        }

        // Session records, as the doors store them (`<agent>/<session>`): alice's carry her marker, bob's his.
        const { summaries, sessionState, phases, toolEvents } = stack.structured;
        for (const [agentId, marker] of [
          ['alice', ALICE],
          ['bob', BOB],
        ] as const) {
          const sessionId = agentSessionId(agentId, 'chat-1');
          if (summaries)
            await summaries.save(SPACE, { sessionId, summary: `${marker} so far`, messagesCovered: 2, at: AT });
          if (sessionState) await sessionState.set(SPACE, sessionId, { note: marker }, AT);
          if (phases) await phases.set(SPACE, { sessionId, phase: 'planning', metadata: { note: marker }, at: AT });
          if (toolEvents)
            await toolEvents.record(SPACE, {
              id: `ev-${agentId}`,
              sessionId,
              tool: 'search',
              input: { q: marker },
              output: { hit: marker },
              latencyMs: 4,
              error: null,
              at: AT,
            });
        }
        // alice's context settings (the core's own row in the session-state store).
        if (stack.conversations && sessionState)
          await stack.conversations.setContextSettings(SPACE, 'alice', { contextLength: 4096 });

        // The graph: alice's entities and relations, what is about ada (alice's observation on bob's entity too), bob's.
        if (stack.graph) {
          await stack.graph.createEntities(alice, {
            entities: [{ name: `Project ${ALICE}`, entityType: 'project', observations: [`${ALICE} launch`] }],
          });
          await stack.graph.createEntities(
            bob,
            {
              entities: [{ name: `Team ${BOB}`, entityType: 'team', observations: [`${BOB} roster`] }],
            },
            { scope: 'swarm' },
          );
          await stack.graph.addObservations(alice, {
            observations: [{ entityName: `Team ${BOB}`, contents: [`${ALICE} joined`] }],
          });
          await stack.graph.createRelations(alice, {
            relations: [{ from: `Project ${ALICE}`, to: `Team ${BOB}`, relationType: 'owned_by' }],
          });
          await stack.graph.createEntities(
            { ...bob, userId: 'ada' },
            {
              entities: [{ name: `Ada ${USER}`, entityType: 'person', observations: [`${USER} prefers tea`] }],
            },
            { scope: 'swarm' },
          );
        }

        const agent = await forget(stack, lead, { agentId: 'alice' });
        if (stack.graph) expect(agent.removed.graph).toMatchObject({ entities: 1, relations: 1, observations: 2 });
        expect(agent.removed.memories).toEqual({ documents: 2, chunks: 2, versions: 1, ratings: 1 });
        if (stack.conversations) expect([agent.removed.transcripts, agent.removed.archives]).toEqual([1, 1]);
        if (stack.notebook) expect(agent.removed.notebookFiles).toBe(3);
        if (episodes) expect(agent.removed.episodes).toBe(2);
        expect(agent.removed.sessions).toEqual({
          summaries: summaries ? 1 : 0,
          states: sessionState ? (stack.conversations ? 2 : 1) : 0,
          phases: phases ? 1 : 0,
          toolEvents: toolEvents ? 1 : 0,
        });
        const user = await forget(stack, lead, { userId: 'ada' }, { topics: ['work'] });
        if (facts) expect(user.removed.facts).toBe(2);
        if (goals) expect(user.removed.goals).toBe(1);
        if (users) expect(user.removed.users).toBe(1);
        if (stack.graph) {
          expect(user.removed.graph).toMatchObject({ entities: 1, observations: 1 });
          const left = await stack.graph.exportJsonl({ ...bob, userId: 'ada' });
          expect(left).toContain(BOB);
          expect(left).not.toContain(ALICE);
          expect(left).not.toContain(USER);
        }

        // Through the ports: search, export, listings.
        for (const p of [alice, bob, lead]) {
          const hits = await stack.knowledge.search(p, { query: `${ALICE} checklist service paging` });
          expect(JSON.stringify(hits)).not.toContain(ALICE);
          expect(await exported(stack, p)).not.toContain(ALICE);
        }
        expect(await exported(stack, lead)).toContain(BOB);
        if (stack.conversations) {
          expect(await stack.conversations.store.read(SPACE, 'alice')).toBeNull();
          expect(await stack.conversations.archives(SPACE, 'alice')).toEqual([]);
        }
        if (stack.notebook) {
          expect((await stack.notebook.list(alice)).files).toEqual([]);
          expect((await stack.notebook.list({ ...alice, user: 'ada' })).files).toEqual([]);
          expect(await stack.notebook.search(alice, { query: ALICE })).toEqual([]);
        }
        if (facts) expect(await facts.get(SPACE, 'ada')).toEqual([]);
        const aliceSession = agentSessionId('alice', 'chat-1');
        const bobSession = agentSessionId('bob', 'chat-1');
        if (summaries) {
          expect(await summaries.get(SPACE, aliceSession)).toBeNull();
          expect((await summaries.get(SPACE, bobSession))?.summary).toBe(`${BOB} so far`);
        }
        if (sessionState) {
          expect(await sessionState.get(SPACE, aliceSession)).toBeNull();
          expect((await sessionState.get(SPACE, bobSession))?.state).toEqual({ note: BOB });
        }
        if (phases) {
          expect(await phases.history(SPACE, aliceSession)).toEqual([]);
          expect(await phases.history(SPACE, bobSession)).toHaveLength(1);
        }
        if (toolEvents) expect((await toolEvents.list(SPACE, {}, 10)).map((e) => e.id)).toEqual(['ev-bob']);
        if (episodes) {
          expect((await episodes.recent(SPACE, 10)).map((e) => e.id)).toEqual(['ep-b1']);
          expect(await episodes.keywordSearch(SPACE, [ALICE], 10)).toEqual([]);
        }

        // At rest while the stack is still open (a running server): no journal, WAL or old file holds the erased text.
        if (f.raw) await expectNoTrace(name, f.raw, 'while the stack is open, right after forget');
      } catch (error) {
        // The scan after close is not reached: close and clean up here (a leftover database would hold the markers).
        await stack.close().catch(() => {});
        await f.cleanup();
        throw error;
      }
      await stack.close();

      // At rest after close: the raw bytes / rows hold nothing of alice or ada, and still hold bob's data.
      try {
        if (f.raw) await expectNoTrace(name, f.raw, 'after the stack is closed');
      } finally {
        await f.cleanup();
      }
    });
  });
}
