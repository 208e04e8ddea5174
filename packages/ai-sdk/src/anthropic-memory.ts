/**
 * A backend for Anthropic's memory tool (`memory_20250818`): its commands `view`, `create`, `str_replace`, `insert`,
 * `delete` and `rename` on paths under `/memories`, carried out on mem's notebook files. `/memories/MEMORY.md` is the
 * notebook injected into every request. The notebook keeps Markdown files: a path with another extension
 * (`/memories/notes.txt`) is kept as `notes.txt.md` and shown under its own name.
 */
import { MemError, type Notebook, type NotebookOwner } from '@mem/core';
import { z } from 'zod';

const path = z.string().min(1, 'path must not be empty').max(400);

export const memoryCommandInput = z.discriminatedUnion('command', [
  z.object({ command: z.literal('view'), path, view_range: z.tuple([z.number().int(), z.number().int()]).optional() }),
  z.object({ command: z.literal('create'), path, file_text: z.string() }),
  z.object({
    command: z.literal('str_replace'),
    path,
    old_str: z.string().min(1, 'old_str must not be empty'),
    new_str: z.string(),
  }),
  z.object({ command: z.literal('insert'), path, insert_line: z.number().int().min(0), insert_text: z.string() }),
  z.object({ command: z.literal('delete'), path }),
  z.object({ command: z.literal('rename'), old_path: path, new_path: path }),
]);

export type MemoryCommand = z.infer<typeof memoryCommandInput>;

const ROOT = '/memories';

/** `/memories/a/b.md` → `a/b.md`; `/memories` → `''` (the directory). Anything outside is refused. */
function relative(p: string): string {
  const clean = p.replace(/\/+$/, '');
  if (clean === ROOT) return '';
  if (!clean.startsWith(`${ROOT}/`)) {
    throw new MemError(
      'INVALID_INPUT',
      `The path ${p} is outside ${ROOT}: every memory file lives under ${ROOT}/, e.g. ${ROOT}/notes.md.`,
    );
  }
  const rest = clean.slice(ROOT.length + 1);
  if (rest.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    throw new MemError(
      'INVALID_INPUT',
      `The path ${p} has an empty, "." or ".." part: name the file directly, e.g. ${ROOT}/notes.md.`,
    );
  }
  return rest;
}

const toFile = (rel: string) => (/\.md$/i.test(rel) ? rel : `${rel}.md`);
const toPath = (file: string) => `${ROOT}/${/\.[^/.]+\.md$/i.test(file) ? file.slice(0, -3) : file}`;

async function readAll(
  notebook: Notebook,
  owner: NotebookOwner,
  file: string,
): Promise<{ text: string; version: string | null }> {
  let offset = 0;
  let text = '';
  for (;;) {
    const r = await notebook.read(owner, { file, offset });
    if (!r.truncated) return { text: text + r.content, version: r.version };
    const piece = r.content.slice(0, r.content.lastIndexOf('\n\n[… cut:'));
    text += piece;
    offset += piece.length;
  }
}

async function exists(notebook: Notebook, owner: NotebookOwner, file: string): Promise<boolean> {
  const { files } = await notebook.list(owner, { prefix: file });
  return files.some((f) => f.file === file);
}

/** Replace a whole file (create or overwrite), compare-and-set against the version read. */
async function overwrite(notebook: Notebook, owner: NotebookOwner, file: string, content: string): Promise<void> {
  if (!(await exists(notebook, owner, file))) {
    await notebook.write(owner, { file, content });
    return;
  }
  const current = await readAll(notebook, owner, file);
  if (current.text === content) return;
  if (current.text.length === 0) {
    await notebook.write(owner, { file, content, ...(current.version ? { expectedVersion: current.version } : {}) });
    return;
  }
  await notebook.write(owner, {
    file,
    oldText: current.text,
    content,
    ...(current.version ? { expectedVersion: current.version } : {}),
  });
}

/**
 * Carry out one memory-tool command on the owner's notebook and return the text the model gets. Bad commands get a
 * `MemError` (`INVALID_INPUT`, `NOT_FOUND`, `FORBIDDEN` for deleting MEMORY.md) that says what to do instead.
 */
