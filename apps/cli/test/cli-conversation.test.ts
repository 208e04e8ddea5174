import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-cli-convo-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mem = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, dir, {
    MEM_DB: join(dir, 'mem.db'),
    MEM_EMBEDDER: 'hashing',
    MEM_WORKSPACE_DIR: join(dir, 'ws'),
    ...env,
  });

for (const transcripts of ['markdown', 'store'] as const) {
  describe(`mem convo / notes (--transcripts ${transcripts})`, () => {
    const env = { MEM_TRANSCRIPTS: transcripts, MEM_AGENT: `agent-${transcripts}` };

    it('appends, shows, assembles context, compacts and lists archives', async () => {
      expect((await mem(['convo', 'add', 'Please deploy the billing service.', '--role', 'user'], env)).code).toBe(0);
      await mem(
        [
          'convo',
          'add',
          'Deployed billing v2 to staging; token ghp_abcdefghijklmnopqrstuvwxyz0123456789 used.',
          '--role',
          'assistant',
        ],
        env,
      );
      const shown = await mem(['convo', 'show'], env);
      expect(shown.stdout).toMatch(/user: Please deploy the billing service\./);
      expect(shown.stdout).toContain('[REDACTED:github-token]');
      expect(shown.stdout).not.toContain('ghp_abc');
      const ctx = (
        await mem(
          ['convo', 'context', '--system', 'You are the release bot.', '--turn', 'What is deployed?', '--json'],
          env,
        )
      ).json();
      expect(ctx.messages[0]).toEqual({ role: 'system', content: 'You are the release bot.' });
      expect(ctx.messages.at(-1).content).toContain('What is deployed?');
      const compacted = (
        await mem(['convo', 'compact', '--summary', 'Billing v2 is on staging.', '--json'], env)
      ).json();
      expect(compacted.status).toBe('compacted');
      const archives = (await mem(['convo', 'archives', '--json'], env)).json().archives;
      expect(archives).toHaveLength(1);
      const archived = (await mem(['convo', 'archives', '--read', archives[0].id, '--json'], env)).json();
      expect(archived.messages.map((m: { content: string }) => m.content).join('\n')).toContain(
        'Please deploy the billing service.',
      );
      const after = await mem(['convo', 'show'], env);
      expect(after.stdout).toContain('Billing v2 is on staging.');
      expect(after.stdout).not.toContain('Please deploy');
      expect((await mem(['convo', 'add', 'x', '--role', 'boss'], env)).code).toBe(2);
      if (transcripts === 'markdown') {
        const file = join(dir, 'ws', 'agents', 'agent-markdown', 'MEMORY.md');
        expect(readFileSync(file, 'utf8')).toContain('[Compressed Memory Summary]');
        expect(readdirSync(join(dir, 'ws', 'agents', 'agent-markdown', 'archive'))).toHaveLength(1);
      }
    });

    it('writes, replaces, searches, injects and refuses to delete MEMORY.md', async () => {
      expect((await mem(['notes', 'write', 'Staging resets on Sundays.', '--json'], env)).json().status).toBe(
        'created',
      );
      await mem(['notes', 'write', 'Billing owner: Ada.'], env);
      await mem(['notes', 'write', 'Q3: ship invoices v2.', '--file', 'plans/q3'], env);
      expect((await mem(['notes', 'write', 'Saturdays', '--old-text', 'Sundays', '--json'], env)).json().status).toBe(
        'updated',
      );
      const zero = await mem(['notes', 'write', 'x', '--old-text', 'Mondays'], env);
      expect(zero.code).toBe(1);
      expect(zero.stderr).toContain('INVALID_INPUT');
      expect((await mem(['notes', 'read'], env)).stdout).toContain('Staging resets on Saturdays.');
      expect((await mem(['notes', 'read', 'plans/q3.md'], env)).stdout).toContain('invoices v2');
      const hits = (await mem(['notes', 'search', 'invoices', '--json'], env)).json().results;
      expect(hits[0].file).toBe('plans/q3.md');
      const block = (await mem(['notes', 'inject'], env)).stdout;
      expect(block).toContain('<memory>');
      expect(block).toContain('### MEMORY.md');
      expect(block).toContain('Billing owner: Ada.');
      expect(block).toContain('plans/q3.md');
      const del = await mem(['notes', 'delete', 'MEMORY.md'], env);
      expect(del.code).toBe(1);
      expect((await mem(['notes', 'delete', 'plans/q3.md', '--json'], env)).json().deleted).toBe(true);
      expect((await mem(['notes', 'write', 'x', '--file', '../escape'], env)).code).toBe(1);
      expect((await mem(['notes', 'write', 'aws AKIAIOSFODNN7EXAMPLE'], env)).stderr).toContain('SECRET_DETECTED');
      if (transcripts === 'markdown')
        expect(existsSync(join(dir, 'ws', 'notebooks', 'default', 'agent-markdown', 'MEMORY.md'))).toBe(true);
    });
  });
}

