import { promises as fs } from 'node:fs';
import path from 'node:path';
import { MemError, type NotebookScope } from '@mem/core';
import {
  checkNotebookPath,
  checkNotebookScope,
  type NotebookEntry,
  type NotebookFile,
  type NotebookStore,
  notebookVersion,
  wrapStoreError,
} from '@mem/core/adapter';
import { ensureDir, fsyncDir, isCode, removeGraves, removeTempFiles, replaceFile } from './fs-utils.js';
import { type MarkdownStoreOptions, notebookDir, resolveOptions } from './layout.js';
import { withFileLock } from './lock.js';

const MAX_DEPTH = 3;

/**
 * NotebookStore on Markdown files: `<root>/notebooks/<space>/<agent>/MEMORY.md` and topic files in up to two folders
 * (per-user and per-topic notebooks in `.user-<user>/` and `.topic-<topic>/` under the agent's folder). Writes are
 * compare-and-set under the notebook's lock file and atomic (temporary file, fsync, rename, fsync folder); the file's
 * modification time is its `updatedAt`.
 */
export function createMarkdownNotebookStore(options: MarkdownStoreOptions): NotebookStore {
  const o = resolveOptions(options);

  const fileOf = (scope: NotebookScope, p: string) => path.join(notebookDir(o, scope), ...p.split('/'));

  async function guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (MemError.is(error) || !(error as NodeJS.ErrnoException)?.code) throw error;
      throw wrapStoreError('markdown', error, what);
    }
  }

  async function readFile(scope: NotebookScope, p: string): Promise<NotebookFile | null> {
    let fh: fs.FileHandle;
    try {
      fh = await fs.open(fileOf(scope, p), 'r');
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR') || isCode(error, 'EISDIR')) return null;
      throw error;
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) return null;
      const buf = await fh.readFile();
      const content = buf.toString('utf8');
      return {
        path: p,
        content,
        version: notebookVersion(content),
        size: buf.length,
        updatedAt: st.mtime.toISOString(),
      };
    } catch (error) {
      if (isCode(error, 'EISDIR')) return null;
      throw error;
    } finally {
      await fh.close();
    }
  }

  const conflict = (p: string, expected: string | null, actual: string | null) =>
    new MemError(
      'CONFLICT',
      `markdown: ${p} changed since it was read (it is ${actual === null ? 'gone' : `at version ${actual}`}, the write expected ${expected === null ? 'no file' : `version ${expected}`}). Read it again and re-apply the change.`,
      { retryable: true, details: { path: p, expected, actual } },
    );

  async function locked<T>(scope: NotebookScope, fn: () => Promise<T>): Promise<T> {
    const dir = notebookDir(o, scope);
    await ensureDir(dir, o.fsync);
    return withFileLock(path.join(dir, '.lock'), o.lock, `the notebook of agent "${scope.agent}"`, fn);
  }

  /** Files under a folder, up to MAX_DEPTH levels, skipping dot entries; with `dotScopes`, also inside `.user-`/`.topic-` folders. */
  async function walk(
    dir: string,
    rel: string,
    depth: number,
    out: { path: string; full: string }[],
    dotScopes: boolean,
  ): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return;
      throw error;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.name.startsWith('.')) {
        if (dotScopes && e.isDirectory() && /^\.(user|topic)-/.test(e.name)) await walk(full, '', 1, out, dotScopes);
        continue;
      }
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(full, p, depth + 1, out, false);
      } else if (e.isFile()) {
        try {
          checkNotebookPath(p);
        } catch {
          continue;
        }
        out.push({ path: p, full });
      }
    }
  }

  return {
    name: 'markdown',
    capabilities: { durable: true, crossProcess: true },

    async read(scope, p) {
      checkNotebookScope(scope);
      checkNotebookPath(p);
      return guard('read', () => readFile(scope, p));
    },

    async write(scope, p, content, { expectedVersion, at }) {
      checkNotebookScope(scope);
      checkNotebookPath(p);
      const when = new Date(at);
      if (Number.isNaN(when.getTime()))
        throw new MemError('INVALID_INPUT', `Invalid time "${at}": use an ISO-8601 UTC time.`);
      return guard('write', () =>
        locked(scope, async () => {
          const current = await readFile(scope, p);
          if ((current?.version ?? null) !== expectedVersion)
            throw conflict(p, expectedVersion, current?.version ?? null);
          const full = fileOf(scope, p);
          await ensureDir(path.dirname(full), o.fsync);
          await replaceFile(full, content, { fsync: o.fsync, mtime: when });
          return {
            path: p,
            size: Buffer.byteLength(content, 'utf8'),
            updatedAt: when.toISOString(),
            version: notebookVersion(content),
          };
        }),
      );
    },

    async delete(scope, p, opts = {}) {
      checkNotebookScope(scope);
      checkNotebookPath(p);
      return guard('delete', async () => {
        const current = await readFile(scope, p);
        if (!current) return false;
        return locked(scope, async () => {
          const now = await readFile(scope, p);
          if (!now) return false;
          if (opts.expectedVersion !== undefined && now.version !== opts.expectedVersion)
            throw conflict(p, opts.expectedVersion, now.version);
          const full = fileOf(scope, p);
          await fs.unlink(full);
          await fsyncDir(path.dirname(full), o.fsync);
          // Remove folders the deletion left empty (never the notebook's own folder).
          const base = notebookDir(o, scope);
          for (let d = path.dirname(full); d !== base && d.startsWith(base); d = path.dirname(d)) {
            try {
              await fs.rmdir(d);
            } catch {
              break;
            }
          }
          return true;
        });
      });
    },

    async list(scope, opts = {}): Promise<NotebookEntry[]> {
      checkNotebookScope(scope);
      return guard('list', async () => {
        const found: { path: string; full: string }[] = [];
        await walk(notebookDir(o, scope), '', 1, found, false);
        const prefix = opts.prefix ?? '';
        const out: NotebookEntry[] = [];
        for (const f of found) {
          if (!f.path.startsWith(prefix)) continue;
          try {
            const st = await fs.stat(f.full);
            out.push({ path: f.path, size: st.size, updatedAt: st.mtime.toISOString() });
          } catch (error) {
            if (!isCode(error, 'ENOENT')) throw error;
          }
        }
        return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      });
    },

    async remove(scope) {
      checkNotebookScope(scope);
      return guard('remove', async () => {
        const dir = notebookDir(o, scope);
        const whole = scope.user === undefined && scope.topic === undefined;
        // What a removal that crashed before its delete left behind goes too (forget leaves no file of the notebook).
        if (whole) await removeGraves(path.dirname(dir), path.basename(dir));
        const found: { path: string; full: string }[] = [];
        await walk(dir, '', 1, found, whole);
        if (found.length === 0) {
          try {
            await fs.access(dir);
          } catch {
            return 0;
          }
        }
        if (!whole) {
          // Only this scope's own files and folders: per-topic notebooks nested in a per-user one stay.
          return locked(scope, async () => {
            const own: { path: string; full: string }[] = [];
            await walk(dir, '', 1, own, false);
            for (const f of own) await fs.rm(f.full, { force: true });
            // Temporary files of writers that crashed hold the scope's text too (no writer of it runs: the lock is held).
            await removeTempFiles(dir);
            for (const e of await fs.readdir(dir, { withFileTypes: true })) {
              if (!e.name.startsWith('.') && e.isDirectory())
                await fs.rm(path.join(dir, e.name), { recursive: true, force: true });
            }
            await fsyncDir(dir, o.fsync);
            return own.length;
          });
        }
        const grave = path.join(path.dirname(dir), `.${path.basename(dir)}.removed-${process.pid}-${Date.now()}`);
        await fs.rename(dir, grave);
        await fsyncDir(path.dirname(dir), o.fsync);
        await fs.rm(grave, { recursive: true, force: true });
        return found.length;
      });
    },

    async close() {},
  };
}
