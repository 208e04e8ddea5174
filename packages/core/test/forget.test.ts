import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../src/adapters/hashing-embedder.js';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { createInMemoryNotebookStore } from '../src/adapters/in-memory-notebook.js';
import { createInMemoryStructuredStores } from '../src/adapters/in-memory-structured-stores.js';
import { createInMemoryTranscriptStore } from '../src/adapters/in-memory-transcript.js';
import { agentSessionId, contextSettingsSessionId, openTasksSessionId } from '../src/domain/agent-sessions.js';
import { MemError } from '../src/errors.js';
import { ManualClock } from '../src/ports/clock.js';
import type { Eraser } from '../src/ports/eraser.js';
import { forgetInput } from '../src/schemas-forget.js';
import { episodeAuthor, forget, withEpisodeAuthor } from '../src/services/forget.js';
import { gc } from '../src/services/gc.js';
import { Runner } from '../src/services/runner/runner.js';
import { createStack, type Stack } from '../src/stack.js';
import type { Principal } from '../src/types.js';
import type { Episode } from '../src/types-structured.js';

const lead: Principal = { space: 'acme', agentId: 'lead-1', role: 'lead' };
const alice: Principal = { space: 'acme', agentId: 'alice', role: 'worker' };
const bob: Principal = { space: 'acme', agentId: 'bob', role: 'worker' };
const aliceElsewhere: Principal = { space: 'globex', agentId: 'alice', role: 'worker' };
const MARKER = 'zanzibar-quokka';

function fullStack(): { stack: Stack; notebooks: ReturnType<typeof createInMemoryNotebookStore> } {
  const notebooks = createInMemoryNotebookStore();
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder({ dimension: 64 }),
    clock: new ManualClock('2026-03-01T12:00:00.000Z'),
    structured: createInMemoryStructuredStores(),
    transcripts: createInMemoryTranscriptStore(),
    notebooks,
  });
  return { stack, notebooks };
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<MemError> {
  try {
    await promise;
  } catch (error) {
    expect(MemError.is(error, code as never), String(error)).toBe(true);
    return error as MemError;
  }
  throw new Error(`expected ${code}`);
}

async function exported(stack: Stack, p: Principal): Promise<string> {
  const out: unknown[] = [];
  for await (const r of stack.knowledge.export(p)) out.push(r);
  return JSON.stringify(out);
}

