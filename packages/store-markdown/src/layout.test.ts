import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MemError, type TranscriptMessage } from '@mem/core';
import { notPrivate, withUmask } from '@mem/testkit/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMarkdownNotebookStore, createMarkdownStores, createMarkdownTranscriptStore } from './index.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'mem-md-layout-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 12, 0, s)).toISOString();
const m = (content: string, s = 0): TranscriptMessage => ({ role: 'user', content, at: at(s) });
const init = { conversationId: 'c1', createdAt: at(0) };

describe('Markdown layout', () => {
  it('puts the default space at <root>/agents and other spaces under <root>/spaces/<space>', async () => {
    const { transcripts, notebooks } = createMarkdownStores({ root });
    await transcripts.append('default', 'main', [m('hello')], init);
    await transcripts.append('acme', 'main', [m('hi acme')], init);
    await notebooks.write({ space: 'acme', agent: 'main' }, 'plans/q3.md', 'roadmap\n', {
      expectedVersion: null,
      at: at(0),
    });
    await notebooks.write({ space: 'acme', agent: 'main', user: 'u1', topic: 'billing' }, 'MEMORY.md', 'x\n', {
      expectedVersion: null,
      at: at(0),
    });
    expect(await readFile(path.join(root, 'agents/main/MEMORY.md'), 'utf8')).toContain(
      '### user — 2026-03-01T12:00:00.000Z\n\nhello\n\n---\n',
    );
    expect(await readFile(path.join(root, 'spaces/acme/agents/main/MEMORY.md'), 'utf8')).toContain('hi acme');
    expect(await readFile(path.join(root, 'notebooks/acme/main/plans/q3.md'), 'utf8')).toBe('roadmap\n');
    expect(await readFile(path.join(root, 'notebooks/acme/main/.user-u1/.topic-billing/MEMORY.md'), 'utf8')).toBe(
      'x\n',
    );
    // No lock or temporary file stays behind.
    expect(await readdir(path.join(root, 'agents/main'))).toEqual(['MEMORY.md']);
    const custom = createMarkdownTranscriptStore({ root, defaultSpace: 'acme' });
    expect((await custom.read('acme', 'main'))?.messages[0]?.content).toBe('hello');
  });

  it('cuts off a block torn by a crash before the next append, and never reads it', async () => {
    const store = createMarkdownTranscriptStore({ root });
    await store.append('default', 'main', [m('complete')], init);
    const file = path.join(root, 'agents/main/MEMORY.md');
    await appendFile(file, '### assistant — 2026-03-01T12:00:05.000Z\n\nhalf of a rep');
    expect((await store.read('default', 'main'))?.messages.map((x) => x.content)).toEqual(['complete']);
    await store.append('default', 'main', [m('next', 6)], init);
    expect((await store.read('default', 'main'))?.messages.map((x) => x.content)).toEqual(['complete', 'next']);
    expect(await readFile(file, 'utf8')).not.toContain('half of a rep');
    // A heading torn in the middle is cut off too; stray text a person added is kept.
    await appendFile(file, '### assis');
    await store.append('default', 'main', [m('third', 7)], init);
    await appendFile(file, 'A note someone typed by hand.');
    await store.append('default', 'main', [m('fourth', 8)], init);
    expect((await store.read('default', 'main'))?.messages.map((x) => x.content)).toEqual([
      'complete',
      'next',
      'third',
      'fourth',
    ]);
    expect(await readFile(file, 'utf8')).toContain('A note someone typed by hand.');
  });

  it('keeps a section a person appended by hand (even one starting with #) across the next append', async () => {
    const store = createMarkdownTranscriptStore({ root });
    await store.append('default', 'main', [m('complete')], init);
    const file = path.join(root, 'agents/main/MEMORY.md');
    await appendFile(file, '## Notes\nUser prefers GCP\n');
    await store.append('default', 'main', [m('next', 6)], init);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('## Notes\nUser prefers GCP\n');
    expect(text.indexOf('User prefers GCP')).toBeLessThan(text.indexOf('next'));
    expect((await store.read('default', 'main'))?.messages.map((x) => x.content)).toEqual(['complete', 'next']);
    // A heading a person typed in another form, and a lone "#" line, are kept too.
    await appendFile(file, '# TODO\n');
    await store.append('default', 'main', [m('third', 7)], init);
    expect(await readFile(file, 'utf8')).toContain('# TODO\n');
    // A whole block heading with a body but no closing "---" is the shape a crash leaves: cut off.
    await appendFile(file, '### user — 2026-03-01T12:00:09.000Z\n\nhalf a mess');
    await store.append('default', 'main', [m('fourth', 10)], init);
    expect(await readFile(file, 'utf8')).not.toContain('half a mess');
    expect((await store.read('default', 'main'))?.messages.map((x) => x.content)).toEqual([
      'complete',
      'next',
      'third',
      'fourth',
    ]);
  });

  it('reads and appends to a MEMORY.md saved with CRLF line endings', async () => {
    const store = createMarkdownTranscriptStore({ root });
    await store.append('default', 'main', [m('one'), m('two\nlines', 1)], init);
    const file = path.join(root, 'agents/main/MEMORY.md');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/\n/g, '\r\n'));
    const read = await store.read('default', 'main');
    expect(read?.header).toEqual(init);
    expect(read?.messages.map((x) => x.content)).toEqual(['one', 'two\nlines']);
    await store.append('default', 'main', [m('three', 2)], init);
    expect((await store.read('default', 'main'))?.messages.map((x) => x.content)).toEqual([
      'one',
      'two\nlines',
      'three',
    ]);
    expect(await readFile(file, 'utf8')).not.toContain('\r');
  });

  it('reads the older heading form (capitalised role, no milliseconds or zone) and keeps it on append', async () => {
    await mkdir(path.join(root, 'agents/main'), { recursive: true });
    const file = path.join(root, 'agents/main/MEMORY.md');
    const old = [
      '# Conversation Memory — main',
      '',
      '- Conversation: c-old',
      '- Created: 2026-04-20T18:33:00.000Z',
      '',
      '---',
      '',
      '## Interaction Log',
      '',
      '### User — 2026-04-20T18:33:15',
      '',
      'We deploy from main.',
      '',
      '---',
      '',
      '### Assistant — 2026-04-20T18:33:20',
      '',
      'Noted.',
      '',
      '---',
      '',
    ].join('\n');
    await writeFile(file, old);
    const store = createMarkdownTranscriptStore({ root });
    expect((await store.read('default', 'main'))?.messages).toEqual([
      { role: 'user', at: '2026-04-20T18:33:15.000Z', content: 'We deploy from main.' },
      { role: 'assistant', at: '2026-04-20T18:33:20.000Z', content: 'Noted.' },
    ]);
    await store.append('default', 'main', [m('new')], init);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith(old)).toBe(true);
    expect((await store.read('default', 'main'))?.messages.map((x) => x.content)).toEqual([
      'We deploy from main.',
      'Noted.',
      'new',
    ]);
    // Content that reads as an old-form heading is escaped, so it round-trips.
    await store.append('default', 'main', [m('### User — 2026-04-20T18:33:15', 1)], init);
    expect((await store.read('default', 'main'))?.messages.at(-1)?.content).toBe('### User — 2026-04-20T18:33:15');
  });

  it('creates every file 0600 and every folder 0700, whatever the umask', async () => {
    const ws = path.join(root, 'ws');
    await withUmask(async () => {
      const { transcripts, notebooks } = createMarkdownStores({ root: ws });
      await transcripts.append('default', 'main', [m('a private message')], init);
      await transcripts.append('acme', 'main', [m('another one')], init);
      await transcripts.compact('default', 'main', {
        basis: { conversationId: 'c1', messageCount: 1 },
        header: { conversationId: 'c2', createdAt: at(1) },
        messages: [m('summary', 1)],
        archivedAt: at(1),
      });
      await notebooks.write({ space: 'acme', agent: 'main', user: 'u1' }, 'plans/q3.md', 'x\n', {
        expectedVersion: null,
        at: at(0),
      });
    });
    expect(await readdir(path.join(ws, 'agents/main/archive'))).toHaveLength(1);
    expect(await notPrivate(ws)).toEqual([]);
  });

  it('reports a file that is not a transcript as STORE_CORRUPT, saying what to do', async () => {
    await mkdir(path.join(root, 'agents/main'), { recursive: true });
    await writeFile(path.join(root, 'agents/main/MEMORY.md'), 'my own notes\n');
    const store = createMarkdownTranscriptStore({ root });
    try {
      await store.read('default', 'main');
      expect.unreachable();
    } catch (e) {
      expect(MemError.is(e, 'STORE_CORRUPT')).toBe(true);
      expect((e as MemError).message).toContain('Move the file away');
    }
  });

  it('ignores leftovers of a crashed compaction and cleans them at the next one', async () => {
    const store = createMarkdownTranscriptStore({ root });
    await store.append('default', 'main', [m('x')], init);
    const dir = path.join(root, 'agents/main');
    await mkdir(path.join(dir, 'archive'), { recursive: true });
    await writeFile(path.join(dir, 'archive/.history.md.tmp-1.abc'), 'partial');
    await writeFile(path.join(dir, '.MEMORY.md.tmp-1.abc'), 'partial');
    expect(await store.listArchives('default', 'main')).toEqual([]);
    await store.compact('default', 'main', {
      basis: { conversationId: 'c1', messageCount: 1 },
      header: { conversationId: 'c2', createdAt: at(1) },
      messages: [m('s', 1)],
      archivedAt: at(1),
    });
    expect((await readdir(dir)).sort()).toEqual(['MEMORY.md', 'archive']);
    expect(await readdir(path.join(dir, 'archive'))).toEqual(['history_2026-03-01T12-00-01.000Z.md']);
  });

  it('lists only notebook files: no lock, temporary, hidden or non-Markdown files', async () => {
    const store = createMarkdownNotebookStore({ root });
    const scope = { space: 'acme', agent: 'main' };
    await store.write(scope, 'MEMORY.md', 'x\n', { expectedVersion: null, at: at(0) });
    const dir = path.join(root, 'notebooks/acme/main');
    await writeFile(path.join(dir, '.secret.md'), 'hidden');
    await writeFile(path.join(dir, 'image.png'), 'binary');
    await mkdir(path.join(dir, 'a/b/c'), { recursive: true });
    await writeFile(path.join(dir, 'a/b/c/too-deep.md'), 'deep');
    await writeFile(path.join(dir, 'a/b/ok.md'), 'ok');
    expect((await store.list(scope)).map((e) => e.path)).toEqual(['MEMORY.md', 'a/b/ok.md']);
    // A deletion removes the folders it left empty.
    await store.delete(scope, 'a/b/ok.md');
    expect(await readdir(path.join(dir, 'a/b'))).toEqual(['c']);
  });
});
