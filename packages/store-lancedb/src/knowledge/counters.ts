import { MemError } from '@mem/core';
import type { KnowledgeCounters, Rating, RatingOutcome } from '@mem/core/adapter';
import { ratingToRow } from '../schema.js';
import { docPredicate, rows, sqlString } from '../sql.js';
import { type LanceKnowledgeContext, notFound } from './context.js';

/** The counters role: accesses (an access table) and ratings, which never rewrite chunk rows. */
export function createCounters(ctx: LanceKnowledgeContext): KnowledgeCounters {
  const { write } = ctx;
  return {
    recordAccess(space, docId, at) {
      return write(
        'recordAccess',
        async (t) => {
          // Counted in the access table (one small row per document), so that reads never rewrite chunk rows.
          const [current] = await rows(t.access, docPredicate(space, docId), 1, ['count', 'last_at']);
          const last = current && String(current.last_at) > at ? String(current.last_at) : at;
          await t.access
            .mergeInsert(['space', 'doc_id'])
            .whenMatchedUpdateAll()
            .whenNotMatchedInsertAll()
            .execute([{ space, doc_id: docId, count: (current ? Number(current.count) : 0) + 1, last_at: last }]);
        },
        (t) => [t.upkeep.access],
      );
    },

    addRating(rating: Rating): Promise<RatingOutcome> {
      return write(
        'addRating',
        async (t) => {
          const doc = await rows(t.chunks, docPredicate(rating.space, rating.docId), 1, ['id']);
          if (doc.length === 0) throw notFound(rating.space, rating.docId, 'memory to rate:');
          const taken = await t.ratings.countRows(
            `${docPredicate(rating.space, rating.docId)} AND task_id = ${sqlString(rating.taskId)}`,
          );
          if (taken > 0) {
            throw new MemError(
              'ALREADY_RATED',
              `Memory ${rating.docId} was already rated in task ${rating.taskId}; a memory counts once per task.`,
              { details: { docId: rating.docId, taskId: rating.taskId } },
            );
          }
          // One append: the rating and its effect on alpha/beta (computed from the ratings on read) land together.
          await t.ratings.add([ratingToRow(rating)]);
          if (!rating.counted) return { replaced: 0 };
          // Then the rater's earlier counted votes on the memory stop counting (after the append: a crash between
          // the two leaves an extra vote counted, never an acknowledged one lost).
          const { rowsUpdated } = await t.ratings.update({
            where: `${docPredicate(rating.space, rating.docId)} AND agent_id = ${sqlString(rating.agentId)} AND task_id <> ${sqlString(rating.taskId)} AND (counted IS NULL OR counted = true)`,
            valuesSql: { counted: 'false' },
          });
          return { replaced: rowsUpdated };
        },
        (t) => [t.upkeep.ratings],
      );
    },
  };
}
