import type { MemoryVersion, Scope } from '@mem/core';
import { MemError } from '@mem/core';
import { type KnowledgeWriter, keyTakenByStore, type MemoryRecord } from '@mem/core/adapter';
import { rowsToTable } from '../arrow-rows.js';
import { ADAPTER } from '../database.js';
import { eraseRows } from '../erase-rows.js';
import { GroupCommit } from '../group-commit.js';
import { optimizeTables } from '../optimize-tables.js';
import { baseOf, type Row, recordToRow, vectorDimension, versionToRow } from '../schema.js';
import { chunked, docPredicate, rows, sqlIn, sqlString, wellFormed } from '../sql.js';
import { lookupRows, tailRow } from '../tail-rows.js';
import { type LanceKnowledgeContext, notFound, plainTables, type Tables } from './context.js';
import { appendLog, checkCloses, closeDocuments, reopenDocuments } from './formation.js';

const keyTaken = (key: string, scope: Scope, agentId: string, holder: string): MemError =>
  keyTakenByStore(key, scope, agentId, holder);

/**
 * The write role: inserts (grouped into one append while the write lock is busy), edits and moves (version row first,
 * undone when the chunk write fails), formations (insert, close, log), deletions with their history.
 */
export function createWriter(ctx: LanceKnowledgeContext): KnowledgeWriter {
  const { runner, read, write, chunksChanged } = ctx;

  /** Under the lock: the document's stored version, after checking that it exists and matches. */
  async function checkVersion(
    t: Tables,
    space: string,
    docId: string,
    expected: number,
  ): Promise<{ version: number; scope: Scope; agentId: string; base: ReturnType<typeof baseOf> }> {
    const found = await rows(t.chunks, docPredicate(space, docId), undefined, [
      'version',
      'scope',
      'agent_id',
      'access_base',
      'last_access_base',
      'alpha_base',
      'beta_base',
    ]);
    if (found.length === 0) throw notFound(space, docId);
    const version = Math.max(...found.map((r) => Number(r.version)));
    if (version !== expected) {
      throw new MemError(
        'CONFLICT',
        `Memory ${docId} changed since it was read (stored version ${version}, expected ${expected}). Read it again and retry the edit.`,
        { retryable: true, details: { docId, storedVersion: version, expectedVersion: expected } },
      );
    }
    const first = found[0]!;
    return { version, scope: String(first.scope) as Scope, agentId: String(first.agent_id), base: baseOf(first) };
  }

  /** Under the lock: the document holding (space, scope, agent, key), other than `self`. */
  async function keyHolder(
    t: Tables,
    space: string,
    scope: Scope,
    agentId: string,
    key: string,
    self: string,
  ): Promise<string | null> {
    const found = await rows(
      t.chunks,
      `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND key = ${sqlString(key)} AND doc_id <> ${sqlString(self)}`,
      1,
      ['doc_id'],
    );
    return found[0] ? String(found[0].doc_id) : null;
  }

  /**
   * Under the lock, for a batch of new documents: each key must be free, in the table and within the batch
   * (KEY_TAKEN), and no document or chunk id may exist already or twice in the batch (CONFLICT). One query per
   * slice of documents (their keys and ids), plus one per slice of the further chunk ids of long documents.
   */
  async function checkNewDocuments(t: Tables, docs: MemoryRecord[][]): Promise<void> {
    const ownerKey = (r: Record<string, unknown>) =>
      JSON.stringify([String(r.space), String(r.scope), String(r.agent_id), String(r.key)]);
    const claimants = new Map<string, MemoryRecord>();
    const ids = new Set<string>();
    const conflict = (space: string, id: string, docId?: string) =>
      new MemError(
        'CONFLICT',
        docId !== undefined
          ? `${ADAPTER}: memory ${docId} already exists in space ${space}.`
          : `${ADAPTER}: a memory chunk with id ${id} already exists in space ${space}.`,
      );
    const firsts: MemoryRecord[] = [];
    for (const chunks of docs) {
      const first = chunks[0];
      if (!first) continue;
      firsts.push(first);
      const k = ownerKey({ space: first.space, scope: first.scope, agent_id: first.agentId, key: first.key });
      const earlier = claimants.get(k);
      if (earlier && earlier.docId !== first.docId) {
        throw keyTaken(first.key, first.scope, first.agentId, earlier.docId);
      }
      claimants.set(k, first);
      for (const c of chunks) {
        const id = `${c.space}\u0000${c.id}`;
        if (ids.has(id)) throw conflict(c.space, c.id);
        ids.add(id);
      }
    }
    const bySpace = new Map<string, MemoryRecord[][]>();
    for (const chunks of docs) {
      const first = chunks[0];
      if (!first) continue;
      const list = bySpace.get(first.space) ?? [];
      list.push(chunks);
      bySpace.set(first.space, list);
    }
    const columns = ['id', 'doc_id', 'space', 'scope', 'agent_id', 'key'];
    // Under the lock: no other commit can land while these run (see `lookupRows`).
    const lookup = (where: string, match: (r: Row) => boolean) =>
      lookupRows(t.chunks, t.upkeep.chunks.tail, where, columns, match, true);
    const stored = (values: readonly string[]) => new Set(values.map(wellFormed));
    for (const [spaceName, list] of bySpace) {
      const space = sqlString(spaceName);
      const inSpace = wellFormed(spaceName);
      const found: Row[] = [];
      for (const slice of chunked(list)) {
        const keys = [...new Set(slice.map((c) => c[0]!.key))];
        const docIds = slice.map((c) => c[0]!.docId);
        const chunkIds = slice.map((c) => c[0]!.id);
        const [k, d, c] = [stored(keys), stored(docIds), stored(chunkIds)];
        found.push(
          ...(await lookup(
            `space = ${space} AND (${sqlIn('key', keys)} OR ${sqlIn('doc_id', docIds)} OR ${sqlIn('id', chunkIds)})`,
            (r) => r.space === inSpace && (k.has(String(r.key)) || d.has(String(r.doc_id)) || c.has(String(r.id))),
          )),
        );
      }
      const more = list.flatMap((chunks) => chunks.slice(1).map((c) => c.id));
      for (const slice of chunked(more)) {
        const ids = stored(slice);
        found.push(
          ...(await lookup(
            `space = ${space} AND ${sqlIn('id', slice)}`,
            (r) => r.space === inSpace && ids.has(String(r.id)),
          )),
        );
      }
      // KEY_TAKEN first (as for one document), reported for the first document of the batch that hits it.
      let taken: { at: number; first: MemoryRecord; holder: string } | undefined;
      const order = new Map(firsts.map((f, i) => [f, i]));
      for (const r of found) {
        const claimant = claimants.get(ownerKey(r));
        if (!claimant || claimant.docId === String(r.doc_id)) continue;
        const at = order.get(claimant) ?? 0;
        if (!taken || at < taken.at) taken = { at, first: claimant, holder: String(r.doc_id) };
      }
      if (taken) throw keyTaken(taken.first.key, taken.first.scope, taken.first.agentId, taken.holder);
      const docIdSet = new Set(list.map((c) => c[0]!.docId));
      for (const r of found) {
        if (docIdSet.has(String(r.doc_id))) throw conflict(spaceName, String(r.id), String(r.doc_id));
        if (ids.has(`${spaceName}\u0000${String(r.id)}`)) throw conflict(spaceName, String(r.id));
      }
    }
  }

  /** Under the lock: refuse chunk ids that another document of the space already uses. */
  async function checkIds(t: Tables, space: string, docId: string, ids: string[]): Promise<void> {
    for (const batch of chunked(ids)) {
      const clash = await rows(
        t.chunks,
        `space = ${sqlString(space)} AND ${sqlIn('id', batch)} AND doc_id <> ${sqlString(docId)}`,
        1,
        ['id'],
      );
      if (clash.length > 0) {
        throw new MemError(
          'CONFLICT',
          `${ADAPTER}: a memory chunk with id ${String(clash[0]!.id)} already exists in space ${space}.`,
        );
      }
    }
  }

  /**
   * Under the lock: write the version row of an edit before the chunks change. Rows left by an edit that never
   * committed (a crash between the two writes) have a version number ≥ the document's; they are removed here and
   * never listed.
   */
  async function writeVersionRow(t: Tables, v: MemoryVersion, storedVersion: number): Promise<void> {
    const stale = `${docPredicate(v.space, v.docId)} AND version >= ${Math.floor(storedVersion)}`;
    if ((await t.versions.countRows(stale)) > 0) await t.versions.delete(stale);
    await t.versions.add([versionToRow(v, Date.now())]);
  }

  async function undoVersionRow(t: Tables, v: MemoryVersion, storedVersion: number): Promise<void> {
    await t.versions
      .delete(`${docPredicate(v.space, v.docId)} AND version >= ${Math.floor(storedVersion)}`)
      .catch(() => undefined);
  }

  /**
   * Delete the history rows of documents (versions, ratings, access, decision-log lines); `erase`: so that no copy
   * stays in the files (`eraseRows`, forget).
   */
  async function deleteHistory(t: Tables, space: string, docIds: string[], erase = false): Promise<void> {
    for (const batch of chunked(docIds)) {
      const inSpace = `space = ${sqlString(space)}`;
      for (const [table, column] of [
        [t.versions, 'doc_id'],
        [t.ratings, 'doc_id'],
        [t.access, 'doc_id'],
        [t.formationLog, 'memory_id'],
      ] as const) {
        const where = `${inSpace} AND ${sqlIn(column, batch)}`;
        if (erase) await eraseRows(table, where);
        else await table.delete(where);
      }
    }
  }

  /**
   * Under the lock: one grouped commit of the inserts of several callers (each an `insertDocuments` call). Each
   * call is checked as it would be alone — against the table and against the calls before it in the batch — and a
   * call that fails its check gets its own error; every other call's documents go into one append.
   */
  async function commitInserts(t: Tables, calls: readonly MemoryRecord[][][]): Promise<Array<unknown | undefined>> {
    const outcomes: Array<unknown | undefined> = calls.map(() => undefined);
    const refusal = (error: unknown) =>
      error instanceof MemError && (error.code === 'KEY_TAKEN' || error.code === 'CONFLICT');
    try {
      // One query for the whole batch when nothing clashes (the usual case).
      await checkNewDocuments(t, calls.flat());
    } catch (error) {
      if (!refusal(error)) throw error;
      const accepted: MemoryRecord[][] = [];
      for (const [i, docs] of calls.entries()) {
        try {
          await checkNewDocuments(t, [...accepted, ...docs]);
          accepted.push(...docs);
        } catch (own) {
          if (!refusal(own)) throw own;
          outcomes[i] = own;
        }
      }
    }
    await appendDocuments(t, calls.filter((_, i) => outcomes[i] === undefined).flat());
    return outcomes;
  }

  /**
   * Under the lock, after `checkNewDocuments`: every chunk of `docs` in one append = one LanceDB commit (readers see
   * every chunk of every document, or none), the rows as an Arrow table of the table's schema (see rowsToTable).
   */
  async function appendDocuments(t: Tables, docs: readonly MemoryRecord[][]): Promise<void> {
    const all = docs.flat();
    if (all.length === 0) return;
    const schema = await t.upkeep.chunks.ensureVectorSchema(
      all.flatMap((c) => (c.embedding ? [c.embedding.length] : [])),
    );
    const columns = schema.fields.map((f) => f.name).filter((n) => vectorDimension(n) !== null);
    const data = all.map((c) =>
      recordToRow(c, columns, {
        accessCount: c.accessCount,
        lastAccessedAt: c.lastAccessedAt,
        alpha: c.alpha,
        beta: c.beta,
        version: c.version,
      }),
    );
    const { version } = await t.chunks.add(rowsToTable(schema, data));
    t.upkeep.chunks.tail?.appended(version, data.map(tailRow));
  }

  /** Undo the inserts of a formation whose close or log failed (best effort: the write's own error is reported). */
  async function removeDocuments(t: Tables, docs: readonly MemoryRecord[][]): Promise<void> {
    const bySpace = new Map<string, string[]>();
    for (const [first] of docs) if (first) bySpace.set(first.space, [...(bySpace.get(first.space) ?? []), first.docId]);
    for (const [space, ids] of bySpace)
      for (const batch of chunked(ids))
        await t.chunks.delete(`space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`);
  }

  /** Inserts arriving while the write lock is busy wait together and commit as one append (group commit). */
  const inserts = new GroupCommit<Tables, MemoryRecord[][]>(
    (run) => write('insertDocuments', run, chunksChanged),
    commitInserts,
  );

  const writer: KnowledgeWriter = {
    insertDocument(chunks) {
      return writer.insertDocuments([chunks]);
    },

    insertDocuments(docs) {
      const batch = docs.filter((chunks) => chunks.length > 0);
      if (batch.length === 0 || runner.isClosed) return read('insertDocuments', async () => undefined);
      return inserts.submit(batch);
    },

    form(space, { insert, close, log }) {
      const docs = insert.filter((chunks) => chunks.length > 0);
      if ((docs.length === 0 && close.length === 0 && log.length === 0) || runner.isClosed)
        return read('form', async () => undefined);
      return write(
        'form',
        async (t) => {
          // Every check before the first write: a refused formation writes nothing.
          const before = await checkCloses(t, space, close);
          await checkNewDocuments(t, docs);
          // Insert, close, log: each one commit, in this order, so a crash in between leaves at worst the new memory
          // current beside the one it replaces (never a closed memory without its successor). A failed step undoes
          // the earlier ones.
          await appendDocuments(t, docs);
          try {
            await closeDocuments(t, space, close);
            await appendLog(t, space, log);
          } catch (error) {
            await reopenDocuments(t, space, before)
              .then(() => removeDocuments(t, docs))
              .catch(() => undefined);
            throw error;
          }
        },
        (t) => [t.upkeep.chunks, t.upkeep.formationLog],
      );
    },

    replaceDocument(space, docId, chunks, version, expectedVersion) {
      return write(
        'replaceDocument',
        async (t) => {
          const stored = await checkVersion(t, space, docId, expectedVersion);
          const first = chunks[0];
          if (first) {
            const holder = await keyHolder(t, space, first.scope, first.agentId, first.key, docId);
            if (holder) throw keyTaken(first.key, first.scope, first.agentId, holder);
            await checkIds(
              t,
              space,
              docId,
              chunks.map((c) => c.id),
            );
          }
          const columns = await t.upkeep.chunks.ensureVectorColumns(
            chunks.flatMap((c) => (c.embedding ? [c.embedding.length] : [])),
          );
          // Counters stay with the document: its stored base plus its access and ratings rows (untouched here).
          const data = chunks.map((c) => recordToRow(c, columns, { ...stored.base, version: stored.version + 1 }));
          await writeVersionRow(t, version, stored.version);
          try {
            // One merge-insert = one commit: update chunks that keep their id, insert new ones, delete the rest.
            await t.chunks
              .mergeInsert(['space', 'id'])
              .whenMatchedUpdateAll()
              .whenNotMatchedInsertAll()
              .whenNotMatchedBySourceDelete({ where: docPredicate(space, docId) })
              .execute(data);
          } catch (error) {
            await undoVersionRow(t, version, stored.version);
            throw error;
          }
        },
        (t) => [t.upkeep.chunks, t.upkeep.versions],
      );
    },

    moveDocument(space, docId, change, version, expectedVersion) {
      return write(
        'moveDocument',
        async (t) => {
          const stored = await checkVersion(t, space, docId, expectedVersion);
          const holder = await keyHolder(t, space, stored.scope, stored.agentId, change.newKey, docId);
          if (holder) throw keyTaken(change.newKey, stored.scope, stored.agentId, holder);
          const values: Record<string, string> = {
            key: sqlString(change.newKey),
            updated_at: sqlString(change.updatedAt),
            version: 'version + 1',
          };
          if (change.expiresAt !== undefined)
            values.expires_at = change.expiresAt === null ? 'NULL' : sqlString(change.expiresAt);
          await writeVersionRow(t, version, stored.version);
          try {
            // One update = one commit: every chunk moves together.
            await t.chunks.update({ where: docPredicate(space, docId), valuesSql: values });
          } catch (error) {
            await undoVersionRow(t, version, stored.version);
            throw error;
          }
        },
        (t) => [t.upkeep.chunks, t.upkeep.versions],
      );
    },

    deleteDocument(space, docId) {
      return write(
        'deleteDocument',
        async (t) => {
          const { numDeletedRows } = await t.chunks.delete(docPredicate(space, docId));
          await deleteHistory(t, space, [docId]);
          return numDeletedRows;
        },
        chunksChanged,
      );
    },

    deleteByAgent(space, agentId) {
      return write(
        'deleteByAgent',
        async (t) => {
          // No transactions across tables: under the write lock, count the history first, then delete the chunks
          // (with their embeddings and full-text entries) and after them the versions, ratings and access rows.
          const owned = `space = ${sqlString(space)} AND agent_id = ${sqlString(agentId)}`;
          const found = await rows(t.chunks, owned, undefined, ['doc_id']);
          const docIds = [...new Set(found.map((r) => String(r.doc_id)))];
          if (docIds.length === 0) return { documents: 0, chunks: 0, versions: 0, ratings: 0 };
          let versions = 0;
          let ratings = 0;
          for (const batch of chunked(docIds)) {
            const where = `space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`;
            versions += await t.versions.countRows(where);
            ratings += await t.ratings.countRows(where);
          }
          // Forget leaves no trace: the rows sharing a fragment with a deleted one are rewritten (`eraseRows`), then
          // compaction drops the wholly deleted fragments and cleanup the older table versions that still hold them.
          const chunks = await eraseRows(t.chunks, owned);
          await deleteHistory(t, space, docIds, true);
          await optimizeTables(t.upkeep.chunks, plainTables(t), { cleanupOlderThan: new Date() });
          return { documents: docIds.length, chunks, versions, ratings };
        },
        chunksChanged,
      );
    },

    deleteExpired(now, space) {
      return write(
        'deleteExpired',
        async (t) => {
          const where = `expires_at IS NOT NULL AND expires_at <= ${sqlString(now)}${space === undefined ? '' : ` AND space = ${sqlString(space)}`}`;
          const doomed = await rows(t.chunks, where, undefined, ['space', 'doc_id']);
          if (doomed.length === 0) return 0;
          const { numDeletedRows } = await t.chunks.delete(where);
          const bySpace = new Map<string, Set<string>>();
          for (const r of doomed) {
            const set = bySpace.get(String(r.space)) ?? new Set<string>();
            set.add(String(r.doc_id));
            bySpace.set(String(r.space), set);
          }
          for (const [s, ids] of bySpace) await deleteHistory(t, s, [...ids]);
          return numDeletedRows;
        },
        chunksChanged,
      );
    },
  };
  return writer;
}
