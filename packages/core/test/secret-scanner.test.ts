/**
 * The stack's optional asynchronous secret scanner (ports/secret-scanner.ts), with a small scanner written here (the
 * secretlint one is tested in @mem/secrets-secretlint): every write path awaits it after mem's own rules, refuses
 * with mem's SECRET_DETECTED shape and changes nothing; transcripts redact; a failing scanner writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { createInMemoryNotebookStore } from '../src/adapters/in-memory-notebook.js';
import { createInMemoryStructuredStores } from '../src/adapters/in-memory-structured-stores.js';
import { createInMemoryTranscriptStore } from '../src/adapters/in-memory-transcript.js';
import { MemError } from '../src/errors.js';
import type { SecretScanFinding, SecretScanner, SecretScanText } from '../src/ports/secret-scanner.js';
import { createStack } from '../src/stack.js';
import type { Principal } from '../src/types.js';

const lead: Principal = { space: 'acme', agentId: 'lead1', role: 'lead' };
// A made-up credential format no rule of mem knows: "zq" + "tok-" + 20 letters.
const MARK = ['zq', 'tok-'].join('');
const token = `${MARK}${'k'.repeat(20)}`;

/** Finds MARK + 20 letters; counts its calls and the texts of each. */
function markScanner(): SecretScanner & { calls: SecretScanText[][] } {
  const calls: SecretScanText[][] = [];
  return {
    id: 'marks',
    calls,
    async scan(texts) {
      calls.push([...texts]);
      const out: SecretScanFinding[] = [];
      for (const [i, t] of texts.entries()) {
        for (const m of t.text.matchAll(new RegExp(`${MARK}[a-z]{20}`, 'g')))
          out.push({ text: i, kind: 'zq-token', label: 'ZQ token', index: m.index, length: m[0].length });
      }
      return out;
    },
  };
}

function stackWith(scanner: SecretScanner) {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    structured: createInMemoryStructuredStores(),
    notebooks: createInMemoryNotebookStore(),
    transcripts: createInMemoryTranscriptStore(),
    secretScanner: scanner,
  });
}

async function refused(promise: Promise<unknown>): Promise<MemError> {
  const e = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(MemError.is(e, 'SECRET_DETECTED'), String(e)).toBe(true);
  const err = e as MemError;
  expect(err.message).not.toContain(token);
  return err;
}

