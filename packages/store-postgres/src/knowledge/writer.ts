import type { MemoryVersion, Scope } from '@mem/core';
import { MemError } from '@mem/core';
import { type KnowledgeWriter, keyTakenByStore, type MemoryRecord } from '@mem/core/adapter';
import { ADAPTER, constraintOf, exec, Params, type Sql, sqlState, type TransactionSql } from '../connection.js';
import { iso } from '../queries.js';
import { vectorLiteral } from '../vectors.js';
import type { PgKnowledgeContext } from './context.js';

/** The JSON shape one chunk travels in (`jsonb_to_recordset`): one parameter for any number of chunks. */
function chunkJson(chunk: MemoryRecord, version?: number): Record<string, unknown> {
  return {
    id: chunk.id,
    doc_id: chunk.docId,
    space: chunk.space,
    scope: chunk.scope,
    agent_id: chunk.agentId,
    key: chunk.key,
    name: chunk.name,
    content: chunk.content,
    body_start: chunk.bodyStart,
    chunk_index: chunk.chunkIndex,
    chunk_count: chunk.chunkCount,
    source: chunk.source,
    tags: [...new Set(chunk.tags)],
    embedding: chunk.embedding === null ? null : vectorLiteral(chunk.embedding),
    embedding_model: chunk.embeddingModel,
    content_hash: chunk.contentHash,
    created_at: chunk.createdAt,
    updated_at: chunk.updatedAt,
    expires_at: chunk.expiresAt,
    access_count: chunk.accessCount,
    last_accessed_at: chunk.lastAccessedAt,
    alpha: chunk.alpha,
    beta: chunk.beta,
    version: version ?? chunk.version,
  };
}

/** Most chunks per INSERT statement of a batch (several statements run in one transaction). */
const INSERT_BATCH = 1000;

const RECORDSET = `r(id text, doc_id text, space text, scope text, agent_id text, key text, name text, content text,
  body_start integer, chunk_index integer, chunk_count integer, source text, tags text[], embedding text,
  embedding_model text, content_hash text, created_at timestamptz, updated_at timestamptz, expires_at timestamptz,
  access_count integer, last_accessed_at timestamptz, alpha double precision, beta double precision, version integer)`;