describe('forget (docs/safety.md)', () => {
  it('removes every trace of an agent: memories, versions, ratings, transcript, archives, notebooks', async () => {
    const { stack, notebooks } = fullStack();
    const { knowledge: memory } = stack;
    const notebook = stack.notebook!;
    const conversations = stack.conversations!;

    // Alice: an agent-scope and a swarm-scope memory, one edited and rated.
    const own = await memory.store(alice, { content: `Alice keeps the ${MARKER} deploy checklist.` });
    const shared = await memory.store(alice, { content: `The ${MARKER} service pages on-call.`, scope: 'swarm' });
    await memory.edit(alice, {
      id: own.id,
      intent: 'sharpen',
      content: `Alice keeps the ${MARKER} release checklist.`,
    });
    await memory.rate(alice, { id: shared.id, useful: true, taskId: 't1' });
    // Bob's memories stay.
    const bobs = await memory.store(bob, { content: 'Bob tracks the billing retries.', scope: 'swarm' });
    // Alice in another space stays.
    await memory.store(aliceElsewhere, { content: `Globex ${MARKER} note.` });

    const conv = conversations.open({ space: 'acme', agentId: 'alice' });
    await conv.add('user', `Remember ${MARKER} please.`);
    await conv.compact(`Summary mentioning ${MARKER}.`);
    await conv.add('assistant', `Noted ${MARKER}.`);
    expect(await conversations.archives('acme', 'alice')).toHaveLength(1);
    await conversations.open({ space: 'acme', agentId: 'bob' }).add('user', 'Bob says hello.');

    await notebook.write(alice, { content: `- ${MARKER} main note` });
    await notebook.write(alice, { content: `- ${MARKER} plan`, file: 'plans/q3.md' });
    await notebook.write({ ...alice, user: 'u-1' }, { content: `- ${MARKER} for user u-1` });
    await notebook.write({ ...alice, user: 'u-1', topic: 'billing' }, { content: `- ${MARKER} topic note` });
    await notebook.write(bob, { content: '- bob note' });

    // Episodes: two written by alice, one by bob, one from before authors were recorded.
    const episodes = stack.port('episodes');
    const episode = (id: string, summary: string, metadata: Episode['metadata']): Episode => ({
      id,
      summary,
      keyDecisions: [],
      toolsUsed: [],
      outcome: 'success',
      sessionId: null,
      timestamp: '2026-03-01T12:00:00.000Z',
      tags: [],
      metadata,
    });
    await episodes.insert(
      'acme',
      episode('e1', `Alice shipped ${MARKER}.`, withEpisodeAuthor({}, 'alice').metadata),
      null,
    );
    const second = withEpisodeAuthor({ metadata: { agentId: 'bob', run: 2 } }, 'alice');
    expect(second.metadata).toEqual({ agentId: 'alice', run: 2 });
    await episodes.insert('acme', episode('e2', `Alice fixed ${MARKER}.`, second.metadata), null);
    await episodes.insert('acme', episode('e3', 'Bob paged on-call.', withEpisodeAuthor({}, 'bob').metadata), null);
    await episodes.insert('acme', episode('e4', 'Nobody knows who.', {}), null);
    await episodes.insert('globex', episode('e1', `Globex ${MARKER}.`, withEpisodeAuthor({}, 'alice').metadata), null);

    const report = await forget(stack, lead, { agentId: 'alice' });
    expect(report).toEqual({
      space: 'acme',
      subject: { agentId: 'alice' },
      removed: {
        memories: { documents: 2, chunks: 2, versions: 1, ratings: 1 },
        transcripts: 1,
        archives: 1,
        notebookFiles: 4,
        facts: 0,
        goals: 0,
        episodes: 2,
        users: 0,
        sessions: { summaries: 0, states: 0, phases: 0, toolEvents: 0 },
        proposals: 0,
        graph: { entities: 0, observations: 0, relations: 0, log: 0 },
      },
      skipped: [],
      notes: [expect.stringMatching(/^episodes: 1 episode\(s\) of the space record no writing agent/)],
    });
    expect((await episodes.recent('acme', 10)).map((e) => [e.id, episodeAuthor(e)])).toEqual([
      ['e4', null],
      ['e3', 'bob'],
    ]);
    expect(JSON.stringify(await episodes.recent('acme', 10))).not.toContain(MARKER);
    expect(await episodes.get('globex', 'e1')).not.toBeNull();

    // Nowhere in search (as alice, bob or a lead), export, transcript, archives or notebooks.
    for (const p of [alice, bob, lead]) {
      const hits = await memory.search(p, { query: `${MARKER} checklist service` });
      expect(JSON.stringify(hits)).not.toContain(MARKER);
      expect(await exported(stack, p)).not.toContain(MARKER);
    }
    expect(await stack.knowledgeStore.listVersions('acme', own.id)).toEqual([]);
    expect(await conversations.store.read('acme', 'alice')).toBeNull();
    expect(await conversations.archives('acme', 'alice')).toEqual([]);
    expect(await conversations.agents('acme')).toEqual(['bob']);
    expect(
      JSON.stringify([...notebooks.data.notebooks.entries()].map(([k, v]) => [k, [...v.entries()]])),
    ).not.toContain(MARKER);
    for (const owner of [alice, { ...alice, user: 'u-1' }, { ...alice, user: 'u-1', topic: 'billing' }]) {
      expect((await notebook.list(owner)).files).toEqual([]);
    }

    // Others untouched.
    expect((await memory.get(bob, { id: bobs.id })).content).toBe('Bob tracks the billing retries.');
    expect((await notebook.read(bob, { file: 'MEMORY.md' })).content).toContain('bob note');
    expect(await conversations.store.read('acme', 'bob')).not.toBeNull();
    expect(await exported(stack, aliceElsewhere)).toContain(MARKER);

    // Forgetting again finds nothing.
    const again = await forget(stack, lead, { agentId: 'alice' });
    expect(again.removed.memories).toEqual({ documents: 0, chunks: 0, versions: 0, ratings: 0 });
    expect(
      again.removed.notebookFiles + again.removed.transcripts + again.removed.archives + again.removed.episodes,
    ).toBe(0);
  });

  it("removes an agent's sessions (summaries, states, phases, tool events) and its context settings and open tasks", async () => {
    const { stack } = fullStack();
    const summaries = stack.port('summaries');
    const states = stack.port('sessionState');
    const phases = stack.port('phases');
    const events = stack.port('toolEvents');
    const at = '2026-03-01T12:00:00.000Z';
    // What the doors store for sessions s1 and s2 of alice and s1 of bob (and of alice in another space).
    const write = async (space: string, agentId: string, session: string) => {
      const sessionId = agentSessionId(agentId, session);
      await summaries.save(space, { sessionId, summary: `${MARKER} so far`, messagesCovered: 3, at });
      await states.set(space, sessionId, { step: 2, note: MARKER }, at);
      await phases.set(space, { sessionId, phase: 'planning', metadata: {}, at });
      await phases.set(space, { sessionId, phase: 'execution', metadata: {}, at });
      await events.record(space, {
        id: `${space}-${agentId}-${session}`,
        sessionId,
        tool: 'search',
        input: { q: MARKER },
        output: null,
        latencyMs: 5,
        error: null,
        at,
      });
    };
    await write('acme', 'alice', 's1');
    await write('acme', 'alice', 's2');
    await write('acme', 'bob', 's1');
    // An agent whose name starts with alice's is another agent.
    await write('acme', 'alice2', 's1');
    await write('globex', 'alice', 's1');
    // The two rows the core keeps per agent, written by the real services.
    await stack.conversations!.setContextSettings('acme', 'alice', { contextLength: 8000 });
    await stack.conversations!.setContextSettings('acme', 'bob', { contextLength: 9000 });
    await new Runner(stack).assembleTurn({ principal: alice, task: `ship ${MARKER}`, taskId: 'T-1' });
    expect(await states.get('acme', openTasksSessionId('alice'))).not.toBeNull();

    const report = await forget(stack, lead, { agentId: 'alice' });
    expect(report.removed.sessions).toEqual({ summaries: 2, states: 4, phases: 4, toolEvents: 2 });
    expect(report.skipped).toEqual([]);

    for (const session of ['s1', 's2']) {
      const id = agentSessionId('alice', session);
      expect(await summaries.get('acme', id)).toBeNull();
      expect(await states.get('acme', id)).toBeNull();
      expect(await phases.history('acme', id)).toEqual([]);
      expect(await events.count('acme', { sessionId: id })).toBe(0);
    }
    expect(await states.get('acme', contextSettingsSessionId('alice'))).toBeNull();
    expect(await states.get('acme', openTasksSessionId('alice'))).toBeNull();
    expect((await stack.conversations!.contextSettings('acme', 'alice')).stored).toEqual({});
    // Bob, alice2 and alice in globex keep everything.
    for (const [space, agentId] of [
      ['acme', 'bob'],
      ['acme', 'alice2'],
      ['globex', 'alice'],
    ] as const) {
      const id = agentSessionId(agentId, 's1');
      expect((await summaries.get(space, id))?.summary).toBe(`${MARKER} so far`);
      expect(await states.get(space, id)).not.toBeNull();
      expect(await phases.history(space, id)).toHaveLength(2);
      expect(await events.count(space, { sessionId: id })).toBe(1);
    }
    expect((await stack.conversations!.contextSettings('acme', 'bob')).stored).toEqual({ contextLength: 9000 });

    const again = await forget(stack, lead, { agentId: 'alice' });
    expect(again.removed.sessions).toEqual({ summaries: 0, states: 0, phases: 0, toolEvents: 0 });
  });

  it('removes every fact, goal, user record and per-user notebook of a user', async () => {
    const { stack } = fullStack();
    const facts = stack.port('facts');
    const goals = stack.port('goals');
    const users = stack.port('users');
    const at = '2026-03-01T12:00:00.000Z';
    await facts.upsert('acme', { user: 'u-1', topic: null, key: 'city', value: 'Oslo', source: 'user', at });
    await facts.upsert('acme', { user: 'u-1', topic: 'work', key: 'team', value: 'ops', source: 'user', at });
    await facts.upsert('acme', { user: 'u-2', topic: null, key: 'city', value: 'Rome', source: 'user', at });
    await facts.upsert('globex', { user: 'u-1', topic: null, key: 'city', value: 'Lima', source: 'user', at });
    await goals.setActive('acme', { id: 'g1', user: 'u-1', topic: null, goal: 'ship it', metadata: {}, at });
    await goals.setActive('acme', { id: 'g2', user: 'u-2', topic: null, goal: 'rest', metadata: {}, at });
    await users.ensure('acme', 'u-1', { id: 'int-1', at });
    await users.ensure('acme', 'u-2', { id: 'int-2', at });
    // Per-user notebooks under an agent known from its transcript, and under one that is not.
    await stack.conversations!.open({ space: 'acme', agentId: 'alice' }).add('user', 'hi');
    await stack.notebook!.write({ ...alice, user: 'u-1' }, { content: '- likes tea' });
    await stack.notebook!.write({ ...alice, user: 'u-1', topic: 'work' }, { content: '- on call' });
    await stack.notebook!.write({ ...bob, user: 'u-1' }, { content: '- bob knows u-1' });
    await stack.notebook!.write({ ...alice, user: 'u-2' }, { content: '- u-2 note' });

    const report = await forget(stack, lead, { userId: 'u-1' }, { agents: ['bob'], topics: ['work'] });
    expect(report.subject).toEqual({ userId: 'u-1' });
    expect(report.removed).toEqual({
      memories: { documents: 0, chunks: 0, versions: 0, ratings: 0 },
      transcripts: 0,
      archives: 0,
      notebookFiles: 3,
      facts: 2,
      goals: 1,
      episodes: 0,
      users: 1,
      sessions: { summaries: 0, states: 0, phases: 0, toolEvents: 0 },
      proposals: 0,
      graph: { entities: 0, observations: 0, relations: 0, log: 0 },
    });
    expect(report.skipped).toEqual([]);
    expect(report.notes.some((n) => n.startsWith('notebooks:') && n.includes('alice, bob, lead-1'))).toBe(true);

    expect(await facts.get('acme', 'u-1')).toEqual([]);
    expect(await facts.get('acme', 'u-1', 'work')).toEqual([]);
    expect(await goals.list('acme', 'u-1')).toEqual([]);
    expect(await users.get('acme', 'u-1')).toBeNull();
    expect((await stack.notebook!.list({ ...alice, user: 'u-1' })).files).toEqual([]);
    expect((await stack.notebook!.list({ ...bob, user: 'u-1' })).files).toEqual([]);
    expect((await stack.notebook!.list({ ...alice, user: 'u-1', topic: 'work' })).files).toEqual([]);
    // Others untouched.
    expect(await facts.get('acme', 'u-2')).toHaveLength(1);
    expect(await facts.get('globex', 'u-1')).toHaveLength(1);
    expect(await goals.list('acme', 'u-2')).toHaveLength(1);
    expect(await users.get('acme', 'u-2')).not.toBeNull();
    expect((await stack.notebook!.list({ ...alice, user: 'u-2' })).files).toHaveLength(1);
  });

  it('is lead only, needs exactly one subject, and checks names', async () => {
    const { stack } = fullStack();
    await stack.knowledge.store(alice, { content: 'Still here.' });
    const e = await expectCode(forget(stack, alice, { agentId: 'alice' }), 'FORBIDDEN');
    expect(e.message).toMatch(/lead/);
    await expectCode(forget(stack, lead, {}), 'INVALID_INPUT');
    await expectCode(forget(stack, lead, { agentId: 'alice', userId: 'u-1' }), 'INVALID_INPUT');
    await expectCode(forget(stack, lead, { agentId: '../etc' }), 'INVALID_INPUT');
    await expectCode(forget(stack, lead, { userId: 'a/b' }), 'INVALID_INPUT');
    await expectCode(forget(stack, lead, { userId: 'u-1' }, { agents: ['..'] }), 'INVALID_INPUT');
    expect((await stack.knowledge.stats(alice)).documents).toBe(1);
    expect(forgetInput.safeParse({ agentId: 'alice' }).success).toBe(true);
    expect(forgetInput.safeParse({ userId: 'u-1' }).success).toBe(true);
    expect(forgetInput.safeParse({}).success).toBe(false);
    expect(forgetInput.safeParse({ agentId: 'a', userId: 'b' }).success).toBe(false);
    expect(forgetInput.safeParse({ agentId: 'a', extra: 1 }).success).toBe(false);
  });

  it('reports the ports a stack lacks and removes what it can', async () => {
    const stack = createStack({ knowledge: createInMemoryKnowledgeStore() });
    await stack.knowledge.store(alice, { content: 'Alice alone.' });
    const agent = await forget(stack, lead, { agentId: 'alice' });
    expect(agent.removed.memories.documents).toBe(1);
    expect(agent.skipped).toEqual([
      'transcripts',
      'notebooks',
      'episodes',
      'graph',
      'summaries',
      'sessionState',
      'phases',
      'toolEvents',
    ]);
    expect(agent.removed.sessions).toEqual({ summaries: 0, states: 0, phases: 0, toolEvents: 0 });
    const user = await forget(stack, lead, { userId: 'u-1' });
    expect(user.skipped).toEqual(['facts', 'goals', 'users', 'graph', 'notebooks']);
    expect(user.removed.facts + user.removed.goals + user.removed.users).toBe(0);
  });

  it('then runs each eraser of the stack once per storage, after the deletes, and reports its notes', async () => {
    const calls: string[] = [];
    const eraser = (target: string, notes: string[] = []): Eraser => ({
      target,
      async eraseDeleted() {
        calls.push(target);
        return notes;
      },
    });
    const knowledge = Object.assign(createInMemoryKnowledgeStore(), { eraser: eraser('db:one') });
    const transcripts = Object.assign(createInMemoryTranscriptStore(), { eraser: eraser('db:one') });
    const structured = Object.assign(createInMemoryStructuredStores(), { eraser: eraser('db:two', ['kept: x']) });
    const stack = createStack({ knowledge, transcripts, structured });
    expect(stack.erasers.map((e) => e.target)).toEqual(['db:one', 'db:two']);
    await stack.knowledge.store(alice, { content: 'Alice alone.' });
    const deleteByAgent = knowledge.deleteByAgent.bind(knowledge);
    knowledge.deleteByAgent = async (space, agentId) => {
      expect(calls).toEqual([]);
      return deleteByAgent(space, agentId);
    };
    const agent = await forget(stack, lead, { agentId: 'alice' });
    expect(calls).toEqual(['db:one', 'db:two']);
    expect(agent.notes).toContain('kept: x');
    await forget(stack, lead, { userId: 'u-1' });
    expect(calls).toHaveLength(4);
    // An eraser that fails fails the forget (the deletes stand; a retry erases again).
    const failing = createStack({
      knowledge: Object.assign(createInMemoryKnowledgeStore(), {
        eraser: {
          target: 'db:busy',
          eraseDeleted: () => Promise.reject(new MemError('STORE_UNAVAILABLE', 'busy', { retryable: true })),
        },
      }),
    });
    await expectCode(forget(failing, lead, { agentId: 'alice' }), 'STORE_UNAVAILABLE');
    expect(createStack({ knowledge: createInMemoryKnowledgeStore() }).erasers).toEqual([]);
  });
});

