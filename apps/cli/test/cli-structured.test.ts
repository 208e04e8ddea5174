import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-cli-structured-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mem(args: string[], opts: { stdin?: string; store?: string } = {}) {
  const env = { MEM_DB: join(dir, 'structured.db'), MEM_EMBEDDER: 'hashing', MEM_STORE: opts.store ?? 'sqlite' };
  return runCli(args, dir, env, opts.stdin ?? '');
}

describe('mem facts / episodes / procedures / consolidate', () => {
  it('keeps fact priority and merges topic facts over global ones', async () => {
    expect((await mem(['facts', 'set', 'tz', '"Europe/Paris"', '--user', 'ada', '--json'])).json().status).toBe(
      'created',
    );
    const lower = await mem(['facts', 'set', 'tz', '"UTC"', '--user', 'ada', '--source', 'ai_inferred', '--json']);
    expect(lower.json()).toMatchObject({ status: 'kept', fact: { value: 'Europe/Paris', source: 'user' } });
    await mem(['facts', 'set', 'editor', 'vim', '--user', 'ada']);
    await mem(['facts', 'set', 'editor', '"emacs"', '--user', 'ada', '--topic', 'work']);
    expect((await mem(['facts', 'get', '--user', 'ada', '--json'])).json()).toEqual({
      tz: 'Europe/Paris',
      editor: 'vim',
    });
    expect((await mem(['facts', 'get', '--user', 'ada', '--topic', 'work', '--json'])).json()).toEqual({
      tz: 'Europe/Paris',
      editor: 'emacs',
    });
    const secret = await mem(['facts', 'set', 'token', '"ghp_abcdefghijklmnopqrstuvwxyz0123456789"', '--user', 'ada']);
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain('SECRET_DETECTED');
    expect((await mem(['facts', 'set', 'k', '1'])).code).toBe(2);
    expect((await mem(['facts', 'frob'])).code).toBe(2);
  });

  it('records and recalls episodes; consolidation adds facts once', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await mem([
        'episodes',
        'add',
        `Rolled out release ${i} to production`,
        '--tools',
        'deploy,kubectl',
        '--outcome',
        'success',
        '--tags',
        'deploy',
        '--decisions',
        'canary first;watch errors',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    await mem(['episodes', 'add', 'Wrote the deployment guide', '--tags', 'deployment', '--outcome', 'success']);
    const recall = (await mem(['episodes', 'recall', 'production release rollout', '--json'])).json().results;
    expect(recall[0].episode.summary).toMatch(/Rolled out release/);
    expect((await mem(['episodes', 'by-tag', 'deploy', '--json'])).json().episodes).toHaveLength(4);
    expect((await mem(['episodes', 'recent', '--n', '2', '--json'])).json().episodes[0].summary).toBe(
      'Wrote the deployment guide',
    );
    // A worker may not consolidate (it writes facts for the whole space): exit 1, FORBIDDEN, nothing written.
    const refused = await mem(['consolidate', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FORBIDDEN');
    expect(refused.stderr).toContain('--role lead');
    const first = (await mem(['consolidate', '--role', 'lead', '--json'])).json();
    expect(first.newFacts).toBeGreaterThanOrEqual(2);
    expect(first.facts.map((f: { key: string }) => f.key)).toEqual(
      expect.arrayContaining(['tool.deploy.success-usage', 'tag.deploy.success-ratio']),
    );
    const second = (await mem(['consolidate', '--role', 'lead', '--json'])).json();
    expect(second.newFacts).toBe(0);
    expect(
      (await mem(['facts', 'get', '--user', 'agent', '--key', 'tool.deploy.success-usage', '--json'])).json().source,
    ).toBe('ai_inferred');
  });

  it('suggests procedures that succeed above ones that fail', async () => {
    const file = join(dir, 'proc.json');
    const ids: string[] = [];
    for (const name of ['Rotate TLS certificates with certbot', 'Rotate TLS certificates by hand']) {
      writeFileSync(
        file,
        JSON.stringify({
          name,
          description: 'Renew and rotate expiring TLS certificates',
          trigger: 'certificate expires',
          steps: [{ toolName: 'shell', argsTemplate: { cmd: 'renew' } }],
        }),
      );
      ids.push((await mem(['procedures', 'add', file, '--json'])).json().id);
    }
    for (let i = 0; i < 3; i++) {
      await mem(['procedures', 'outcome', ids[1]!, '--success', 'true']);
      await mem(['procedures', 'outcome', ids[0]!, '--success', 'false']);
    }
    const list = (await mem(['procedures', 'suggest', 'rotate expiring TLS certificates', '--json'])).json().results;
    expect(list[0].procedure.id).toBe(ids[1]);
    expect(list[0].successRate).toBe(1);
    expect((await mem(['procedures', 'show', ids[0]!, '--json'])).json()).toMatchObject({
      failureCount: 3,
      successCount: 0,
    });
    const bad = await mem(['procedures', 'add', '-'], { stdin: '{"name": "x"}' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('INVALID_INPUT');
    expect((await mem(['procedures', 'outcome', 'nope', '--success', 'true'])).stderr).toContain('NOT_FOUND');
  });
});

describe('mem forget', () => {
  it('removes an agent (lead only) and a user, leaving others alone', async () => {
    const db = { MEM_DB: join(dir, 'forget.db') };
    const asAgent = (agent: string, role = 'worker') => ({ ...db, MEM_AGENT: agent, MEM_ROLE: role });
    const run2 = (args: string[], env: Record<string, string>) =>
      runCli(args, dir, { MEM_EMBEDDER: 'hashing', MEM_WORKSPACE_DIR: join(dir, 'forget-ws'), ...env });
    await run2(['store', 'Marker-okapi-7 from alice.'], asAgent('alice'));
    await run2(['store', 'Bob keeps this.'], asAgent('bob'));
    await run2(['notes', 'write', 'Marker-okapi-7 in the notebook.'], asAgent('alice'));
    await run2(['convo', 'add', 'Marker-okapi-7 in the transcript.', '--role', 'user'], asAgent('alice'));
    await run2(['facts', 'set', 'pet', 'okapi', '--user', 'ada'], asAgent('alice'));
    await run2(['episodes', 'add', 'Alice shipped Marker-okapi-7.', '--outcome', 'success'], asAgent('alice'));
    await run2(['episodes', 'add', 'Bob paged on-call.', '--outcome', 'success'], asAgent('bob'));
    for (const who of ['alice', 'bob']) {
      expect((await run2(['session-state', 'set', 's1', `{"who":"${who}"}`], asAgent(who))).code).toBe(0);
      expect((await run2(['phases', 'set', 's1', 'planning'], asAgent(who))).code).toBe(0);
    }
    const denied = await run2(['forget', '--agent', 'alice'], asAgent('alice'));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('FORBIDDEN');
    expect((await run2(['forget'], asAgent('boss', 'lead'))).code).toBe(2);
    const r = await run2(['forget', '--agent', 'alice', '--json'], asAgent('boss', 'lead'));
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.removed.memories.documents).toBe(1);
    expect(report.removed.transcripts).toBe(1);
    expect(report.removed.notebookFiles).toBeGreaterThanOrEqual(1);
    expect(report.removed.episodes).toBe(1);
    expect(report.removed.sessions).toEqual({ summaries: 0, states: 1, phases: 1, toolEvents: 0 });
    const aliceState = await run2(['session-state', 'get', 's1', '--json'], asAgent('alice'));
    expect(JSON.parse(aliceState.stdout).state).toBeNull();
    const bobState = await run2(['session-state', 'get', 's1', '--json'], asAgent('bob'));
    expect(JSON.parse(bobState.stdout).state.state).toEqual({ who: 'bob' });
    const episodes = (await run2(['episodes', 'recent', '--json'], asAgent('boss', 'lead'))).stdout;
    expect(episodes).not.toContain('Marker-okapi-7');
    expect(episodes).toContain('Bob paged on-call.');
    const exported = (await run2(['export'], asAgent('boss', 'lead'))).stdout;
    expect(exported).not.toContain('Marker-okapi-7');
    expect(exported).toContain('Bob keeps this.');
    expect((await run2(['convo', 'show'], asAgent('alice'))).stdout).not.toContain('Marker-okapi-7');
    expect((await run2(['notes', 'read'], asAgent('alice'))).stdout).not.toContain('Marker-okapi-7');
    const u = JSON.parse((await run2(['forget', '--user', 'ada', '--json'], asAgent('boss', 'lead'))).stdout);
    expect(u.removed.facts).toBe(1);
    // The text report names the sessions too.
    const text = await run2(['forget', '--agent', 'bob'], asAgent('boss', 'lead'));
    expect(text.stdout).toContain('sessions: summaries 0, states 1, phases 1, tool events 0');
  });
});

describe('mem forget --message', () => {
  it('removes the memories that rest only on the messages, keeps the rest, and refuses a bad line', async () => {
    const env = { MEM_DB: join(dir, 'forget-messages.db'), MEM_EMBEDDER: 'hashing', MEM_AGENT: 'travel' };
    const as = (args: string[], extra: Record<string, string>) => runCli(args, dir, { ...env, ...extra });
    const ana = { MEM_USER: 'ana' };
    const boss = { MEM_AGENT: 'boss', MEM_ROLE: 'lead' };
    const file = join(dir, 'forget-messages.jsonl');
    const line = (id: string, content: string) =>
      JSON.stringify({ id, role: 'user', content, at: '2026-03-02T09:00:00Z' });
    writeFileSync(
      file,
      `${[line('m1', 'I live in Lisbon. I have a dog named Rex.'), line('m2', 'I am allergic to peanuts.'), line('m3', 'As I said, I live in Lisbon')].join('\n')}\n`,
    );
    const distilled = await as(['distill', '--file', file, '--json'], ana);
    expect(distilled.code, distilled.stderr).toBe(0);
    const decisions = JSON.parse(distilled.stdout).decisions as { memoryId: string; value: string }[];
    const id = (value: string) => decisions.find((d) => d.value === value)!.memoryId;

    expect((await as(['forget', '--message', 'm1'], ana)).stderr).toContain('FORBIDDEN');
    expect((await as(['forget', '--message', 'm1', '--agent', 'travel'], boss)).code).toBe(2);
    const empty = await as(['forget', '--message', ''], boss);
    expect([empty.code, empty.stderr.includes('INVALID_INPUT')]).toEqual([1, true]);

    const r = await as(['forget', '--message', 'm1', '--message', 'm2', '--json'], boss);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.subject).toEqual({ messages: ['m1', 'm2'] });
    expect(report.removed.memories).toMatchObject({ documents: 2, chunks: 2 });
    expect(report.notes.join('\n')).toContain('1 formed memory citing these messages was kept');
    for (const gone of ['Rex', 'peanuts']) expect((await as(['why', id(gone)], ana)).stderr).toContain('NOT_FOUND');
    const why = await as(['why', id('Lisbon'), '--json'], ana);
    expect(JSON.parse(why.stdout).evidence).toEqual(['m1', 'm3']);
    // The memory that stayed still cites m1 in its log: m3 alone is not all of its evidence, m1 with m3 is.
    const alone = await as(['forget', '--message', 'm3'], boss);
    expect(alone.stdout).toContain('Forgot what rests only on 1 message(s) in space default:');
    expect(alone.stdout).toContain('memories 0 (0 chunks');
    const text = await as(['forget', '--message', 'm3', '--message', 'm1'], boss);
    expect(text.stdout).toContain('memories 1 (1 chunks');
    expect((await as(['why', id('Lisbon')], ana)).stderr).toContain('NOT_FOUND');
  });
});

describe('mem gc', () => {
  it('prunes transcript archives by max count and max age; keeps them by default', async () => {
    const env = { MEM_DB: join(dir, 'gc.db'), MEM_WORKSPACE_DIR: join(dir, 'gc-ws'), MEM_EMBEDDER: 'hashing' };
    const as = (agent: string, role = 'worker') => ({ ...env, MEM_AGENT: agent, MEM_ROLE: role });
    const run2 = (args: string[], e: Record<string, string>) => runCli(args, dir, e);
    for (const agent of ['alice', 'bob']) {
      for (let i = 0; i < 3; i++) {
        expect((await run2(['convo', 'add', `turn ${i}`, '--role', 'user'], as(agent))).code).toBe(0);
        expect((await run2(['convo', 'compact', '--summary', `summary ${i}`], as(agent))).code).toBe(0);
      }
    }
    const archives = async (agent: string) =>
      JSON.parse((await run2(['convo', 'archives', '--json'], as(agent))).stdout) as
        | unknown[]
        | { archives: unknown[] };
    const count = async (agent: string) => {
      const a = await archives(agent);
      return Array.isArray(a) ? a.length : a.archives.length;
    };
    expect(await count('alice')).toBe(3);
    const kept = JSON.parse((await run2(['gc', '--json'], as('boss', 'lead'))).stdout);
    expect(kept.archives).toMatchObject({ deleted: 0, skipped: expect.stringContaining('kept forever') });
    // A worker prunes only its own archives.
    const mine = JSON.parse((await run2(['gc', '--archive-max-count', '1', '--json'], as('bob'))).stdout);
    expect(mine.archives).toMatchObject({ agents: 1, deleted: 2 });
    expect([await count('alice'), await count('bob')]).toEqual([3, 1]);
    // A lead prunes every agent; max age 0 days removes every archive taken before now.
    const lead = await run2(['gc', '--archive-max-count', '2'], as('boss', 'lead'));
    expect(lead.stdout).toContain('Archives: deleted 1 of 2 agents');
    const all = JSON.parse((await run2(['gc', '--archive-max-age-days', '0', '--json'], as('boss', 'lead'))).stdout);
    expect(all.archives.deleted).toBe(3);
    expect([await count('alice'), await count('bob')]).toEqual([0, 0]);
    expect((await run2(['convo', 'show'], as('alice'))).stdout).toContain('summary 2');
    const bad = await run2(['gc', '--archive-max-age-days', '99999999'], as('boss', 'lead'));
    expect([bad.code, bad.stderr.includes('INVALID_INPUT')]).toEqual([1, true]);
    expect((await run2(['gc', '--archive-max-count', 'many'], as('boss', 'lead'))).code).toBe(2);
  });
});
