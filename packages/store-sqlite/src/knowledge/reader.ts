import type { MemoryVersion } from '@mem/core';
import { inOrder, type KnowledgeReader, type ScanOptions, SQL_RECORDS, selectList } from '@mem/core/adapter';
import { sqliteDialect } from '../sql-layer.js';
import type { SqliteKnowledgeContext } from './context.js';
import { type ChunkRow, COLUMNS, rowToRecord } from './rows.js';

/** The read role: chunks, documents, lookups by key and content hash, scans and versions. */
export function createReader(ctx: SqliteKnowledgeContext): KnowledgeReader {
  const { stmt, run } = ctx;
  const LOG = SQL_RECORDS.formationEntry;
  const LOG_COLUMNS = selectList(sqliteDialect, LOG.fields);
  return {
    formationLog(space, memoryIds) {
      return run('formationLog', () => {
        if (memoryIds.length === 0) return [];
        const rows = stmt(
          `SELECT ${LOG_COLUMNS} FROM formation_log
           WHERE space = ? AND memory_id IN (SELECT value FROM json_each(?)) ORDER BY at, id`,
        ).all(space, JSON.stringify([...new Set(memoryIds)])) as Record<string, unknown>[];
        return rows.map(LOG.from);
      });
    },

    getChunk(space, id) {
      return run('getChunk', () => {
        const row = stmt(`SELECT ${COLUMNS} FROM chunks c WHERE c.id = ? AND c.space = ?`).get(id, space) as
          | ChunkRow
          | undefined;
        return row === undefined ? null : rowToRecord(row);
      });
    },

    getDocument(space, docId) {
      return run('getDocument', () => {
        const rows = stmt(
          `SELECT ${COLUMNS} FROM chunks c WHERE c.space = ? AND c.doc_id = ? ORDER BY c.chunk_index`,
        ).all(space, docId) as ChunkRow[];
        return rows.map(rowToRecord);
      });
    },

    getChunks(space, ids) {
      if (ids.length === 0) return run('getChunks', () => []);
      return run('getChunks', () => {
        const unique = [...new Set(ids)];
        const rows = stmt(
          // json_each drives the join: one (id, space) index lookup per id. `c.id IN (SELECT … json_each)` let the
          // planner walk every chunk of the space instead (it grew with the space: 3.5 ms at 100,000 memories).
          `SELECT ${COLUMNS} FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value WHERE c.space = ?`,
        ).all(JSON.stringify(unique), space) as ChunkRow[];
        return inOrder(rows, unique).map(rowToRecord);
      });
    },

    findDocIdByKey(space, scope, agentId, key) {
      return run('findDocIdByKey', () => {
        const row = stmt(
          'SELECT doc_id FROM chunks WHERE space = ? AND scope = ? AND agent_id = ? AND key = ? ORDER BY chunk_index LIMIT 1',
        ).get(space, scope, agentId, key) as { doc_id: string } | undefined;
        return row?.doc_id ?? null;
      });
    },

    findDocIdsByHashes(space, lookups) {
      return run('findDocIdsByHashes', () => {
        if (lookups.length === 0) return [];
        // One statement for the batch; per lookup the oldest chunk with that owner and hash.
        const rows = stmt(
          `SELECT CAST(j.key AS INTEGER) AS i,
             (SELECT c.doc_id FROM chunks c
              WHERE c.space = ? AND c.scope = json_extract(j.value, '$.scope')
                AND c.agent_id = json_extract(j.value, '$.agentId')
                AND c.content_hash = json_extract(j.value, '$.contentHash')
              ORDER BY c.created_at, c.rid LIMIT 1) AS doc_id
           FROM json_each(?) j`,
        ).all(
          space,
          JSON.stringify(lookups.map((l) => ({ scope: l.scope, agentId: l.agentId, contentHash: l.contentHash }))),
        ) as { i: number; doc_id: string | null }[];
        const out: (string | null)[] = lookups.map(() => null);
        for (const row of rows) out[row.i] = row.doc_id ?? null;
        return out;
      });
    },

    listVersions(space, docId) {
      return run('listVersions', () => {
        const rows = stmt(
          `SELECT doc_id, space, version, old_content, old_key, intent, agent_id, at FROM versions
           WHERE space = ? AND doc_id = ? ORDER BY version, vid`,
        ).all(space, docId) as {
          doc_id: string;
          space: string;
          version: number;
          old_content: string;
          old_key: string;
          intent: string;
          agent_id: string;
          at: string;
        }[];
        return rows.map(
          (row): MemoryVersion => ({
            docId: row.doc_id,
            space: row.space,
            version: row.version,
            oldContent: row.old_content,
            oldKey: row.old_key,
            intent: row.intent,
            agentId: row.agent_id,
            at: row.at,
          }),
        );
      });
    },

    scan(options: ScanOptions) {
      return run('scan', () => {
        const limit = Math.floor(options.limit);
        if (!(limit > 0)) return [];
        const where: string[] = [];
        const params: unknown[] = [];
        if (options.space !== undefined) {
          // `+`: not an index term, so the scan walks chunks_scan (created_at, id) in order and skips other spaces'
          // rows, instead of taking one space's rows from chunks_owner_time and sorting them for every page.
          where.push('+c.space = ?');
          params.push(options.space);
        }
        if (options.after !== undefined) {
          where.push('(c.created_at, c.id) > (?, ?)');
          params.push(options.after.createdAt, options.after.id);
        }
        params.push(limit);
        const rows = stmt(
          `SELECT ${COLUMNS} FROM chunks c ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY c.created_at, c.id LIMIT ?`,
        ).all(...params) as ChunkRow[];
        return rows.map(rowToRecord);
      });
    },
  };
}