describe('the secret scanner of a stack', () => {
  it("scans every field of a store in one call, after mem's own rules, and refuses in their shape", async () => {
    const scanner = markScanner();
    const s = stackWith(scanner);
    const e = await refused(
      s.knowledge.store(lead, { content: `line one\nthen ${token}`, name: 'n', tags: ['a', 'b'] }),
    );
    expect(e.message).toBe(
      'Refused: the content contains a secret: ZQ token (zq-token, found by marks) at line 2, column 6. Memory must never hold credentials: remove the secret (or replace it with a reference such as "the key in the team vault") and store again.',
    );
    expect(e.details).toEqual({ findings: [{ kind: 'zq-token', line: 2, column: 6, scanner: 'marks' }] });
    expect(scanner.calls.at(-1)!.map((t) => t.what)).toEqual(['content', 'name', 'tag', 'tag']);
    // mem's own rules run first: a credential they know never reaches the scanner.
    const before = scanner.calls.length;
    await refused(s.knowledge.store(lead, { content: `key ${['AKIA', 'Z'.repeat(16)].join('')}` }));
    expect(scanner.calls.length).toBe(before);
    expect((await s.knowledgeStore.stats('acme')).documents).toBe(0);
  });

  it('guards edits (content, intent, key move), ratings, index updates, notebooks, facts, episodes and procedures', async () => {
    const s = stackWith(markScanner());
    const doc = await s.knowledge.store(lead, { content: 'the build takes ten minutes', key: '/projects/build' });
    await refused(s.knowledge.edit(lead, { id: doc.id, content: `the build uses ${token}`, intent: 'update' }));
    await refused(s.knowledge.edit(lead, { id: doc.id, content: 'the build takes nine minutes', intent: token }));
    await refused(s.knowledge.edit(lead, { id: doc.id, newKey: '/projects/build2', intent: `moved ${token}` }));
    await refused(s.knowledge.rate(lead, { id: doc.id, useful: true, taskId: `task-${token}` }));
    const got = await s.knowledge.get(lead, { id: doc.id });
    expect([got.content, got.key]).toEqual(['the build takes ten minutes', '/projects/build']);
    await s.knowledge.index(lead, { sourcePath: 'docs/a.md', content: 'first version' });
    await refused(s.knowledge.index(lead, { sourcePath: 'docs/a.md', content: `second ${token}` }));
    expect((await s.knowledge.search(lead, { query: 'version' }))[0]?.content).toBe('first version');

    await refused(s.notebook!.write({ space: 'acme', agentId: 'lead1' }, { content: `note ${token}` }));
    await refused(s.notebook!.write({ space: 'acme', agentId: 'lead1' }, { content: 'ok', file: `${token}.md` }));
    expect(await s.notebook!.store.list({ space: 'acme', agent: 'lead1' })).toEqual([]);

    const at = '2026-03-01T12:00:00.000Z';
    await refused(
      s.port('facts').upsert('acme', { user: 'u1', topic: null, key: 'k', value: [token], source: 'user', at }),
    );
    expect(await s.port('facts').get('acme', 'u1')).toEqual([]);
    const episode = {
      id: 'e1',
      summary: 'deployed',
      keyDecisions: [],
      toolsUsed: [`shell ${token}`],
      outcome: 'success' as const,
      sessionId: null,
      timestamp: at,
      tags: [],
      metadata: {},
    };
    const err = await refused(s.port('episodes').insert('acme', episode, null));
    expect(err.message).toContain('episode tool name');
    expect(await s.port('episodes').count('acme')).toBe(0);
    const procedure = {
      id: 'p1',
      name: 'deploy',
      description: 'how to deploy',
      trigger: 'on release',
      steps: [{ toolName: 'shell', argsTemplate: { cmd: `login ${token}` }, expectedOutcome: 'ok' }],
      successCount: 0,
      failureCount: 0,
      tags: [],
      metadata: {},
      createdAt: at,
      updatedAt: at,
    };
    await refused(s.port('procedures').insert('acme', procedure, null));
    expect(await s.port('procedures').count('acme')).toBe(0);
    // Other methods of the wrapped ports pass through.
    await s.port('episodes').insert('acme', { ...episode, toolsUsed: ['shell'] }, null);
    expect((await s.port('episodes').get('acme', 'e1'))?.toolsUsed).toEqual(['shell']);
  });

  it('redacts what it finds in transcript turns and summaries, in one call per batch of turns', async () => {
    const scanner = markScanner();
    const s = stackWith(scanner);
    const convo = s.conversations!.open({ space: 'acme', agentId: 'coder' });
    const before = scanner.calls.length;
    const added = await convo.addMany([
      { role: 'user', content: `a ${token} b` },
      { role: 'assistant', content: 'fine' },
    ]);
    expect(added.map((m) => m.content)).toEqual(['a [REDACTED:zq-token] b', 'fine']);
    expect(scanner.calls.length).toBe(before + 1);
    await convo.compact(`the user shared ${token}`);
    const t = await s.conversations!.store.read('acme', 'coder');
    expect(JSON.stringify(t)).not.toContain(token);
    expect(JSON.stringify(t)).toContain('[REDACTED:zq-token]');
  });

  it('a scanner that fails refuses the write with INTERNAL naming it, and nothing is written', async () => {
    const broken: SecretScanner = {
      id: 'broken',
      scan: async () => {
        throw new Error('rules did not load');
      },
    };
    const s = stackWith(broken);
    const e = await s.knowledge.store(lead, { content: 'plain text' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(MemError.is(e, 'INTERNAL')).toBe(true);
    expect((e as MemError).message).toContain(
      'The secret scanner "broken" failed, so nothing was written: rules did not load',
    );
    expect((await s.knowledgeStore.stats('acme')).documents).toBe(0);
  });
});
