import { MemError } from '@mem/core';
import type { KnowledgeCounters, Rating, RatingOutcome } from '@mem/core/adapter';
import { ADAPTER } from '../database.js';
import { constraintKind, type SqliteKnowledgeContext } from './context.js';

/** The counters role: accesses and ratings, which change no version. */
export function createCounters(ctx: SqliteKnowledgeContext): KnowledgeCounters {
  const { stmt, write } = ctx;
  return {
    recordAccess(space, docId, at) {
      return write('recordAccess', () => {
        stmt(
          'UPDATE chunks SET access_count = access_count + 1, last_accessed_at = ? WHERE space = ? AND doc_id = ?',
        ).run(at, space, docId);
      });
    },

    addRating(rating: Rating): Promise<RatingOutcome> {
      return write(
        'addRating',
        () => {
          const exists = stmt('SELECT 1 FROM chunks WHERE space = ? AND doc_id = ? LIMIT 1').get(
            rating.space,
            rating.docId,
          );
          if (!exists) {
            throw new MemError('NOT_FOUND', `${ADAPTER}: no memory ${rating.docId} in space ${rating.space} to rate.`, {
              details: { space: rating.space, docId: rating.docId },
            });
          }
          // Insert first: a repeat in the same task fails here (ALREADY_RATED) before any counter moves.
          stmt(
            'INSERT INTO ratings (space, doc_id, task_id, useful, note, agent_id, at, counted) VALUES (?, ?, ?, ?, ?, ?, ?, 0)',
          ).run(
            rating.space,
            rating.docId,
            rating.taskId,
            rating.useful ? 1 : 0,
            rating.note,
            rating.agentId,
            rating.at,
          );
          if (!rating.counted) return { replaced: 0 };
          // Take back the rater's earlier counted votes on this memory, then count this one.
          const earlier = stmt(
            'SELECT coalesce(sum(useful), 0) AS up, count(*) AS n FROM ratings WHERE space = ? AND doc_id = ? AND agent_id = ? AND counted = 1',
          ).get(rating.space, rating.docId, rating.agentId) as { up: number; n: number };
          stmt('UPDATE ratings SET counted = 0 WHERE space = ? AND doc_id = ? AND agent_id = ? AND counted = 1').run(
            rating.space,
            rating.docId,
            rating.agentId,
          );
          stmt('UPDATE ratings SET counted = 1 WHERE space = ? AND doc_id = ? AND task_id = ?').run(
            rating.space,
            rating.docId,
            rating.taskId,
          );
          const dAlpha = (rating.useful ? 1 : 0) - Number(earlier.up);
          const dBeta = (rating.useful ? 0 : 1) - (Number(earlier.n) - Number(earlier.up));
          stmt('UPDATE chunks SET alpha = alpha + ?, beta = beta + ? WHERE space = ? AND doc_id = ?').run(
            dAlpha,
            dBeta,
            rating.space,
            rating.docId,
          );
          return { replaced: Number(earlier.n) };
        },
        (error) =>
          constraintKind(error) === 'rating'
            ? new MemError(
                'ALREADY_RATED',
                `Memory ${rating.docId} was already rated in task ${rating.taskId}; a memory counts once per task.`,
                { cause: error, details: { docId: rating.docId, taskId: rating.taskId } },
              )
            : null,
      );
    },
  };
}
