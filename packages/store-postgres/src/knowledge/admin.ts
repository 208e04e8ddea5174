import { MemError } from '@mem/core';
import type { EmbeddingInfo, KnowledgeAdmin, KnowledgeStats } from '@mem/core/adapter';
import { ADAPTER, exec, quoteIdent, type Sql, type TransactionSql } from '../connection.js';
import { MIGRATION_LOCK } from '../migrations.js';
import { MAX_HNSW_DIMENSIONS, vectorLiteral } from '../vectors.js';
import type { PgKnowledgeContext } from './context.js';

const META_MODEL = 'embedding.model';
const META_DIMENSION = 'embedding.dimension';
const INDEX_PREFIX = 'chunks_embedding_hnsw_';

/**
 * The admin role: the embedder of the stored vectors with the HNSW index of its dimension, re-embedding, statistics
 * and closing the client.
 */
export function createAdmin(pg: PgKnowledgeContext): KnowledgeAdmin {
  const { sql, s, schemaName, run, v, hnswM, hnswEfConstruction } = pg;

  /** Names of the HNSW indexes on chunks, by dimension. */
  async function vectorIndexes(db: Sql | TransactionSql): Promise<Map<number, string>> {
    const rows = await exec<{ name: string }[]>(
      db,
      `SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1 AND tablename = 'chunks'
       AND starts_with(indexname, $2)`,
      [schemaName, INDEX_PREFIX],
    );
    const out = new Map<number, string>();
    for (const row of rows) out.set(Number(row.name.slice(INDEX_PREFIX.length)), row.name);
    return out;
  }

  /**
   * The vector column has no fixed dimension; each dimension in use gets its own partial expression index
   * `hnsw ((embedding::vector(d)) vector_cosine_ops) WHERE vector_dims(embedding) = d`. Called when the store's
   * embedder is recorded: creates the index for `dimension` and drops the ones of other dimensions (their vectors
   * are waiting for `mem reindex`). Runs under the schema's DDL lock, before any row lock of the transaction.
   */
  async function ensureVectorIndex(tx: TransactionSql, dimension: number): Promise<void> {
    const want = dimension <= MAX_HNSW_DIMENSIONS ? `${INDEX_PREFIX}${dimension}` : null;
    const current = async () => {
      const have = await vectorIndexes(tx);
      const ok = (want === null ? have.size === 0 : have.size === 1 && have.get(dimension) === want) as boolean;
      return { have, ok };
    };
    if ((await current()).ok) return;
    await exec(tx, 'SET LOCAL client_min_messages = warning');
    await exec(tx, 'SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schemaName]);
    const { have, ok } = await current();
    if (ok) return;
    for (const [dim, name] of have) {
      if (dim !== dimension) await exec(tx, `DROP INDEX ${s}.${quoteIdent(name)}`);
    }
    if (want !== null && !have.has(dimension)) {
      await exec(
        tx,
        `CREATE INDEX ${quoteIdent(want)} ON ${s}.chunks
         USING hnsw ((embedding::${v()}.vector(${dimension})) ${v()}.vector_cosine_ops)
         WITH (m = ${hnswM}, ef_construction = ${hnswEfConstruction})
         WHERE ${v()}.vector_dims(embedding) = ${dimension}`,
      );
    }
  }

  function checkDimension(info: EmbeddingInfo): number {
    const d = info.dimension;
    if (!Number.isSafeInteger(d) || d < 1 || d > 16000) {
      throw new MemError(
        'INVALID_INPUT',
        `${ADAPTER}: embedding dimension must be an integer from 1 to 16000 (got ${d}).`,
      );
    }
    return d;
  }

  async function writeEmbeddingInfo(tx: TransactionSql, info: EmbeddingInfo): Promise<void> {
    await exec(
      tx,
      `INSERT INTO ${s}.meta (key, value) VALUES ($1, $2), ($3, $4)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [META_MODEL, info.model, META_DIMENSION, String(info.dimension)],
    );
  }

  return {
    name: ADAPTER,

    updateEmbeddings(updates, info) {
      return run('updateEmbeddings', async () => {
        const dimension = checkDimension(info);
        await sql.begin(async (tx) => {
          await ensureVectorIndex(tx, dimension);
          if (updates.length > 0) {
            const payload = JSON.stringify(updates.map((u) => ({ id: u.id, embedding: vectorLiteral(u.embedding) })));
            await exec(
              tx,
              `UPDATE ${s}.chunks c SET embedding = r.embedding::${v()}.vector, embedding_model = $2
               FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, embedding text) WHERE c.id = r.id`,
              [payload, info.model],
            );
          }
          await writeEmbeddingInfo(tx, info);
        });
      });
    },

    /** Documents and chunks of a space; `bySource` / `byScope` count documents. */
    stats(space): Promise<KnowledgeStats> {
      return run('stats', async () => {
        const rows = await exec<
          { gs: number; gc: number; source: string | null; scope: string | null; docs: number; chunks: number }[]
        >(
          sql,
          `SELECT GROUPING(source) AS gs, GROUPING(scope) AS gc, source, scope,
             count(DISTINCT doc_id)::int AS docs, count(*)::int AS chunks
           FROM ${s}.chunks WHERE space = $1 GROUP BY GROUPING SETS ((), (source), (scope))`,
          [space],
        );
        const out: KnowledgeStats = { documents: 0, chunks: 0, bySource: {}, byScope: {} };
        for (const row of rows) {
          const gs = Number(row.gs);
          const gc = Number(row.gc);
          if (gs === 1 && gc === 1) {
            out.documents = Number(row.docs);
            out.chunks = Number(row.chunks);
          } else if (gs === 0 && row.source !== null) {
            out.bySource[row.source] = Number(row.docs);
          } else if (gc === 0 && row.scope !== null) {
            out.byScope[row.scope] = Number(row.docs);
          }
        }
        return out;
      });
    },

    getEmbeddingInfo() {
      return run('getEmbeddingInfo', async () => {
        const rows = await exec<{ key: string; value: string }[]>(
          sql,
          `SELECT key, value FROM ${s}.meta WHERE key IN ($1, $2)`,
          [META_MODEL, META_DIMENSION],
        );
        const model = rows.find((r) => r.key === META_MODEL)?.value;
        const dimension = Number(rows.find((r) => r.key === META_DIMENSION)?.value);
        if (model === undefined || !Number.isFinite(dimension)) return null;
        return { model, dimension };
      });
    },

    setEmbeddingInfo(info) {
      return run('setEmbeddingInfo', async () => {
        const dimension = checkDimension(info);
        await sql.begin(async (tx) => {
          await ensureVectorIndex(tx, dimension);
          await writeEmbeddingInfo(tx, info);
        });
      });
    },

    close() {
      return pg.close();
    },
  };
}