describe('mem convo / notes answer as the routes do', () => {
  const env = { MEM_TRANSCRIPTS: 'store', MEM_AGENT: 'routes' };

  it('convo add, agents, archive and settings flags; notes narrowed by --user and --topic', async () => {
    const added = (await mem(['convo', 'add', 'Ship billing v3.', '--role', 'user', '--json'], env)).json();
    expect(added).toMatchObject({ agent: 'routes', message: { role: 'user', content: 'Ship billing v3.' } });
    expect(added.tokens).toBeGreaterThan(0);
    expect(added.needsCompression).toBe(false);
    // The context settings given on any convo command are stored first, then used: a tiny window needs compression.
    const tight = await mem(
      ['convo', 'add', 'More text.', '--role', 'user', '--context-length', '256', '--threshold', '0.01', '--json'],
      env,
    );
    expect(tight.json().needsCompression).toBe(true);
    expect((await mem(['convo', 'settings', '--json'], env)).json().stored).toEqual({
      contextLength: 256,
      threshold: 0.01,
    });
    const refused = await mem(['convo', 'show', '--threshold', '7'], env);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('INVALID_INPUT')]);
    expect((await mem(['convo', 'settings', '--json'], env)).json().stored.threshold).toBe(0.01);

    expect((await mem(['convo', 'agents', '--json'], env)).json().agents).toContain('routes');
    await mem(['convo', 'compact', '--summary', 'Billing v3 planned.'], env);
    const [archive] = (await mem(['convo', 'archives', '--json'], env)).json().archives;
    const one = await mem(['convo', 'archive', archive.id], env);
    expect(one.stdout).toMatch(/^\[[^\]]+\] user: Ship billing v3\.$/m);
    expect((await mem(['convo', 'archive'], env)).code).toBe(2);

    await mem(['notes', 'write', 'Ada prefers CSV.', '--user', 'ada'], env);
    await mem(['notes', 'write', 'Invoices topic.', '--user', 'ada', '--topic', 'billing'], env);
    expect((await mem(['notes', 'read'], env)).stdout).not.toContain('Ada prefers CSV.');
    expect((await mem(['notes', 'read', '--user', 'ada'], env)).stdout).toContain('Ada prefers CSV.');
    expect((await mem(['notes', 'inject', '--user', 'ada', '--topic', 'billing'], env)).stdout).toContain(
      'Invoices topic.',
    );
    const badUser = await mem(['notes', 'write', 'x', '--user', '../ada'], env);
    expect([badUser.code, badUser.stderr]).toEqual([1, expect.stringContaining('INVALID_INPUT')]);
  });

  it('says which flag configures a missing transcript store', async () => {
    const r = await mem(['convo', 'show'], {
      MEM_STORE: 'lancedb',
      MEM_DB: join(dir, 'lance'),
      MEM_TRANSCRIPTS: 'store',
    });
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('--transcripts markdown (the default)')]);
  });
});

describe('mem convo add on a MEMORY.md a person edited', () => {
  const env = { MEM_TRANSCRIPTS: 'markdown', MEM_AGENT: 'hand-edited' };
  const file = () => join(dir, 'ws', 'agents', 'hand-edited', 'MEMORY.md');

  it('keeps a "## Notes" section appended by hand, and reads CRLF files', async () => {
    expect((await mem(['convo', 'add', 'We ship on Mondays.', '--role', 'user'], env)).code).toBe(0);
    appendFileSync(file(), '## Notes\nUser prefers GCP\n');
    expect((await mem(['convo', 'add', 'Noted, Mondays.', '--role', 'assistant'], env)).code).toBe(0);
    expect(readFileSync(file(), 'utf8')).toContain('## Notes\nUser prefers GCP\n');
    writeFileSync(file(), readFileSync(file(), 'utf8').replace(/\n/g, '\r\n'));
    const added = await mem(['convo', 'add', 'And Thursdays for hotfixes.', '--role', 'user'], env);
    expect(added.code, added.stderr).toBe(0);
    const shown = (await mem(['convo', 'show'], env)).stdout;
    for (const text of ['We ship on Mondays.', 'Noted, Mondays.', 'And Thursdays for hotfixes.'])
      expect(shown).toContain(text);
    expect(readFileSync(file(), 'utf8')).toContain('## Notes\nUser prefers GCP\n');
  });
});