export async function executeMemoryCommand(notebook: Notebook, owner: NotebookOwner, raw: unknown): Promise<string> {
  if (!notebook) throw new MemError('CAPABILITY_MISSING', 'The memory tool needs a stack with a notebook store.');
  const parsed = memoryCommandInput.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`);
    throw new MemError(
      'INVALID_INPUT',
      `Invalid memory command: ${problems.join('; ')}. Commands: view, create, str_replace, insert, delete, rename.`,
      { details: { problems } },
    );
  }
  const c = parsed.data;
  switch (c.command) {
    case 'view': {
      const rel = relative(c.path);
      const { files } = await notebook.list(owner, rel ? { prefix: `${rel}/` } : {});
      if (rel === '' || (files.length > 0 && !(await exists(notebook, owner, toFile(rel))))) {
        const lines = files.map((f) => `${f.size}\t${toPath(f.file)}`);
        return [`Files in ${c.path} (size in bytes):`, ...(lines.length ? lines : ['(none yet)'])].join('\n');
      }
      const file = toFile(rel);
      if (!(await exists(notebook, owner, file))) {
        throw new MemError(
          'NOT_FOUND',
          `No memory file ${c.path}. View ${ROOT} to see the files; create makes a new one.`,
        );
      }
      const lines = (await readAll(notebook, owner, file)).text.replace(/\n$/, '').split('\n');
      const [from, to] = c.view_range ?? [1, lines.length];
      const end = to === -1 ? lines.length : Math.min(to, lines.length);
      if (from < 1 || from > Math.max(1, lines.length) || end < from) {
        throw new MemError('INVALID_INPUT', `view_range [${from}, ${to}] is outside the file's ${lines.length} lines.`);
      }
      const shown = lines.slice(from - 1, end).map((l, i) => `${String(from + i).padStart(6)}\t${l}`);
      return [`Content of ${c.path} with line numbers:`, ...shown].join('\n');
    }
    case 'create': {
      const file = toFile(relative(c.path));
      await overwrite(notebook, owner, file, c.file_text);
      return `File created at ${c.path}.`;
    }
    case 'str_replace': {
      const file = toFile(relative(c.path));
      const current = await readAll(notebook, owner, file);
      const count = current.text.split(c.old_str).length - 1;
      if (count !== 1) {
        throw new MemError(
          count === 0 ? 'NOT_FOUND' : 'INVALID_INPUT',
          count === 0
            ? `old_str does not occur in ${c.path}: view the file and copy the passage exactly.`
            : `old_str occurs ${count} times in ${c.path}: give a longer passage that occurs once.`,
        );
      }
      await notebook.write(owner, {
        file,
        oldText: c.old_str,
        content: c.new_str,
        ...(current.version ? { expectedVersion: current.version } : {}),
      });
      return `Edited ${c.path}.`;
    }
    case 'insert': {
      const file = toFile(relative(c.path));
      if (!(await exists(notebook, owner, file))) {
        throw new MemError('NOT_FOUND', `No memory file ${c.path} to insert into. Create it first.`);
      }
      const current = await readAll(notebook, owner, file);
      const base = current.text.replace(/\n$/, '');
      const lines = base.length === 0 ? [] : base.split('\n');
      if (c.insert_line > lines.length) {
        throw new MemError(
          'INVALID_INPUT',
          `insert_line ${c.insert_line} is past the end of ${c.path} (${lines.length} lines).`,
        );
      }
      lines.splice(c.insert_line, 0, ...c.insert_text.replace(/\n$/, '').split('\n'));
      await overwrite(notebook, owner, file, `${lines.join('\n')}\n`);
      return `Inserted text at line ${c.insert_line} of ${c.path}.`;
    }
    case 'delete': {
      const rel = relative(c.path);
      if (rel === '')
        throw new MemError('FORBIDDEN', `${ROOT} itself cannot be deleted; delete the files in it one by one.`);
      const file = toFile(rel);
      if (await exists(notebook, owner, file)) {
        await notebook.delete(owner, { file });
        return `Deleted ${c.path}.`;
      }
      const { files } = await notebook.list(owner, { prefix: `${rel}/` });
      if (files.length === 0) throw new MemError('NOT_FOUND', `No memory file or directory ${c.path}.`);
      for (const f of files) await notebook.delete(owner, { file: f.file });
      return `Deleted ${c.path} and its ${files.length} file(s).`;
    }
    case 'rename': {
      const from = toFile(relative(c.old_path));
      const to = toFile(relative(c.new_path));
      if (!(await exists(notebook, owner, from)))
        throw new MemError('NOT_FOUND', `No memory file ${c.old_path} to rename.`);
      if (await exists(notebook, owner, to)) {
        throw new MemError('CONFLICT', `${c.new_path} already exists: delete it first or pick another name.`);
      }
      const { text } = await readAll(notebook, owner, from);
      await notebook.write(owner, { file: to, content: text });
      await notebook.delete(owner, { file: from });
      return `Renamed ${c.old_path} to ${c.new_path}.`;
    }
  }
}
