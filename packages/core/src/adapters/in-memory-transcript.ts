import { guardTranscriptStore } from '../adapter-kit/transcripts.js';
import { archiveId, compareArchiveIds } from '../domain/archive-names.js';
import { checkCompactionBasis } from '../domain/compaction.js';
import { isEmptyContent, renderTranscript } from '../domain/transcript-format.js';
import { MemError } from '../errors.js';
import type * as T from '../ports/transcript-store.js';

interface Entry {
  space: string;
  agent: string;
  transcript: T.Transcript | null;
  archives: { info: T.ArchiveInfo; transcript: T.Transcript }[];
}

/** The state behind in-memory transcript stores; share it between instances to model "reopening". */
export interface InMemoryTranscriptData {
  entries: Map<string, Entry>;
  locks: Map<string, Promise<void>>;
}

export function createInMemoryTranscriptData(): InMemoryTranscriptData {
  return { entries: new Map(), locks: new Map() };
}

export interface InMemoryTranscriptStoreOptions {
  /** Share state with another instance (as if both opened one database). */
  data?: InMemoryTranscriptData;
  /** Called before each compaction step: `archive`, `replace`. Throwing simulates a crash there (tests). */
  onCompactionStep?: T.CompactionStepHook;
}

/** The compaction steps of the in-memory store, in order. */
export const IN_MEMORY_COMPACTION_STEPS = ['archive', 'replace'] as const;

const cloneTranscript = (t: T.Transcript): T.Transcript => ({
  header: { ...t.header },
  messages: t.messages.map((m) => ({ ...m })),
});

/**
 * TranscriptStore kept in process memory: for tests, demos and short-lived agents. Same semantics as the durable
 * adapters within one process (locks are per process); nothing survives the process.
 */
export function createInMemoryTranscriptStore(
  options: InMemoryTranscriptStoreOptions = {},
): T.TranscriptStore & { readonly data: InMemoryTranscriptData } {
  const data = options.data ?? createInMemoryTranscriptData();
  const hook = options.onCompactionStep;
  const keyOf = (space: string, agent: string) => `${space}\u0000${agent}`;

  const entry = (space: string, agent: string, create: boolean): Entry | undefined => {
    const key = keyOf(space, agent);
    let e = data.entries.get(key);
    if (!e && create) {
      e = { space, agent, transcript: null, archives: [] };
      data.entries.set(key, e);
    }
    return e;
  };

  async function withMutex<T>(space: string, agent: string, fn: () => Promise<T>): Promise<T> {
    const key = keyOf(space, agent);
    const before = data.locks.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const chained = before.then(() => mine);
    data.locks.set(key, chained);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (data.locks.get(key) === chained) data.locks.delete(key);
    }
  }

  function locked(space: string, agent: string): T.LockedTranscript {
    return {
      async read() {
        const t = entry(space, agent, false)?.transcript;
        return t ? cloneTranscript(t) : null;
      },
      async append(messages: T.TranscriptMessage[], init: T.TranscriptHeader) {
        const e = entry(space, agent, true)!;
        e.transcript ??= { header: { ...init }, messages: [] };
        for (const m of messages) if (!isEmptyContent(m.content)) e.transcript.messages.push({ ...m });
        return { header: { ...e.transcript.header } };
      },
      async compact(change: T.CompactionChange): Promise<T.CompactionResult> {
        const e = entry(space, agent, false);
        const current = e?.transcript;
        if (!e || !current)
          throw new MemError(
            'NOT_FOUND',
            `in-memory: agent "${agent}" has no transcript to compact in space "${space}".`,
          );
        checkCompactionBasis(current, change, agent);
        const carried = current.messages.slice(change.basis.messageCount);
        const archivedAt = change.archivedAt;
        await hook?.('archive');
        const taken = new Set(e.archives.map((a) => a.info.id));
        let n = 1;
        while (taken.has(archiveId(archivedAt, n))) n++;
        const info: T.ArchiveInfo = {
          id: archiveId(archivedAt, n),
          archivedAt,
          size: Buffer.byteLength(renderTranscript(agent, current)),
        };
        e.archives.push({ info, transcript: cloneTranscript(current) });
        await hook?.('replace');
        const next: T.Transcript = {
          header: { ...change.header },
          messages: [...change.messages.filter((m) => !isEmptyContent(m.content)).map((m) => ({ ...m })), ...carried],
        };
        e.transcript = next;
        return { archive: { ...info }, transcript: cloneTranscript(next), carried: carried.length };
      },
    };
  }

  const sortedArchives = (e: Entry | undefined) =>
    (e?.archives ?? []).map((a) => a.info).sort((a, b) => compareArchiveIds(a.id, b.id));

  return guardTranscriptStore({
    name: 'in-memory',
    capabilities: { durable: false, crossProcess: false },
    data,
    async append(space, agent, messages, init) {
      return withMutex(space, agent, () => locked(space, agent).append(messages, init));
    },
    async read(space, agent) {
      return locked(space, agent).read();
    },
    async compact(space, agent, change) {
      return withMutex(space, agent, () => locked(space, agent).compact(change));
    },
    async listArchives(space, agent) {
      return sortedArchives(entry(space, agent, false));
    },
    async readArchive(space, agent, id) {
      const found = entry(space, agent, false)?.archives.find((a) => a.info.id === id);
      if (!found)
        throw new MemError(
          'NOT_FOUND',
          `in-memory: no archive "${id}" for agent "${agent}"; listArchives shows the ones that exist.`,
        );
      return cloneTranscript(found.transcript);
    },
    async deleteArchive(space, agent, id) {
      const e = entry(space, agent, false);
      if (!e) return false;
      const before = e.archives.length;
      e.archives = e.archives.filter((a) => a.info.id !== id);
      return e.archives.length < before;
    },
    async remove(space, agent) {
      return withMutex(space, agent, async () => {
        const e = entry(space, agent, false);
        if (!e) return { transcripts: 0, archives: 0 };
        data.entries.delete(keyOf(space, agent));
        return { transcripts: e.transcript ? 1 : 0, archives: e.archives.length };
      });
    },
    async agents(space) {
      const out: string[] = [];
      for (const e of data.entries.values())
        if (e.space === space && (e.transcript || e.archives.length > 0)) out.push(e.agent);
      return out.sort();
    },
    async withLock(space, agent, fn) {
      return withMutex(space, agent, () => fn(locked(space, agent)));
    },
    async close() {},
  });
}
