import type { MemoryVersion, Scope } from '@mem/core';
import { MemError } from '@mem/core';
import {
  type DocumentClose,
  type FormationEntry,
  type KnowledgeWriter,
  keyTakenByStore,
  type MemoryRecord,
} from '@mem/core/adapter';
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
    valid_from: chunk.validFrom,
    valid_to: chunk.validTo,
    invalidated_at: chunk.invalidatedAt,
    supersedes: chunk.supersedes,
    superseded_by: chunk.supersededBy,
    user_id: chunk.userId,
    // A JSON object in the payload, read by the recordset as jsonb (JSON null: SQL NULL).
    claim: chunk.claim ?? null,
  };
}

/** Most chunks per INSERT statement of a batch (several statements run in one transaction). */
const INSERT_BATCH = 1000;

const RECORDSET = `r(id text, doc_id text, space text, scope text, agent_id text, key text, name text, content text,
  body_start integer, chunk_index integer, chunk_count integer, source text, tags text[], embedding text,
  embedding_model text, content_hash text, created_at timestamptz, updated_at timestamptz, expires_at timestamptz,
  access_count integer, last_accessed_at timestamptz, alpha double precision, beta double precision, version integer,
  valid_from timestamptz, valid_to timestamptz, invalidated_at timestamptz, supersedes text, superseded_by text,
  user_id text, claim jsonb)`;

/** The JSON shape one decision-log line travels in (the space is the write's, bound once). */
function logJson(e: FormationEntry): Record<string, unknown> {
  return {
    id: e.id,
    memory_id: e.memoryId,
    decision: e.decision,
    previous_id: e.previousId,
    text: e.text,
    evidence: e.evidence,
    extractor: e.extractor,
    model: e.model,
    prompt_version: e.promptVersion,
    related: e.related,
    agent_id: e.agentId,
    user_id: e.userId,
    at: e.at,
  };
}

