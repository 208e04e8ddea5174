import { MemError } from '@mem/core';
import type { KnowledgeCounters, Rating, RatingOutcome } from '@mem/core/adapter';
import { ADAPTER, constraintOf, exec, sqlState } from '../connection.js';
import type { PgKnowledgeContext } from './context.js';

/** The counters role: accesses and ratings, under the document lock, which change no version. */
export function createCounters(pg: PgKnowledgeContext): KnowledgeCounters {
  const { sql, s, run, lockDocument } = pg;
  return {
    recordAccess(space, docId, at) {
      return run('recordAccess', async () => {
        // Under the document lock, so that an edit replacing the chunks meanwhile cannot drop the count.
        await sql.begin(async (tx) => {
          await lockDocument(tx, space, docId);
          await exec(
            tx,
            `UPDATE ${s}.chunks SET access_count = access_count + 1, last_accessed_at = $1::text::timestamptz
             WHERE space = $2 AND doc_id = $3`,
            [at, space, docId],
          );
        });
      });
    },

    addRating(rating: Rating): Promise<RatingOutcome> {
      return run('addRating', async () => {
        try {
          // One transaction under the document lock (an edit replacing the chunks meanwhile cannot drop the change):
          // the rating row (uncounted first, so that a repeat in the task fails before any counter moves), then,
          // for a counted vote, the rater's earlier counted votes taken back and this one counted.
          return await sql.begin(async (tx) => {
            await lockDocument(tx, rating.space, rating.docId);
            const [found] = await exec<{ n: number }[]>(
              tx,
              `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 LIMIT 1) d`,
              [rating.space, rating.docId],
            );
            if (!found || Number(found.n) === 0) {
              throw new MemError(
                'NOT_FOUND',
                `${ADAPTER}: no memory ${rating.docId} in space ${rating.space} to rate.`,
                {
                  details: { space: rating.space, docId: rating.docId },
                },
              );
            }
            await exec(
              tx,
              `INSERT INTO ${s}.ratings (space, doc_id, task_id, useful, note, agent_id, at, counted)
               VALUES ($1, $2, $3, $4::boolean, $5, $6, $7::text::timestamptz, false)`,
              [rating.space, rating.docId, rating.taskId, rating.useful, rating.note, rating.agentId, rating.at],
            );
            if (!rating.counted) return { replaced: 0 };
            const earlier = await exec<{ useful: boolean }[]>(
              tx,
              `UPDATE ${s}.ratings SET counted = false
               WHERE space = $1 AND doc_id = $2 AND agent_id = $3 AND counted RETURNING useful`,
              [rating.space, rating.docId, rating.agentId],
            );
            await exec(tx, `UPDATE ${s}.ratings SET counted = true WHERE space = $1 AND doc_id = $2 AND task_id = $3`, [
              rating.space,
              rating.docId,
              rating.taskId,
            ]);
            const up = earlier.filter((r) => r.useful).length;
            const dAlpha = (rating.useful ? 1 : 0) - up;
            const dBeta = (rating.useful ? 0 : 1) - (earlier.length - up);
            await exec(
              tx,
              `UPDATE ${s}.chunks SET alpha = alpha + $3::float8, beta = beta + $4::float8 WHERE space = $1 AND doc_id = $2`,
              [rating.space, rating.docId, dAlpha, dBeta],
            );
            return { replaced: earlier.length };
          });
        } catch (error) {
          if (sqlState(error) === '23505' && constraintOf(error) === 'ratings_pkey') {
            throw new MemError(
              'ALREADY_RATED',
              `Memory ${rating.docId} was already rated in task ${rating.taskId}; a memory counts once per task.`,
              { cause: error, details: { docId: rating.docId, taskId: rating.taskId } },
            );
          }
          throw error;
        }
      });
    },
  };
}