describe('gc: archive retention (docs/lifecycles.md)', () => {
  async function withArchives(): Promise<{ stack: Stack; clock: ManualClock }> {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      clock,
      transcripts: createInMemoryTranscriptStore(),
    });
    // alice: 4 archives, 10 days apart; bob: 1 archive at the start.
    for (const agentId of ['alice', 'bob']) {
      const conv = stack.conversations!.open({ space: 'acme', agentId });
      for (let i = 0; i < (agentId === 'alice' ? 4 : 1); i++) {
        await conv.add('user', `turn ${i} of ${agentId}`);
        await conv.compact(`summary ${i}`);
        clock.advance(10 * 86_400_000);
      }
    }
    return { stack, clock };
  }
  const count = async (stack: Stack, agent: string) => (await stack.conversations!.archives('acme', agent)).length;

  it('keeps archives forever by default, and says so', async () => {
    const { stack } = await withArchives();
    const r = await gc(stack, lead);
    expect(r).toEqual({
      deletedChunks: 0,
      archives: {
        policy: { maxAgeDays: null, maxCount: null },
        agents: 0,
        deleted: 0,
        skipped: 'no retention policy: archives are kept forever',
      },
    });
    expect(await count(stack, 'alice')).toBe(4);
  });

  it('a lead prunes every agent by max count and by max age; a worker only its own', async () => {
    const { stack } = await withArchives();
    // A worker prunes only itself.
    const mine = await gc(stack, bob, { archiveMaxCount: 0 });
    expect(mine.archives).toMatchObject({ agents: 1, deleted: 1 });
    expect(await count(stack, 'bob')).toBe(0);
    expect(await count(stack, 'alice')).toBe(4);
    // Keep the newest 3.
    const byCount = await gc(stack, lead, { archiveMaxCount: 3 });
    expect(byCount.archives).toEqual({ policy: { maxAgeDays: null, maxCount: 3 }, agents: 2, deleted: 1 });
    expect(await count(stack, 'alice')).toBe(3);
    // Now is 2026-02-20; archives were taken Jan 1 (gone), Jan 11, Jan 21, Jan 31. Older than 25 days: Jan 11, Jan 21.
    const byAge = await gc(stack, lead, { archiveMaxAgeDays: 25 });
    expect(byAge.archives.deleted).toBe(2);
    const left = await stack.conversations!.archives('acme', 'alice');
    expect(left.map((a) => a.archivedAt.slice(0, 10))).toEqual(['2026-01-31']);
    // The transcript itself is never touched.
    expect(await stack.conversations!.store.read('acme', 'alice')).not.toBeNull();
  });

  it('uses the stack retention as the default, and refuses a bad policy', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      clock,
      transcripts: createInMemoryTranscriptStore(),
      conversation: { retention: { maxAgeDays: null, maxCount: 1 } },
    });
    const conv = stack.conversations!.open({
      space: 'acme',
      agentId: 'alice',
      options: { retention: { maxAgeDays: null, maxCount: null } },
    });
    for (let i = 0; i < 3; i++) {
      await conv.add('user', `turn ${i}`);
      await conv.compact(`summary ${i}`);
      clock.advance(1000);
    }
    expect(await count(stack, 'alice')).toBe(3);
    expect((await gc(stack, lead)).archives).toEqual({
      policy: { maxAgeDays: null, maxCount: 1 },
      agents: 1,
      deleted: 2,
    });
    for (const bad of [{ archiveMaxCount: -1 }, { archiveMaxAgeDays: 1.5 }, { archiveMaxCount: 'x' }, { other: 1 }]) {
      await expectCode(gc(stack, lead, bad as never), 'INVALID_INPUT');
    }
    const noTranscripts = createStack({ knowledge: createInMemoryKnowledgeStore() });
    expect((await gc(noTranscripts, lead, { archiveMaxCount: 1 })).archives.skipped).toBe(
      'this stack has no transcript store',
    );
  });
});