const LOG_RECORDSET = `r(id text, memory_id text, decision text, previous_id text, text text, evidence text[],
  extractor text, model text, prompt_version text, related text[], agent_id text, user_id text, at timestamptz)`;

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
         access_count, last_accessed_at, alpha, beta, version, valid_from, valid_to, invalidated_at, supersedes,
         superseded_by, user_id, claim)
       SELECT r.id, r.doc_id, r.space, r.scope, r.agent_id, r.key, r.name, r.content, r.body_start, r.chunk_index,
         r.chunk_count, r.source, coalesce(r.tags, '{}'), r.embedding::${v()}.vector, r.embedding_model,
         r.content_hash, r.created_at, r.updated_at, r.expires_at, r.access_count, r.last_accessed_at, r.alpha,
         r.beta, r.version, r.valid_from, r.valid_to, r.invalidated_at, r.supersedes, r.superseded_by, r.user_id,
         r.claim
       FROM jsonb_to_recordset($1::text::jsonb) AS ${RECORDSET}`,
      [payload],
    );
  }

  /**
   * Insert the chunks of `batch` (each document all its chunks), INSERT_BATCH per statement. Inside `tx` when given;
   * on the pool otherwise: one statement when they fit in one (atomic by itself), else a transaction of their own.
   */
  async function insertBatch(batch: MemoryRecord[][], tx?: TransactionSql): Promise<void> {
    const all = batch.flat();
    if (tx === undefined && all.length <= INSERT_BATCH) return insertChunks(sql, all);
    const each = async (db: TransactionSql) => {
      for (let i = 0; i < all.length; i += INSERT_BATCH) await insertChunks(db, all.slice(i, i + INSERT_BATCH));
    };
    await (tx === undefined ? sql.begin(each) : each(tx));
  }

  /**
   * Inside the write's transaction: close every document of `closes` (its chunks' valid_to, invalidated_at and
   * superseded_by), each only if it is still open. The document locks come first, in one order for every writer (so
   * two formations closing the same memories cannot deadlock): a second formation closing the same memory waits for
   * the first to commit, then its conditional UPDATE (a new snapshot, READ COMMITTED) finds no open chunk and the
   * whole write fails with CONFLICT. A move, an edit or a counter of the document waits for the close, or it for them.
   */
  async function closeDocuments(tx: TransactionSql, space: string, closes: readonly DocumentClose[]): Promise<void> {
    if (closes.length === 0) return;
    for (const docId of [...new Set(closes.map((c) => c.docId))].sort()) await lockDocument(tx, space, docId);
    for (const close of closes) {
      const closed = await exec(
        tx,
        `UPDATE ${s}.chunks SET valid_to = $1::text::timestamptz, invalidated_at = $2::text::timestamptz,
           superseded_by = $3
         WHERE space = $4 AND doc_id = $5 AND invalidated_at IS NULL`,
        [close.validTo, close.invalidatedAt, close.supersededBy, space, close.docId],
      );
      if (closed.count > 0) continue;
      const [row] = await exec<{ found: boolean }[]>(
        tx,
        `SELECT EXISTS (SELECT 1 FROM ${s}.chunks WHERE space = $1 AND doc_id = $2) AS found`,
        [space, close.docId],
      );
      throw new MemError(
        'CONFLICT',
        `${ADAPTER}: memory ${close.docId} is ${row?.found ? 'already closed' : 'gone'}; distil again to decide against what is current now.`,
        { retryable: true, details: { space, docId: close.docId } },
      );
    }
  }

  /** Inside the write's transaction: the decision-log lines, stored under `space`. */
  async function insertLog(tx: TransactionSql, space: string, log: readonly FormationEntry[]): Promise<void> {
    if (log.length === 0) return;
    try {
      await exec(
        tx,
        `INSERT INTO ${s}.formation_log (space, id, memory_id, decision, previous_id, text, evidence, extractor, model,
           prompt_version, related, agent_id, user_id, at)
         SELECT $1, r.id, r.memory_id, r.decision, r.previous_id, r.text, coalesce(r.evidence, '{}'), r.extractor,
           r.model, r.prompt_version, coalesce(r.related, '{}'), r.agent_id, r.user_id, r.at
         FROM jsonb_to_recordset($2::text::jsonb) AS ${LOG_RECORDSET}`,
        [space, JSON.stringify(log.map(logJson))],
      );
    } catch (error) {
      if (sqlState(error) === '23505' && constraintOf(error) === 'formation_log_pkey') {
        throw new MemError(
          'CONFLICT',
          `${ADAPTER}: a decision-log line with the same id already exists in space ${space}. Use a new id.`,
          { cause: error, details: { space } },
        );
      }
      throw error;
    }
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

  /** After a failed insert of `batch` (rolled back): KEY_TAKEN naming the document whose key is held, CONFLICT, or the error. */
  async function insertError(error: unknown, batch: MemoryRecord[][]): Promise<never> {
    const firsts = batch.map((chunks) => chunks[0]!);
    const culprit =
      sqlState(error) === '23505' && constraintOf(error) === 'chunks_key' ? await keyClaimant(firsts) : firsts[0];
    return chunkWriteError(error, culprit);
  }

  const writer: KnowledgeWriter = {
    insertDocument(chunks) {
      return writer.insertDocuments([chunks]);
    },

    insertDocuments(docs) {
      return run('insertDocuments', async () => {
        const batch = docs.filter((chunks) => chunks.length > 0);
        if (batch.length === 0) return;
        try {
          await insertBatch(batch);
        } catch (error) {
          await insertError(error, batch);
        }
      });
    },

    form(space, { insert, close, log }) {
      return run('form', async () => {
        const batch = insert.filter((chunks) => chunks.length > 0);
        // The inserts' errors are mapped as insertDocuments maps them (after the rollback, outside the transaction).
        let inserting = false;
        try {
          await sql.begin(async (tx) => {
            await closeDocuments(tx, space, close);
            inserting = true;
            if (batch.length > 0) await insertBatch(batch, tx);
            inserting = false;
            await insertLog(tx, space, log);
          });
        } catch (error) {
          if (inserting) await insertError(error, batch);
          throw error;
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
            `WITH dl AS (DELETE FROM ${s}.formation_log WHERE space = $1 AND memory_id = $2),
                  dv AS (DELETE FROM ${s}.versions WHERE space = $1 AND doc_id = $2),
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
                    dl AS (DELETE FROM ${s}.formation_log x USING owned o WHERE x.space = $1 AND x.memory_id = o.doc_id),
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
                dl AS (DELETE FROM ${s}.formation_log x USING expired e
                       WHERE x.space = e.space AND x.memory_id = e.doc_id),
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
