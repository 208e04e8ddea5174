import { promises as fs } from 'node:fs';
import path from 'node:path';
import { checkName, MemError, type TranscriptMessage } from '@mem/core';
import {
  type ArchiveInfo,
  appendRepair,
  archiveId,
  type CompactionChange,
  type CompactionResult,
  type CompactionStepHook,
  checkCompactionBasis,
  compareArchiveIds,
  guardTranscriptStore,
  isEmptyContent,
  type LockedTranscript,
  parseArchiveId,
  parseTranscript,
  renderTranscript,
  renderTranscriptBlock,
  type Transcript,
  type TranscriptHeader,
  type TranscriptStore,
  usesCrlf,
  wrapStoreError,
} from '@mem/core/adapter';
import {
  commitExclusive,
  commitReplace,
  ensureDir,
  fsyncDir,
  isCode,
  readIfExists,
  removeGraves,
  removeTempFiles,
  replaceFile,
  writeAll,
  writeTemp,
} from './fs-utils.js';
import { agentDir, agentsDir, type MarkdownStoreOptions, resolveOptions } from './layout.js';
import { withFileLock } from './lock.js';

export interface MarkdownTranscriptStoreOptions extends MarkdownStoreOptions {
  /** Called before each compaction step (see MARKDOWN_COMPACTION_STEPS); throwing simulates a crash there (tests). */
  onCompactionStep?: CompactionStepHook;
}

/**
 * The steps of a compaction, in order. A crash before any of them leaves the old transcript (and perhaps a complete
 * archive) or, after the last, the new transcript with its archive; never a half-written file.
 */
export const MARKDOWN_COMPACTION_STEPS = [
  'read',
  'write-archive',
  'link-archive',
  'write-transcript',
  'replace-transcript',
] as const;

const TRANSCRIPT_FILE = 'MEMORY.md';
const HEAD_BYTES = 4096;
const CLEAN_END = Buffer.from('\n---\n\n');
const LOG_LINE = '\n## Interaction Log\n';

async function readAt(fh: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
}

function strip(t: Transcript): Transcript {
  return { header: t.header, messages: t.messages };
}

/**
 * TranscriptStore on Markdown files (docs/conversations.md): `<root>/agents/<agent>/MEMORY.md` plus `archive/history_<time>.md`
 * (other spaces under `<root>/spaces/<space>/`). Human-readable, durable and safe for several processes:
 *
 * - `append` takes the agent's lock file, writes every block of the call in one `write()` at the end of the file
 *   (O_APPEND), and fsyncs before it resolves. Appends take the lock (briefly) because compaction replaces the file by
 *   rename: an append landing on the old file between the archive copy and the rename would otherwise be lost.
 * - `compact` holds the same lock while it copies the transcript to a new archive (temporary file, fsync, hard link so
 *   an existing archive is never overwritten, fsync folder) and then replaces the transcript (temporary file, fsync,
 *   rename, fsync folder). A crash anywhere leaves the old transcript or the new one, and the archive is complete
 *   before the transcript is replaced.
 * - The lock holds pid, host and time; a lock of a dead process, or older than `staleLockMs`, is broken.
 * - A new transcript is created whole (temporary file + rename), so its header is never torn; an append that finds
 *   the end of the file torn by a crash cuts the incomplete block off (it was never acknowledged) before writing.
 */
