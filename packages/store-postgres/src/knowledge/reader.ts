import type { MemoryVersion } from '@mem/core';
import { inOrder, type KnowledgeReader, type ScanOptions, SQL_RECORDS, selectList } from '@mem/core/adapter';
import { exec, Params } from '../connection.js';
import { iso } from '../queries.js';
import { postgresRead } from '../sql-layer.js';
import type { PgKnowledgeContext } from './context.js';
import { type ChunkRow, COLUMNS, rowToRecord } from './rows.js';

const LOG = SQL_RECORDS.formationEntry;
// Times as ISO-8601 UTC text with milliseconds, evidence and related ids as JSON lists; aliases without underscores.
const LOG_COLUMNS = selectList({ read: postgresRead }, LOG.fields, 'l');

/** The read role: chunks, documents, lookups by key and content hash, scans, versions and the decision log. */
export function createReader(pg: PgKnowledgeContext): KnowledgeReader {
  const { sql, s, run } = pg;
  return {
    getChunk(space, id) {
      return run('getChunk', async () => {
        const [row] = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c WHERE c.id = $1 AND c.space = $2`,
          [id, space],
        );
        return row === undefined ? null : rowToRecord(row);
      });
    },

    getDocument(space, docId) {
      return run('getDocument', async () => {
        const rows = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c WHERE c.space = $1 AND c.doc_id = $2 ORDER BY c.chunk_index`,
          [space, docId],
        );
        return rows.map(rowToRecord);
      });
    },

    getChunks(space, ids) {
      return run('getChunks', async () => {
        const unique = [...new Set(ids)];
        if (unique.length === 0) return [];
        const rows = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c WHERE c.space = $1 AND c.id = ANY($2::text[])`,
          [space, unique],
        );
        return inOrder(rows, unique).map(rowToRecord);
      });
    },

    findDocIdByKey(space, scope, agentId, key) {
      return run('findDocIdByKey', async () => {
        const [row] = await exec<{ docid: string }[]>(
          sql,
          `SELECT doc_id AS docid FROM ${s}.chunks WHERE space = $1 AND scope = $2 AND agent_id = $3 AND key = $4
           ORDER BY chunk_index LIMIT 1`,
          [space, scope, agentId, key],
        );
        return row?.docid ?? null;
      });
    },

    findDocIdsByHashes(space, lookups) {
      return run('findDocIdsByHashes', async () => {
        if (lookups.length === 0) return [];
        // One round trip: per lookup (by its position) the oldest chunk with that owner and hash.
        const found = await exec<{ i: string; docid: string }[]>(
          sql,
          `SELECT DISTINCT ON (l.i) l.i::text AS i, c.doc_id AS docid
             FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS l(scope, agent_id, hash, i)
             JOIN ${s}.chunks c
               ON c.space = $1 AND c.scope = l.scope AND c.agent_id = l.agent_id AND c.content_hash = l.hash
            ORDER BY l.i, c.created_at, c.id`,
          [space, lookups.map((l) => l.scope), lookups.map((l) => l.agentId), lookups.map((l) => l.contentHash)],
        );
        const out: (string | null)[] = lookups.map(() => null);
        for (const row of found) out[Number(row.i) - 1] = row.docid;
        return out;
      });
    },

    listVersions(space, docId) {
      return run('listVersions', async () => {
        const rows = await exec<
          {
            docid: string;
            space: string;
            version: number;
            oldcontent: string;
            oldkey: string;
            intent: string;
            agentid: string;
            at: string;
          }[]
        >(
          sql,
          `SELECT doc_id AS docid, space, version, old_content AS oldcontent, old_key AS oldkey, intent,
             agent_id AS agentid, ${iso('at')} AS at
           FROM ${s}.versions WHERE space = $1 AND doc_id = $2 ORDER BY version, vid`,
          [space, docId],
        );
        return rows.map(
          (row): MemoryVersion => ({
            docId: row.docid,
            space: row.space,
            version: Number(row.version),
            oldContent: row.oldcontent,
            oldKey: row.oldkey,
            intent: row.intent,
            agentId: row.agentid,
            at: row.at,
          }),
        );
      });
    },

    formationLog(space, memoryIds) {
      return run('formationLog', async () => {
        const unique = [...new Set(memoryIds)];
        if (unique.length === 0) return [];
        // Ids compare bytewise (COLLATE "C"), as the core orders them; the (space, memory_id, at, id) index serves it.
        const rows = await exec<Record<string, unknown>[]>(
          sql,
          `SELECT ${LOG_COLUMNS} FROM ${s}.formation_log l
           WHERE l.space = $1 AND l.memory_id = ANY($2::text[]) ORDER BY l.at, l.id`,
          [space, unique],
        );
        return rows.map(LOG.from);
      });
    },

    scan(options: ScanOptions) {
      return run('scan', async () => {
        const limit = Math.floor(options.limit);
        if (!(limit > 0)) return [];
        const p = new Params();
        const where: string[] = [];
        if (options.space !== undefined) where.push(`c.space = ${p.add(options.space)}`);
        if (options.after !== undefined) {
          where.push(
            `(c.created_at, c.id) > (${p.add(options.after.createdAt)}::text::timestamptz, ${p.add(options.after.id)})`,
          );
        }
        const rows = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY c.created_at, c.id LIMIT ${p.add(limit)}`,
          p.values,
        );
        return rows.map(rowToRecord);
      });
    },
  };
}