/** The write role: inserts, edits, moves and deletions, each atomic (edits under the document lock). */
export function createWriter(pg: PgKnowledgeContext): KnowledgeWriter {
  const { sql, s, run, v, lockDocument } = pg;

  async function insertChunks(db: Sql | TransactionSql, chunks: MemoryRecord[], version?: number): Promise<void> {
    if (chunks.length === 0) return;
    const payload = JSON.stringify(chunks.map((c) => chunkJson(c, version)));
    await exec(
      db,
      `INSERT INTO ${s}.chunks (id, doc_id, space, scope, agent_id, key, name, content, body_start, chunk_index,
         chunk_count, source, tags, embedding, embedding_model, content_hash, created_at, updated_at, expires_at,
         access_count, last_accessed_at, alpha, beta, version)
       SELECT r.id, r.doc_id, r.space, r.scope, r.agent_id, r.key, r.name, r.content, r.body_start, r.chunk_index,
         r.chunk_count, r.source, coalesce(r.tags, '{}'), r.embedding::${v()}.vector, r.embedding_model,
         r.content_hash, r.created_at, r.updated_at, r.expires_at, r.access_count, r.last_accessed_at, r.alpha,
         r.beta, r.version
       FROM jsonb_to_recordset($1::text::jsonb) AS ${RECORDSET}`,
      [payload],
    );
  }

  async function insertVersion(tx: TransactionSql, ver: MemoryVersion): Promise<void> {
    await exec(
      tx,
      `INSERT INTO ${s}.versions (space, doc_id, version, old_content, old_key, intent, agent_id, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::timestamptz)`,
      [ver.space, ver.docId, ver.version, ver.oldContent, ver.oldKey, ver.intent, ver.agentId, ver.at],
    );
  }

  /** Inside a transaction holding the document lock: the stored version, after checking it exists and matches. */
  async function checkVersion(tx: TransactionSql, space: string, docId: string, expected: number): Promise<number> {
    const [row] = await exec<{ n: number; v: number | null }[]>(
      tx,
      `SELECT count(*)::int AS n, max(version) AS v FROM ${s}.chunks WHERE space = $1 AND doc_id = $2`,
      [space, docId],
    );
    if (!row || row.n === 0 || row.v === null) {
      throw new MemError('NOT_FOUND', `${ADAPTER}: no memory ${docId} in space ${space}.`, {
        details: { space, docId },
      });
    }
    const stored = Number(row.v);
    if (stored !== expected) {
      throw new MemError(
        'CONFLICT',
        `Memory ${docId} changed since it was read (stored version ${stored}, expected ${expected}). Read it again and retry the edit.`,
        { retryable: true, details: { docId, storedVersion: stored, expectedVersion: expected } },
      );
    }
    return stored;
  }

  async function keyTaken(space: string, scope: Scope, agentId: string, key: string, cause: unknown) {
    let holder: string | null = null;
    try {
      const [row] = await exec<{ docid: string }[]>(
        sql,
        `SELECT doc_id AS docid FROM ${s}.chunks WHERE space = $1 AND scope = $2 AND agent_id = $3 AND key = $4
         ORDER BY chunk_index LIMIT 1`,
        [space, scope, agentId, key],
      );
      holder = row?.docid ?? null;
    } catch {
      holder = null;
    }
    return keyTakenByStore(key, scope, agentId, holder, cause);
  }

  /**
   * After a key violation of a batch insert (rolled back): the first document of the batch whose key is held,
   * by another document of the batch or by a stored one.
   */
  async function keyClaimant(firsts: MemoryRecord[]): Promise<MemoryRecord | undefined> {
    const seen = new Set<string>();
    for (const f of firsts) {
      const k = JSON.stringify([f.space, f.scope, f.agentId, f.key]);
      if (seen.has(k)) return f;
      seen.add(k);
    }
    try {
      const payload = JSON.stringify(
        firsts.map((f, i) => ({ i, space: f.space, scope: f.scope, agent_id: f.agentId, key: f.key, doc_id: f.docId })),
      );
      const [row] = await exec<{ i: number }[]>(
        sql,
        `SELECT r.i FROM jsonb_to_recordset($1::text::jsonb)
           AS r(i integer, space text, scope text, agent_id text, key text, doc_id text)
         WHERE EXISTS (SELECT 1 FROM ${s}.chunks c WHERE c.space = r.space AND c.scope = r.scope
           AND c.agent_id = r.agent_id AND c.key = r.key AND c.doc_id <> r.doc_id)
         ORDER BY r.i LIMIT 1`,
        [payload],
      );
      if (row) return firsts[Number(row.i)];
    } catch {
      // fall through: report the first document
    }
    return firsts[0];
  }

  /** Map unique violations of a chunk write to KEY_TAKEN / CONFLICT; anything else is rethrown. */
  async function chunkWriteError(error: unknown, first: MemoryRecord | undefined): Promise<never> {
    if (sqlState(error) === '23505') {
      const constraint = constraintOf(error);
      if (constraint === 'chunks_key' && first) {
        throw await keyTaken(first.space, first.scope, first.agentId, first.key, error);
      }
      if (constraint === 'chunks_pkey') {
        throw new MemError('CONFLICT', `${ADAPTER}: a memory chunk with the same id already exists in this space.`, {
          cause: error,
        });
      }
    }
    throw error;
  }

  const writer: KnowledgeWriter = {
    insertDocument(chunks) {
      return writer.insertDocuments([chunks]);
    },

    insertDocuments(docs) {
      return run('insertDocuments', async () => {
        const batch = docs.filter((chunks) => chunks.length > 0);
        if (batch.length === 0) return;
        const all = batch.flat();
        try {
          if (all.length <= INSERT_BATCH) {
            // One statement is atomic by itself.
            await insertChunks(sql, all);
          } else {
            await sql.begin(async (tx) => {
              for (let i = 0; i < all.length; i += INSERT_BATCH) {
                await insertChunks(tx, all.slice(i, i + INSERT_BATCH));
              }
            });
          }
        } catch (error) {
          const firsts = batch.map((chunks) => chunks[0]!);
          const culprit =
            sqlState(error) === '23505' && constraintOf(error) === 'chunks_key' ? await keyClaimant(firsts) : firsts[0];
          await chunkWriteError(error, culprit);
        }
      });
    },

    replaceDocument(space, docId, chunks, version, expectedVersion) {
      return run('replaceDocument', async () => {
        try {
          await sql.begin(async (tx) => {
            await lockDocument(tx, space, docId);
            const stored = await checkVersion(tx, space, docId, expectedVersion);
            // Ratings and reads do not change the version: keep the counters as stored now (under the document
            // lock, which addRating and recordAccess take too), not as the editor read them.
            const [kept] = await exec<
              { accesscount: number; lastaccessedat: string | null; alpha: number; beta: number }[]
            >(
              tx,
              `SELECT access_count AS accesscount, ${iso('last_accessed_at')} AS lastaccessedat, alpha, beta
               FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 ORDER BY chunk_index LIMIT 1`,
              [space, docId],
            );
            await exec(tx, `DELETE FROM ${s}.chunks WHERE space = $1 AND doc_id = $2`, [space, docId]);
            await insertChunks(
              tx,
              chunks.map((c) =>
                kept
                  ? {
                      ...c,
                      accessCount: Number(kept.accesscount),
                      lastAccessedAt: kept.lastaccessedat,
                      alpha: Number(kept.alpha),
                      beta: Number(kept.beta),
                    }
                  : c,
              ),
              stored + 1,
            );
            await insertVersion(tx, version);
          });
        } catch (error) {
          await chunkWriteError(error, chunks[0]);
        }
      });
    },

    moveDocument(space, docId, change, version, expectedVersion) {
      return run('moveDocument', async () => {
        let owner: { scope: Scope; agentid: string } | undefined;
        try {
          await sql.begin(async (tx) => {
            await lockDocument(tx, space, docId);
            await checkVersion(tx, space, docId, expectedVersion);
            [owner] = await exec<{ scope: Scope; agentid: string }[]>(
              tx,
              `SELECT scope, agent_id AS agentid FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 LIMIT 1`,
              [space, docId],
            );
            const setExpiry = change.expiresAt !== undefined;
            await exec(
              tx,
              `UPDATE ${s}.chunks SET key = $1, updated_at = $2::text::timestamptz, version = version + 1,
                 expires_at = CASE WHEN $3::boolean THEN $4::text::timestamptz ELSE expires_at END
               WHERE space = $5 AND doc_id = $6`,
              [change.newKey, change.updatedAt, setExpiry, setExpiry ? (change.expiresAt ?? null) : null, space, docId],
            );
            await insertVersion(tx, version);
          });
        } catch (error) {
          if (sqlState(error) === '23505' && constraintOf(error) === 'chunks_key' && owner) {
            throw await keyTaken(space, owner.scope, owner.agentid, change.newKey, error);
          }
          throw error;
        }
      });
    },

    deleteDocument(space, docId) {
      return run('deleteDocument', () =>
        sql.begin(async (tx) => {
          await lockDocument(tx, space, docId);
          const [row] = await exec<{ n: number }[]>(
            tx,
            `WITH dv AS (DELETE FROM ${s}.versions WHERE space = $1 AND doc_id = $2),
                  dr AS (DELETE FROM ${s}.ratings WHERE space = $1 AND doc_id = $2),
                  dc AS (DELETE FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 RETURNING 1)
             SELECT count(*)::int AS n FROM dc`,
            [space, docId],
          );
          return Number(row?.n ?? 0);
        }),
      );
    },

    deleteByAgent(space, agentId) {
      return run('deleteByAgent', () =>
        sql.begin(async (tx) => {
          // Tags, the tsvector and the embedding live in the chunk row. A writer of one of the documents that commits
          // while the first statement runs can leave rows its snapshot did not see: repeat until none is left.
          const docs = new Set<string>();
          const total = { chunks: 0, versions: 0, ratings: 0 };
          for (let round = 0; round < 10; round++) {
            const [row] = await exec<{ chunks: number; versions: number; ratings: number; docs: string }[]>(
              tx,
              `WITH owned AS MATERIALIZED (SELECT DISTINCT doc_id FROM ${s}.chunks WHERE space = $1 AND agent_id = $2),
                    dv AS (DELETE FROM ${s}.versions x USING owned o WHERE x.space = $1 AND x.doc_id = o.doc_id
                           RETURNING 1),
                    dr AS (DELETE FROM ${s}.ratings x USING owned o WHERE x.space = $1 AND x.doc_id = o.doc_id
                           RETURNING 1),
                    dc AS (DELETE FROM ${s}.chunks x USING owned o WHERE x.space = $1 AND x.doc_id = o.doc_id
                           RETURNING x.doc_id)
               SELECT (SELECT count(*)::int FROM dc) AS chunks,
                      (SELECT count(*)::int FROM dv) AS versions,
                      (SELECT count(*)::int FROM dr) AS ratings,
                      (SELECT coalesce(array_to_json(array_agg(DISTINCT doc_id)), '[]'::json)::text FROM dc) AS docs`,
              [space, agentId],
            );
            const chunks = Number(row?.chunks ?? 0);
            total.chunks += chunks;
            total.versions += Number(row?.versions ?? 0);
            total.ratings += Number(row?.ratings ?? 0);
            for (const id of JSON.parse(row?.docs ?? '[]') as string[]) docs.add(id);
            if (chunks === 0) break;
          }
          return { documents: docs.size, ...total };
        }),
      );
    },

    deleteExpired(now, space) {
      return run('deleteExpired', async () => {
        const p = new Params();
        const cond = `expires_at IS NOT NULL AND expires_at <= ${p.add(now)}::text::timestamptz${
          space === undefined ? '' : ` AND space = ${p.add(space)}`
        }`;
        const [row] = await exec<{ n: number }[]>(
          sql,
          `WITH expired AS MATERIALIZED (SELECT DISTINCT space, doc_id FROM ${s}.chunks WHERE ${cond}),
                dv AS (DELETE FROM ${s}.versions x USING expired e WHERE x.space = e.space AND x.doc_id = e.doc_id),
                dr AS (DELETE FROM ${s}.ratings x USING expired e WHERE x.space = e.space AND x.doc_id = e.doc_id),
                dc AS (DELETE FROM ${s}.chunks x USING expired e WHERE x.space = e.space AND x.doc_id = e.doc_id
                       RETURNING 1)
           SELECT count(*)::int AS n FROM dc`,
          p.values,
        );
        return Number(row?.n ?? 0);
      });
    },
  };
  return writer;
}