export function createMarkdownTranscriptStore(options: MarkdownTranscriptStoreOptions): TranscriptStore {
  const o = resolveOptions(options);
  const hook = options.onCompactionStep;
  const fail = (what: string, error: unknown) => wrapStoreError('markdown', error, what);

  const dirOf = (space: string, agent: string) => agentDir(o, space, agent);
  const fileOf = (space: string, agent: string) => path.join(dirOf(space, agent), TRANSCRIPT_FILE);
  const archiveDirOf = (space: string, agent: string) => path.join(dirOf(space, agent), 'archive');

  async function readTranscript(space: string, agent: string): Promise<Transcript | null> {
    const file = fileOf(space, agent);
    const buf = await readIfExists(file);
    if (!buf || buf.length === 0) return null;
    const parsed = parseTranscript(buf.toString('utf8'), `markdown: ${file}`);
    return parsed ? strip(parsed) : null;
  }

  /** Header of an existing transcript file, read from its first bytes (the whole file only when needed). */
  async function headerOf(fh: fs.FileHandle, file: string, size: number): Promise<TranscriptHeader> {
    let text = (await readAt(fh, 0, Math.min(HEAD_BYTES, size))).toString('utf8');
    if (!text.includes(LOG_LINE) && size > HEAD_BYTES) text = (await readAt(fh, 0, size)).toString('utf8');
    const at = text.indexOf(LOG_LINE);
    return parseTranscript(at >= 0 ? text.slice(0, at + LOG_LINE.length) : text, `markdown: ${file}`)!.header;
  }

  function locked(space: string, agent: string): LockedTranscript {
    const dir = dirOf(space, agent);
    const file = fileOf(space, agent);
    return {
      read: () => readTranscript(space, agent),

      async append(messages: TranscriptMessage[], init: TranscriptHeader) {
        const kept = messages.filter((m) => !isEmptyContent(m.content));
        const blocks = kept.map(renderTranscriptBlock).join('');
        let fh: fs.FileHandle;
        try {
          fh = await fs.open(file, 'r+');
        } catch (error) {
          if (!isCode(error, 'ENOENT')) throw error;
          if (kept.length === 0) return { header: { ...init } };
          // A new transcript is written whole, so that its header can never be torn.
          await replaceFile(file, renderTranscript(agent, { header: init, messages: kept }), { fsync: o.fsync });
          return { header: { ...init } };
        }
        try {
          let { size } = await fh.stat();
          if (size > 0 && usesCrlf((await readAt(fh, 0, Math.min(HEAD_BYTES, size))).toString('utf8'))) {
            // Saved by an editor with CRLF line endings: rewrite it with \n (same text, atomic) before appending.
            const text = (await readAt(fh, 0, size)).toString('utf8').replace(/\r\n/g, '\n');
            await fh.close();
            await replaceFile(file, text, { fsync: o.fsync });
            fh = await fs.open(file, 'r+');
            size = (await fh.stat()).size;
          }
          if (size === 0) {
            await fh.close();
            await replaceFile(file, renderTranscript(agent, { header: init, messages: kept }), { fsync: o.fsync });
            return { header: { ...init } };
          }
          const header = await headerOf(fh, file, size);
          if (kept.length === 0) return { header };
          let pad = '';
          let end = size;
          const tail = await readAt(fh, size - Math.min(CLEAN_END.length, size), Math.min(CLEAN_END.length, size));
          if (!tail.equals(CLEAN_END)) {
            // After the header, or a write cut short by a crash: find where the last complete block ends.
            const text = (await readAt(fh, 0, size)).toString('utf8');
            const repair = appendRepair(text);
            pad = repair.pad;
            end = Buffer.byteLength(text.slice(0, repair.keep), 'utf8');
            if (end < size) await fh.truncate(end);
          }
          await writeAll(fh, Buffer.from(pad + blocks, 'utf8'), end);
          if (o.fsync) await fh.datasync();
          return { header };
        } finally {
          await fh.close().catch(() => {});
        }
      },

      async compact(change: CompactionChange): Promise<CompactionResult> {
        await hook?.('read');
        const buf = await readIfExists(file);
        if (!buf || buf.length === 0) {
          throw new MemError(
            'NOT_FOUND',
            `markdown: agent "${agent}" has no transcript to compact in space "${space}" (${file}).`,
          );
        }
        const current = parseTranscript(buf.toString('utf8'), `markdown: ${file}`)!;
        checkCompactionBasis(current, change, agent);
        const carried = current.messages.slice(change.basis.messageCount);
        const next: Transcript = {
          header: { ...change.header },
          messages: [...change.messages.filter((m) => !isEmptyContent(m.content)).map((m) => ({ ...m })), ...carried],
        };
        const archiveDir = archiveDirOf(space, agent);
        await ensureDir(archiveDir, o.fsync);
        // Holding the lock, any temporary file here is a leftover of a crashed writer.
        await removeTempFiles(dir);
        await removeTempFiles(archiveDir);

        await hook?.('write-archive');
        const tmpArchive = await writeTemp(path.join(archiveDir, 'history.md'), buf, { fsync: o.fsync });
        await hook?.('link-archive');
        let id = '';
        for (let n = 1; ; n++) {
          id = archiveId(change.archivedAt, n);
          try {
            await commitExclusive(tmpArchive, path.join(archiveDir, `${id}.md`), o.fsync);
            break;
          } catch (error) {
            if (!isCode(error, 'EEXIST')) throw error;
          }
        }
        await hook?.('write-transcript');
        const tmpTranscript = await writeTemp(file, renderTranscript(agent, next), { fsync: o.fsync });
        await hook?.('replace-transcript');
        await commitReplace(tmpTranscript, file, o.fsync);
        return {
          archive: { id, archivedAt: archiveTime(id), size: buf.length },
          transcript: next,
          carried: carried.length,
        };
      },
    };
  }

  async function underLock<T>(
    space: string,
    agent: string,
    what: string,
    fn: (tx: LockedTranscript) => Promise<T>,
  ): Promise<T> {
    const dir = dirOf(space, agent);
    await ensureDir(dir, o.fsync);
    return withFileLock(path.join(dir, '.lock'), o.lock, `the transcript of agent "${agent}" (${what})`, () =>
      fn(locked(space, agent)),
    );
  }

  /** Run an operation, wrapping unexpected I/O errors (MemErrors and test hooks' errors pass through). */
  async function guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (MemError.is(error) || !(error as NodeJS.ErrnoException)?.code) throw error;
      throw fail(what, error);
    }
  }

  async function archiveFiles(space: string, agent: string): Promise<ArchiveInfo[]> {
    const dir = archiveDirOf(space, agent);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return [];
      throw error;
    }
    const out: ArchiveInfo[] = [];
    for (const name of names) {
      if (!name.endsWith('.md')) continue;
      const id = name.slice(0, -3);
      if (!parseArchiveId(id)) continue;
      try {
        const st = await fs.stat(path.join(dir, name));
        if (st.isFile()) out.push({ id, archivedAt: archiveTime(id), size: st.size });
      } catch (error) {
        if (!isCode(error, 'ENOENT')) throw error;
      }
    }
    return out.sort((a, b) => compareArchiveIds(a.id, b.id));
  }

  return guardTranscriptStore({
    name: 'markdown',
    capabilities: { durable: true, crossProcess: true },

    async append(space, agent, messages, init) {
      return guard('append', () => underLock(space, agent, 'append', (tx) => tx.append(messages, init)));
    },

    async read(space, agent) {
      return guard('read', () => readTranscript(space, agent));
    },

    async compact(space, agent, change) {
      return guard('compact', () => underLock(space, agent, 'compact', (tx) => tx.compact(change)));
    },

    async listArchives(space, agent) {
      return guard('list archives', () => archiveFiles(space, agent));
    },

    async readArchive(space, agent, id) {
      return guard('read archive', async () => {
        const file = path.join(archiveDirOf(space, agent), `${id}.md`);
        const buf = await readIfExists(file);
        if (!buf)
          throw new MemError(
            'NOT_FOUND',
            `markdown: no archive "${id}" for agent "${agent}"; listArchives shows the ones that exist.`,
          );
        const parsed = parseTranscript(buf.toString('utf8'), `markdown: ${file}`);
        if (!parsed) throw new MemError('STORE_CORRUPT', `markdown: archive ${file} is empty.`);
        return strip(parsed);
      });
    },

    async deleteArchive(space, agent, id) {
      return guard('delete archive', async () => {
        const dir = archiveDirOf(space, agent);
        try {
          await fs.unlink(path.join(dir, `${id}.md`));
        } catch (error) {
          if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return false;
          throw error;
        }
        await fsyncDir(dir, o.fsync);
        return true;
      });
    },

    async remove(space, agent) {
      return guard('remove', async () => {
        const dir = dirOf(space, agent);
        // What a removal that crashed before its delete left behind goes too (forget leaves no file of the agent).
        await removeGraves(path.dirname(dir), agent);
        try {
          await fs.access(dir);
        } catch {
          return { transcripts: 0, archives: 0 };
        }
        return underLock(space, agent, 'remove', async () => {
          const transcripts = (await readIfExists(path.join(dir, TRANSCRIPT_FILE))) ? 1 : 0;
          const archives = (await archiveFiles(space, agent)).length;
          // Move the folder aside first (one atomic step), then delete it.
          const grave = path.join(path.dirname(dir), `.${agent}.removed-${process.pid}-${Date.now()}`);
          await fs.rename(dir, grave);
          await fsyncDir(path.dirname(dir), o.fsync);
          await fs.rm(grave, { recursive: true, force: true });
          return { transcripts, archives };
        });
      });
    },

    async agents(space) {
      return guard('list agents', async () => {
        const dir = agentsDir(o, space);
        let names: string[];
        try {
          names = await fs.readdir(dir);
        } catch (error) {
          if (isCode(error, 'ENOENT')) return [];
          throw error;
        }
        const out: string[] = [];
        for (const name of names) {
          if (name.startsWith('.')) continue;
          try {
            checkName(name, 'agent');
          } catch {
            continue;
          }
          const has =
            (await readIfExists(path.join(dir, name, TRANSCRIPT_FILE))) !== null ||
            (await archiveFiles(space, name)).length > 0;
          if (has) out.push(name);
        }
        return out.sort();
      });
    },

    async withLock(space, agent, fn) {
      return underLock(space, agent, 'withLock', fn);
    },

    async close() {},
  });
}

function archiveTime(id: string): string {
  return parseArchiveId(id)!.archivedAt;
}
