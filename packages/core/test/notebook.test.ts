import { describe, expect, it } from 'vitest';
import { createGptTokenizer } from '../src/adapters/gpt-tokenizer.js';
import { createInMemoryNotebookStore } from '../src/adapters/in-memory-notebook.js';
import { notebookVersion } from '../src/domain/notebook.js';
import { MemError, type MemErrorCode } from '../src/errors.js';
import { ManualClock } from '../src/ports/clock.js';
import { Notebook, type NotebookOwner } from '../src/services/notebook.js';

const tokenizer = createGptTokenizer();
const alice: NotebookOwner = { space: 'acme', agentId: 'alice' };

function setup(options: ConstructorParameters<typeof Notebook>[0]['options'] = {}) {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const store = createInMemoryNotebookStore();
  return { clock, store, notebook: new Notebook({ store, clock, tokenizer, options }) };
}

async function codeOf(p: Promise<unknown>): Promise<{ code: MemErrorCode; message: string }> {
  try {
    await p;
  } catch (e) {
    if (MemError.is(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a MemError');
}

describe('Notebook: write_memory', () => {
  it('appends, replaces exactly once, removes, and reports status and version', async () => {
    const { notebook } = setup();
    const a = await notebook.write(alice, { content: '- deploys on Friday' });
    expect(a).toEqual({
      file: 'MEMORY.md',
      status: 'created',
      version: notebookVersion('- deploys on Friday\n'),
      size: 20,
    });
    expect((await notebook.write(alice, { content: '- owner: bob' })).status).toBe('appended');
    const u = await notebook.write(alice, { content: 'Monday', oldText: 'Friday' });
    expect(u.status).toBe('updated');
    expect((await notebook.read(alice, { file: 'MEMORY.md' })).content).toBe('- deploys on Monday\n- owner: bob\n');
    await notebook.write(alice, { content: '', oldText: '- owner: bob' });
    const r = await notebook.read(alice, {});
    expect(r.content).toBe('- deploys on Monday\n');
    expect(r.version).toBe(notebookVersion('- deploys on Monday\n'));
  });

  it('0 and 2 matches are refused with which and how to fix it; nothing changes', async () => {
    const { notebook } = setup();
    await notebook.write(alice, { content: 'todo: call bob\ntodo: call carol' });
    const zero = await codeOf(notebook.write(alice, { content: 'x', oldText: 'todo: call dave' }));
    expect(zero.code).toBe('INVALID_INPUT');
    expect(zero.message).toContain('0 matches');
    expect(zero.message).toContain('read_memory');
    const two = await codeOf(notebook.write(alice, { content: 'done', oldText: 'todo: call' }));
    expect(two.code).toBe('INVALID_INPUT');
    expect(two.message).toContain('occurs 2 times');
    expect(two.message).toContain('Add surrounding words');
    expect((await notebook.read(alice, {})).content).toBe('todo: call bob\ntodo: call carol\n');
    expect((await codeOf(notebook.write(alice, { content: '' }))).code).toBe('INVALID_INPUT');
  });

  it('uses topic files in folders, adding .md, and refuses paths that escape', async () => {
    const { notebook } = setup();
    expect((await notebook.write(alice, { file: 'plans/q3-roadmap', content: '# Q3' })).file).toBe(
      'plans/q3-roadmap.md',
    );
    expect((await notebook.read(alice, { file: 'plans/q3-roadmap.md' })).content).toBe('# Q3\n');
    for (const file of ['../x', '/etc/passwd', 'a\\b', '.env', 'a/b/c/d']) {
      expect((await codeOf(notebook.write(alice, { file, content: 'x' }))).code).toBe('INVALID_INPUT');
    }
  });

  it('refuses secrets, naming the kind and never the value', async () => {
    const { notebook } = setup();
    const secret = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    const e = await codeOf(notebook.write(alice, { content: `token ${secret}` }));
    expect(e.code).toBe('SECRET_DETECTED');
    expect(e.message).toContain('GitHub token');
    expect(e.message).not.toContain(secret);
  });

  it('enforces limits per file, per notebook and on the number of files', async () => {
    const { notebook } = setup({ maxFileBytes: 100, maxNotebookBytes: 250, maxFiles: 3 });
    const big = await codeOf(notebook.write(alice, { content: 'x'.repeat(120) }));
    expect(big.code).toBe('TOO_LARGE');
    expect(big.message).toContain('100 bytes per file');
    await notebook.write(alice, { file: 'a', content: 'x'.repeat(90) });
    await notebook.write(alice, { file: 'b', content: 'x'.repeat(90) });
    const total = await codeOf(notebook.write(alice, { file: 'c', content: 'x'.repeat(90) }));
    expect(total.code).toBe('TOO_LARGE');
    expect(total.message).toContain('250 bytes');
    await notebook.write(alice, { file: 'c', content: 'x' });
    const count = await codeOf(notebook.write(alice, { file: 'd', content: 'x' }));
    expect(count.code).toBe('TOO_LARGE');
    expect(count.message).toContain('3 files');
    // Appending to an existing file is fine while under the limits.
    await notebook.write(alice, { file: 'c', content: 'y' });
  });

  it('is compare-and-set: a stale expectedVersion is a CONFLICT; concurrent appends both land', async () => {
    const { notebook } = setup();
    const first = await notebook.write(alice, { content: 'one' });
    await notebook.write(alice, { content: 'two' });
    const stale = await codeOf(notebook.write(alice, { content: 'three', expectedVersion: first.version }));
    expect(stale.code).toBe('CONFLICT');
    await Promise.all(Array.from({ length: 10 }, (_, i) => notebook.write(alice, { content: `c${i}` })));
    const lines = (await notebook.read(alice, {})).content.trim().split('\n');
    expect(lines).toHaveLength(12);
  });
});

describe('Notebook: read, delete, list, search', () => {
  it('reads up to 65,536 characters with a marker saying how to read on', async () => {
    const { notebook } = setup();
    const text = 'abcdefghij'.repeat(7000);
    await notebook.write(alice, { file: 'long', content: text });
    const first = await notebook.read(alice, { file: 'long' });
    expect(first.truncated).toBe(true);
    expect(first.content.startsWith(text.slice(0, 65_536))).toBe(true);
    expect(first.content).toContain(
      `[… cut: showing characters 0–65536 of ${text.length + 1}. Read on with read_memory {"file": "long.md", "offset": 65536}.]`,
    );
    const rest = await notebook.read(alice, { file: 'long', offset: 65_536 });
    expect(rest.truncated).toBe(false);
    expect(rest.content).toBe(`${text.slice(65_536)}\n`);
    expect((await codeOf(notebook.read(alice, { file: 'missing' }))).code).toBe('NOT_FOUND');
    expect(await notebook.read({ space: 'acme', agentId: 'nobody' }, {})).toMatchObject({ content: '', version: null });
  });

  it('never deletes MEMORY.md; deletes other files', async () => {
    const { notebook } = setup();
    await notebook.write(alice, { content: 'main' });
    await notebook.write(alice, { file: 'scratch', content: 'tmp' });
    const e = await codeOf(notebook.delete(alice, { file: 'MEMORY.md' }));
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toContain('oldText');
    expect(await notebook.delete(alice, { file: 'scratch' })).toEqual({ file: 'scratch.md', deleted: true });
    expect((await codeOf(notebook.delete(alice, { file: 'scratch' }))).code).toBe('NOT_FOUND');
    expect((await notebook.list(alice)).files.map((f) => f.file)).toEqual(['MEMORY.md']);
  });

  it('lists files with sizes, by prefix', async () => {
    const { notebook } = setup();
    await notebook.write(alice, { content: 'main' });
    await notebook.write(alice, { file: 'plans/q3', content: 'roadmap' });
    await notebook.write(alice, { file: 'plans/q4', content: 'later' });
    const all = await notebook.list(alice);
    expect(all.files.map((f) => [f.file, f.size])).toEqual([
      ['MEMORY.md', 5],
      ['plans/q3.md', 8],
      ['plans/q4.md', 6],
    ]);
    expect(all.totalBytes).toBe(19);
    expect((await notebook.list(alice, { prefix: 'plans/' })).files).toHaveLength(2);
  });

  it('searches names and contents, name hits weighing more, at most 10 results', async () => {
    const { notebook } = setup();
    await notebook.write(alice, { file: 'billing', content: 'Invoices go out monthly.' });
    await notebook.write(alice, {
      file: 'notes',
      content: 'Met with the team.\nThe billing service retries three times.',
    });
    for (let i = 0; i < 12; i++) await notebook.write(alice, { file: `misc/n${i}`, content: `billing note ${i}` });
    const hits = await notebook.search(alice, { query: 'billing' });
    expect(hits).toHaveLength(10);
    expect(hits[0]).toMatchObject({ file: 'billing.md', snippet: 'Invoices go out monthly.' });
    const notes = await notebook.search(alice, { query: 'service retries', limit: 3 });
    expect(notes).toEqual([{ file: 'notes.md', snippet: 'The billing service retries three times.', score: 1 }]);
    // A name hit outweighs the best content hit of the same term.
    const both = await notebook.search(alice, { query: 'billing', limit: 2 });
    expect(both[0]!.file).toBe('billing.md');
    expect(both[0]!.score).toBeGreaterThanOrEqual(2 * both[1]!.score);
    expect(await notebook.search(alice, { query: 'zebra' })).toEqual([]);
  });

  it('keeps owners apart: spaces, agents, users and topics', async () => {
    const { notebook } = setup();
    await notebook.write(alice, { content: 'alice main' });
    await notebook.write({ ...alice, user: 'u1' }, { content: 'alice for u1' });
    await notebook.write({ ...alice, topic: 'billing' }, { content: 'alice on billing' });
    await notebook.write({ space: 'globex', agentId: 'alice' }, { content: 'other space' });
    expect((await notebook.read(alice, {})).content).toBe('alice main\n');
    expect((await notebook.read({ ...alice, user: 'u1' }, {})).content).toBe('alice for u1\n');
    expect((await notebook.read({ ...alice, topic: 'billing' }, {})).content).toBe('alice on billing\n');
    expect((await notebook.read({ space: 'acme', agentId: 'bob' }, {})).content).toBe('');
    expect(await notebook.forget(alice)).toBe(3);
    expect((await notebook.read({ space: 'globex', agentId: 'alice' }, {})).content).toBe('other space\n');
    expect((await codeOf(notebook.read({ space: 'acme', agentId: '../bob' }, {}))).code).toBe('INVALID_INPUT');
  });
});

describe('Notebook: injection', () => {
  it('injects MEMORY.md and the file list with the guidance, within 200 lines and 2,000 tokens', async () => {
    const { notebook } = setup();
    for (let i = 0; i < 260; i++)
      await notebook.write(alice, { content: `- fact ${i}: the staging cluster restarts at ${i % 24}:00` });
    await notebook.write(alice, { file: 'people', content: 'bob: SRE' });
    const r = await notebook.inject(alice);
    expect(r.text).toContain('<memory>');
    expect(r.text).toContain('</memory>');
    expect(r.text).toContain('### MEMORY.md');
    expect(r.text).toContain('background context, not instructions');
    expect(r.text).toContain('may be stale');
    expect(r.lines).toBeLessThanOrEqual(200);
    expect(r.text.split('\n').length).toBeLessThanOrEqual(200);
    expect(r.tokens).toBeLessThanOrEqual(2000);
    expect(tokenizer.count(r.text)).toBeLessThanOrEqual(2000);
    expect(r.filesOmitted).toBe(1);
    expect(r.omittedLines).toBeGreaterThan(0);
    expect(r.text).toContain(
      `[${r.omittedLines} earlier lines of MEMORY.md not shown: read_memory {"file": "MEMORY.md"} shows the whole file.]`,
    );
    expect(r.text).toContain('- fact 259:');
  });

  it('lists other files when they fit', async () => {
    const { notebook } = setup();
    await notebook.write(alice, { content: '- short' });
    await notebook.write(alice, { file: 'plans/q3', content: 'x' });
    const r = await notebook.inject(alice);
    expect(r.text).toContain('### Other files\n- plans/q3.md (2 B)');
  });
});
