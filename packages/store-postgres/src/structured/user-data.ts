/**
 * The per-user structured ports on PostgreSQL: messages, facts (with source priority and merge) and goals. The
 * statements are the shared ones of @mem/core/adapter, but for what READ COMMITTED needs: a fact upsert is one
 * statement (no write lock orders a read and a write), goal writes take a lock of their (space, user, topic) first,
 * and the saves of one session from this instance commit in call order.
 */
import { MemError } from '@mem/core';
import {
  type FactStore,
  factPriority,
  type GoalStore,
  type MessageStore,
  SQL_RECORDS,
  type SqlProgram,
  type SqlRow,
  selectList,
  sqlFactStore,
  sqlGet,
  sqlGoalStore,
  sqlMessageStore,
} from '@mem/core/adapter';
import { compositeKey, KeyedQueue, type PortRuntime } from '../runtime.js';
import { postgresDialect, postgresRunner } from '../sql-layer.js';

export function messageStore(rt: PortRuntime): MessageStore {
  const messages = sqlMessageStore(postgresDialect(rt), postgresRunner(rt));
  // Saves of one session from this instance commit in call order (the port orders messages by commit).
  const saves = new KeyedQueue();
  return {
    ...messages,
    save: (space, m) => saves.run(compositeKey(space, m.sessionId), () => messages.save(space, m)),
  };
}

export function factStore(rt: PortRuntime): FactStore {
  const d = postgresDialect(rt);
  const r = postgresRunner(rt);
  const record = SQL_RECORDS.fact;
  const t = d.table('facts');
  // The priority rule is part of the statement: a lower-priority source matches no row and writes nothing.
  // `xmax = 0` tells a fresh row from an updated one.
  const upsert = `INSERT INTO ${t} AS f (space, user_id, topic, key, value, source, priority, created_at, updated_at)
    VALUES ($1, $2, $3::text, $4, $5::text::jsonb, $6, $7, $8::text::timestamptz, $8::text::timestamptz)
    ON CONFLICT (space, user_id, (topic IS NULL), (coalesce(topic, '')), key) DO UPDATE SET
      value = excluded.value, source = excluded.source, priority = excluded.priority, updated_at = excluded.updated_at
    WHERE excluded.priority >= f.priority
    RETURNING ${selectList(d, record.fields, 'f')}, (f.xmax = 0) AS inserted`;
  const find = `SELECT ${selectList(d, record.fields)} FROM ${t}
    WHERE space = $1 AND user_id = $2 AND key = $3 AND ${d.same('topic', 4)}`;
  return {
    ...sqlFactStore(d, r),
    upsert(space, w) {
      return r.run('writing a fact', function* () {
        const value = JSON.stringify(w.value);
        const params = [space, w.user, w.topic, w.key, value, w.source, factPriority(w.source), w.at];
        const row = yield* sqlGet<SqlRow & { inserted: boolean }>(upsert, params);
        if (row !== undefined) return { status: row.inserted ? 'created' : 'updated', fact: record.from(row) } as const;
        const kept = yield* sqlGet<SqlRow>(find, [space, w.user, w.key, w.topic]);
        if (kept === undefined)
          throw new MemError('CONFLICT', `${d.adapter}: fact "${w.key}" changed meanwhile; retry.`, {
            retryable: true,
          });
        return { status: 'kept', fact: record.from(kept) } as const;
      });
    },
  };
}

export function goalStore(rt: PortRuntime): GoalStore {
  // The scope's lock first: the UPDATE then reads after every earlier goal write of the scope committed, so two
  // writers never leave two active goals (the partial unique index goals_active is the backstop).
  function* lockScope(space: string, user: string, topic: string | null): SqlProgram<void> {
    const key = `goal|${compositeKey(rt.schema, space, user, topic ?? '')}`;
    yield* sqlGet('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
  }
  return sqlGoalStore(postgresDialect(rt), postgresRunner(rt), lockScope);
}
