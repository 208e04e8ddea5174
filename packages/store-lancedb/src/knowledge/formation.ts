/**
 * Formation's part of the knowledge store (docs/formation.md): closing memories (their validity columns set on every
 * chunk) and the decision log (a table of its own). The writer's `form` runs these under the write lock, around the
 * insert of the new memories; the reader's `formationLog` reads the log.
 */
import { MemError } from '@mem/core';
import type { DocumentClose, FormationEntry } from '@mem/core/adapter';
import { rowsToTable } from '../arrow-rows.js';
import { ADAPTER } from '../database.js';
import { entryToRow, type Row, rowToEntry } from '../schema.js';
import { chunked, docPredicate, rows, sqlIn, sqlString, wellFormed } from '../sql.js';
import type { Tables } from './context.js';

/** What a closed memory held before its close (every chunk carries the same), to put back if the write fails. */
export type OpenState = Map<string, { validTo: string | null; supersededBy: string | null }>;

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/**
 * Under the lock, before anything is written: every memory `closes` names has chunks in `space`, none of them closed
 * (`invalidated_at` null); else `CONFLICT` (retryable: another distillation got there first, or the memory went).
 * Returns what the closes will overwrite.
 */
export async function checkCloses(t: Tables, space: string, closes: readonly DocumentClose[]): Promise<OpenState> {
  const ids = [...new Set(closes.map((c) => c.docId))];
  const found = new Map<string, { open: boolean; validTo: string | null; supersededBy: string | null }>();
  for (const batch of chunked(ids)) {
    const where = `space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`;
    for (const r of await rows(t.chunks, where, undefined, ['doc_id', 'invalidated_at', 'valid_to', 'superseded_by'])) {
      const id = String(r.doc_id);
      const open = (found.get(id)?.open ?? true) && text(r.invalidated_at) === null;
      found.set(id, { open, validTo: text(r.valid_to), supersededBy: text(r.superseded_by) });
    }
  }
  const state: OpenState = new Map();
  for (const c of closes) {
    const doc = found.get(wellFormed(c.docId));
    if (doc?.open !== true) {
      throw new MemError(
        'CONFLICT',
        `${ADAPTER}: memory ${c.docId} is ${doc ? 'already closed' : 'gone'}; distil again to decide against what is current now.`,
        { retryable: true, details: { docId: c.docId } },
      );
    }
    state.set(c.docId, { validTo: doc.validTo, supersededBy: doc.supersededBy });
  }
  return state;
}

/** `valuesSql` of a nullable text column. */
const literal = (value: string | null) => (value === null ? 'NULL' : sqlString(value));

/**
 * Under the lock, after `checkCloses`: close the memories, each one update of all its chunks (one commit: readers
 * never see half a document closed). Lance's update takes no `CASE`, so several closes are several commits; they run
 * after the insert, so a crash between two leaves memories current beside their successors, never one lost.
 */
export async function closeDocuments(t: Tables, space: string, closes: readonly DocumentClose[]): Promise<void> {
  for (const c of closes) {
    await t.chunks.update({
      where: `${docPredicate(space, c.docId)} AND invalidated_at IS NULL`,
      valuesSql: {
        valid_to: literal(c.validTo),
        invalidated_at: literal(c.invalidatedAt),
        superseded_by: literal(c.supersededBy),
      },
    });
  }
}

/** Put closed memories back as `checkCloses` found them (undoing a formation whose later step failed). */
export async function reopenDocuments(t: Tables, space: string, state: OpenState): Promise<void> {
  for (const [docId, s] of state) {
    await t.chunks.update({
      where: docPredicate(space, docId),
      valuesSql: { valid_to: literal(s.validTo), invalidated_at: 'NULL', superseded_by: literal(s.supersededBy) },
    });
  }
}

/** Append the decision-log lines under `space`, in one commit. */
export async function appendLog(t: Tables, space: string, entries: readonly FormationEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const data = entries.map((e) => entryToRow(space, e));
  await t.formationLog.add(rowsToTable(await t.formationLog.schema(), data));
}

/** The log lines of `memoryIds` in `space`, oldest first (at, then id). */
export async function readLog(t: Tables, space: string, memoryIds: readonly string[]): Promise<FormationEntry[]> {
  const found: Row[] = [];
  for (const batch of chunked([...new Set(memoryIds)]))
    found.push(...(await rows(t.formationLog, `space = ${sqlString(space)} AND ${sqlIn('memory_id', batch)}`)));
  return found
    .map(rowToEntry)
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
