import type { EmbeddingInfo, KnowledgeAdmin, KnowledgeStats } from '@mem/core/adapter';
import { ADAPTER } from '../database.js';
import type { SqliteKnowledgeContext } from './context.js';
import { vectorToBlob } from './rows.js';

const META_MODEL = 'embedding.model';
const META_DIMENSION = 'embedding.dimension';

/** The admin role: the embedder of the stored vectors, re-embedding, statistics and closing the connection. */
export function createAdmin(ctx: SqliteKnowledgeContext): KnowledgeAdmin {
  const { stmt, run, write } = ctx;

  function writeEmbeddingInfo(info: EmbeddingInfo): void {
    const put = stmt(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    put.run(META_MODEL, info.model);
    put.run(META_DIMENSION, String(info.dimension));
  }

  return {
    name: ADAPTER,

    updateEmbeddings(updates, info) {
      return write('updateEmbeddings', () => {
        const update = stmt('UPDATE chunks SET embedding = ?, embedding_model = ? WHERE id = ?');
        for (const u of updates) update.run(vectorToBlob(u.embedding), info.model, u.id);
        writeEmbeddingInfo(info);
        if (ctx.vectorIndex) {
          ctx.vectorIndex.embeddingsChanged(info.dimension);
          ctx.vectorIndex.maintain();
        }
      });
    },

    /** Documents and chunks of a space; `bySource` / `byScope` count documents. */
    stats(space): Promise<KnowledgeStats> {
      return run('stats', () => {
        const totals = stmt(
          'SELECT count(DISTINCT doc_id) AS documents, count(*) AS chunks FROM chunks WHERE space = ?',
        ).get(space) as { documents: number; chunks: number };
        // Documents per value of a column (source or scope).
        const countBy = (column: 'source' | 'scope'): Record<string, number> => {
          const rows = stmt(
            `SELECT ${column} AS k, count(DISTINCT doc_id) AS n FROM chunks WHERE space = ? GROUP BY ${column}`,
          ).all(space) as { k: string; n: number }[];
          return Object.fromEntries(rows.map((row) => [row.k, row.n]));
        };
        return {
          documents: totals.documents,
          chunks: totals.chunks,
          bySource: countBy('source'),
          byScope: countBy('scope'),
        };
      });
    },

    getEmbeddingInfo() {
      return run('getEmbeddingInfo', () => {
        const rows = stmt('SELECT key, value FROM meta WHERE key IN (?, ?)').all(META_MODEL, META_DIMENSION) as {
          key: string;
          value: string;
        }[];
        const model = rows.find((r) => r.key === META_MODEL)?.value;
        const dimension = Number(rows.find((r) => r.key === META_DIMENSION)?.value);
        if (model === undefined || !Number.isFinite(dimension)) return null;
        return { model, dimension };
      });
    },

    setEmbeddingInfo(info) {
      return write('setEmbeddingInfo', () => writeEmbeddingInfo(info));
    },

    close() {
      return ctx.close();
    },
  };
}
