/**
 * Memory that forms itself through the `mem` command, offline, each call its own process on one SQLite file: a changed
 * preference supersedes the old one, `--as-of` answers as it stood, `mem why` names both turns, `--user` keeps it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-distill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const said = (name: string, id: string, content: string, at: string) => {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify({ id, role: 'user', content, at })}\n`);
  return file;
};

describe('mem distill, search --as-of and why', () => {
  it('keeps the afternoon as current, the morning as history, and says why', async () => {
    const env = { MEM_EMBEDDER: 'hashing', MEM_USER: 'ana' };
    const first = said('1.jsonl', 'turn-1', 'I prefer morning flights.', '2026-03-02T09:00:00Z');
    const second = said('2.jsonl', 'turn-2', 'Actually, afternoon flights suit me better now.', '2026-03-09T09:00:00Z');
    const a = await runCli(['distill', '--file', first, '--json'], dir, env);
    expect(a.code, a.stderr).toBe(0);
    expect(a.json().decisions).toMatchObject([{ decision: 'add', evidence: ['turn-1'] }]);
    const b = await runCli(['distill', '--file', second], dir, env);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('~ update');

    const now = await runCli(['search', 'flights', '--json'], dir, env);
    expect(now.json().results.map((r: { content: string }) => r.content)).toEqual(['User prefers afternoon flights.']);
    const then = await runCli(['search', 'flights', '--as-of', '2026-03-05', '--json'], dir, env);
    expect(then.json().results.map((r: { content: string }) => r.content)).toEqual(['User prefers morning flights.']);
    const all = await runCli(['search', 'flights', '--history', '--json'], dir, env);
    expect(all.json().results).toHaveLength(2);

    const current = now.json().results[0].id as string;
    const why = await runCli(['why', current, '--json'], dir, env);
    expect(why.json().evidence).toEqual(['turn-1', 'turn-2']);
    expect(why.json().chain.map((c: { current: boolean }) => c.current)).toEqual([false, true]);
    const human = await runCli(['why', current], dir, env);
    expect(human.stdout).toContain('Chain (oldest first):');

    // Another user, or no user, does not see what was formed about ana.
    const other = await runCli(['search', 'flights', '--json', '--user', 'ben'], dir, { MEM_EMBEDDER: 'hashing' });
    expect(other.json().results).toEqual([]);
    const bad = await runCli(['distill', '--file', join(dir, 'missing.jsonl')], dir, env);
    expect(bad.code).not.toBe(0);
  });

  it('review mode: the proposal waits, is listed, approved or rejected, each its own process', async () => {
    const env = { MEM_EMBEDDER: 'hashing', MEM_USER: 'cy', MEM_AGENT: 'desk' };
    const jazz = said('r1.jsonl', 'rv-1', 'I love jazz.', '2026-03-02T09:00:00Z');
    const kept = await runCli(['distill', '--file', jazz, '--review'], dir, env);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain('1 proposal(s) wait for approval: mem distill review');
    const olives = said('r2.jsonl', 'rv-2', 'I hate olives.', '2026-03-02T09:05:00Z');
    expect((await runCli(['distill', '--file', olives, '--review', '--json'], dir, env)).json().queued).toHaveLength(1);

    const listed = await runCli(['distill', 'review', '--json'], dir, env);
    expect(listed.code, listed.stderr).toBe(0);
    const items = listed.json().items as { id: string; text: string; decision: string }[];
    expect(items.map((x) => [x.decision, x.text])).toEqual([
      ['add', 'User loves jazz.'],
      ['add', 'User hates olives.'],
    ]);
    expect((await runCli(['search', 'jazz olives', '--json'], dir, env)).json().results).toEqual([]);

    const ok = await runCli(['distill', 'approve', items[0]!.id], dir, env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Approved 1 proposal.');
    const no = await runCli(['distill', 'reject', items[1]!.id, '--json'], dir, env);
    expect(no.json().ids).toEqual([items[1]!.id]);
    const found = await runCli(['search', 'jazz olives', '--json'], dir, env);
    expect(found.json().results.map((r: { content: string }) => r.content)).toEqual(['User loves jazz.']);
    expect((await runCli(['distill', 'review', '--json'], dir, env)).json().items).toEqual([]);

    const again = await runCli(['distill', 'approve', items[1]!.id], dir, env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('NOT_FOUND');
    const none = await runCli(['distill', 'approve'], dir, env);
    expect(none.code).toBe(2);

    // MEM_DISTILL_REVIEW=on: every distillation keeps its proposals, no flag needed.
    const tea = said('r3.jsonl', 'rv-3', 'I love green tea.', '2026-03-02T09:10:00Z');
    const byEnv = await runCli(['distill', '--file', tea, '--json'], dir, { ...env, MEM_DISTILL_REVIEW: 'on' });
    expect(byEnv.json().queued).toHaveLength(1);
    const bad = await runCli(['distill', '--file', tea], dir, { ...env, MEM_DISTILL_REVIEW: 'yes' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MEM_DISTILL_REVIEW');
  });
});
