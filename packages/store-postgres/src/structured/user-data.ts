/** The per-user structured ports on PostgreSQL: messages, facts (with source priority and merge) and goals. */
import {
  type Fact,
  type FactSource,
  type Goal,
  type GoalStatus,
  type JsonObject,
  type JsonValue,
  MemError,
  type MessageRole,
  type StoredMessage,
  type ToolCall,
} from '@mem/core';
import { type FactStore, factPriority, type GoalStore, type MessageStore, mergeFacts } from '@mem/core/adapter';
import { ADAPTER, exec, type TransactionSql } from '../connection.js';
import { iso } from '../queries.js';
import { compositeKey, duplicateId, isUniqueViolation, KeyedQueue, type PortRuntime, rowLimit } from '../runtime.js';

import { lockScope, parse, topicIs } from './shared.js';

// ---------- messages ----------

interface MessageRow {
  id: string;
  sessionid: string;
  role: string;
  content: string;
  toolcalls: string;
  name: string | null;
  metadata: string;
  createdat: string;
}

const toMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  sessionId: row.sessionid,
  role: row.role as MessageRole,
  content: row.content,
  toolCalls: parse<ToolCall[]>(row.toolcalls),
  name: row.name,
  metadata: parse<JsonObject>(row.metadata),
  createdAt: row.createdat,
});

export function messageStore(rt: PortRuntime): MessageStore {
  const { sql, s } = rt;
  const COLS = `id, session_id AS sessionid, role, content, tool_calls::text AS toolcalls, name, metadata::text AS metadata,
    ${iso('created_at')} AS createdat`;
  // Saves of one session from this instance commit in call order (the port orders messages by commit).
  const saves = new KeyedQueue();
  return {
    name: ADAPTER,
    save(space, m) {
      return saves.run(compositeKey(space, m.sessionId), () =>
        rt.run('saving a message', async () => {
          try {
            await exec(
              sql,
              `INSERT INTO ${s}.messages (space, id, session_id, role, content, tool_calls, name, metadata, created_at)
               VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8::text::jsonb, $9::text::timestamptz)`,
              [
                space,
                m.id,
                m.sessionId,
                m.role,
                m.content,
                JSON.stringify(m.toolCalls),
                m.name,
                JSON.stringify(m.metadata),
                m.createdAt,
              ],
            );
          } catch (error) {
            if (isUniqueViolation(error, 'messages_pkey')) throw duplicateId('message', m.id, error);
            throw error;
          }
        }),
      );
    },
    recent(space, sessionId, limit) {
      return rt.run('reading messages', async () => {
        const n = rowLimit(limit);
        if (n === 0) return [];
        const rows = await exec<MessageRow[]>(
          sql,
          `SELECT ${COLS} FROM ${s}.messages WHERE space = $1 AND session_id = $2 ORDER BY rid DESC LIMIT $3`,
          [space, sessionId, n],
        );
        return rows.reverse().map(toMessage);
      });
    },
    count(space, sessionId) {
      return rt.run('counting messages', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `SELECT count(*)::int AS n FROM ${s}.messages WHERE space = $1 AND session_id = $2`,
          [space, sessionId],
        );
        return Number(row?.n ?? 0);
      });
    },
    deleteBefore(space, sessionId, keepLast) {
      return rt.run('deleting messages', async () => {
        const keep = Math.max(0, Math.floor(keepLast));
        // One statement: everything older than the keep-th newest message goes (nothing when there are fewer).
        const [row] = await exec<{ n: number }[]>(
          sql,
          keep > 0
            ? `WITH d AS (
                 DELETE FROM ${s}.messages WHERE space = $1 AND session_id = $2 AND rid < (
                   SELECT rid FROM ${s}.messages WHERE space = $1 AND session_id = $2
                   ORDER BY rid DESC OFFSET $3 LIMIT 1)
                 RETURNING 1)
               SELECT count(*)::int AS n FROM d`
            : `WITH d AS (DELETE FROM ${s}.messages WHERE space = $1 AND session_id = $2 RETURNING 1)
               SELECT count(*)::int AS n FROM d`,
          keep > 0 ? [space, sessionId, keep - 1] : [space, sessionId],
        );
        return Number(row?.n ?? 0);
      });
    },
  };
}

// ---------- facts ----------

interface FactRow {
  userid: string;
  topic: string | null;
  key: string;
  value: string;
  source: string;
  createdat: string;
  updatedat: string;
}

const FACT_COLS = `f.user_id AS userid, f.topic AS topic, f.key AS key, f.value::text AS value, f.source AS source,
  ${iso('f.created_at')} AS createdat, ${iso('f.updated_at')} AS updatedat`;

const toFact = (row: FactRow): Fact => ({
  user: row.userid,
  topic: row.topic,
  key: row.key,
  value: parse<JsonValue>(row.value),
  source: row.source as FactSource,
  createdAt: row.createdat,
  updatedAt: row.updatedat,
});

export function factStore(rt: PortRuntime): FactStore {
  const { sql, s } = rt;
  const find = async (space: string, user: string, key: string, topic: string | null) => {
    const [row] = await exec<FactRow[]>(
      sql,
      `SELECT ${FACT_COLS} FROM ${s}.facts f WHERE f.space = $1 AND f.user_id = $2 AND f.key = $3 AND ${topicIs('$4', 'f.topic')}`,
      [space, user, key, topic],
    );
    return row === undefined ? null : toFact(row);
  };
  return {
    name: ADAPTER,
    upsert(space, w) {
      return rt.run('writing a fact', async () => {
        // The priority rule is part of the statement: a lower-priority source matches no row and writes nothing.
        // `xmax = 0` tells a fresh row from an updated one.
        const [row] = await exec<(FactRow & { inserted: boolean })[]>(
          sql,
          `INSERT INTO ${s}.facts AS f (space, user_id, topic, key, value, source, priority, created_at, updated_at)
           VALUES ($1, $2, $3::text, $4, $5::text::jsonb, $6, $7, $8::text::timestamptz, $8::text::timestamptz)
           ON CONFLICT (space, user_id, (topic IS NULL), (coalesce(topic, '')), key) DO UPDATE SET
             value = excluded.value, source = excluded.source, priority = excluded.priority,
             updated_at = excluded.updated_at
           WHERE excluded.priority >= f.priority
           RETURNING ${FACT_COLS}, (f.xmax = 0) AS inserted`,
          [space, w.user, w.topic, w.key, JSON.stringify(w.value), w.source, factPriority(w.source), w.at],
        );
        if (row !== undefined) return { status: row.inserted ? 'created' : 'updated', fact: toFact(row) } as const;
        const kept = await find(space, w.user, w.key, w.topic);
        if (kept === null)
          throw new MemError('CONFLICT', `${ADAPTER}: fact "${w.key}" changed meanwhile; retry.`, { retryable: true });
        return { status: 'kept', fact: kept } as const;
      });
    },
    get(space, user, topic) {
      return rt.run('reading facts', async () => {
        const rows = await exec<FactRow[]>(
          sql,
          `SELECT ${FACT_COLS} FROM ${s}.facts f WHERE f.space = $1 AND f.user_id = $2 AND (f.topic IS NULL OR f.topic = $3::text)`,
          [space, user, topic ?? null],
        );
        return mergeFacts(rows.map(toFact), topic);
      });
    },
    find(space, user, key, topic) {
      return rt.run('reading a fact', () => find(space, user, key, topic));
    },
    delete(space, user, key, topic) {
      return rt.run('deleting a fact', async () => {
        const rows = await exec(
          sql,
          `DELETE FROM ${s}.facts WHERE space = $1 AND user_id = $2 AND key = $3 AND ${topicIs('$4')} RETURNING 1 AS one`,
          [space, user, key, topic],
        );
        return rows.length > 0;
      });
    },
    deleteUser(space, user) {
      return rt.run('deleting facts', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `WITH d AS (DELETE FROM ${s}.facts WHERE space = $1 AND user_id = $2 RETURNING 1) SELECT count(*)::int AS n FROM d`,
          [space, user],
        );
        return Number(row?.n ?? 0);
      });
    },
  };
}

// ---------- goals ----------

interface GoalRow {
  id: string;
  userid: string;
  topic: string | null;
  goal: string;
  status: string;
  metadata: string;
  createdat: string;
  updatedat: string;
}

const GOAL_COLS = `id, user_id AS userid, topic, goal, status, metadata::text AS metadata, ${iso('created_at')} AS createdat,
  ${iso('updated_at')} AS updatedat`;

const toGoal = (row: GoalRow): Goal => ({
  id: row.id,
  user: row.userid,
  topic: row.topic,
  goal: row.goal,
  status: row.status as GoalStatus,
  metadata: parse<JsonObject>(row.metadata),
  createdAt: row.createdat,
  updatedAt: row.updatedat,
});

export function goalStore(rt: PortRuntime): GoalStore {
  const { sql, s } = rt;
  const scopeLock = (tx: TransactionSql, space: string, user: string, topic: string | null) =>
    lockScope(tx, rt, 'goal', space, user, topic ?? '');
  return {
    name: ADAPTER,
    setActive(space, g) {
      return rt.run('setting the active goal', async () => {
        try {
          // The scope's lock first: the UPDATE then reads after every earlier setActive of the scope committed, so
          // two writers never leave two active goals (the partial unique index goals_active is the backstop).
          const result = await sql.begin(async (tx) => {
            await scopeLock(tx, space, g.user, g.topic);
            const [replaced] = await exec<GoalRow[]>(
              tx,
              `UPDATE ${s}.goals SET status = 'replaced', updated_at = $1::text::timestamptz
               WHERE space = $2 AND user_id = $3 AND ${topicIs('$4')} AND status = 'active'
               RETURNING ${GOAL_COLS}`,
              [g.at, space, g.user, g.topic],
            );
            const [inserted] = await exec<GoalRow[]>(
              tx,
              `INSERT INTO ${s}.goals (space, id, user_id, topic, goal, status, metadata, created_at, updated_at)
               VALUES ($1, $2, $3, $4::text, $5, 'active', $6::text::jsonb, $7::text::timestamptz, $7::text::timestamptz)
               RETURNING ${GOAL_COLS}`,
              [space, g.id, g.user, g.topic, g.goal, JSON.stringify(g.metadata), g.at],
            );
            return { goal: toGoal(inserted as GoalRow), replaced: replaced === undefined ? null : toGoal(replaced) };
          });
          return result as { goal: Goal; replaced: Goal | null };
        } catch (error) {
          if (isUniqueViolation(error, 'goals_pkey')) throw duplicateId('goal', g.id, error);
          throw error;
        }
      });
    },
    getActive(space, user, topic) {
      return rt.run('reading the active goal', async () => {
        const [row] = await exec<GoalRow[]>(
          sql,
          `SELECT ${GOAL_COLS} FROM ${s}.goals WHERE space = $1 AND user_id = $2 AND ${topicIs('$3')} AND status = 'active'`,
          [space, user, topic],
        );
        return row === undefined ? null : toGoal(row);
      });
    },
    finish(space, user, topic, status, at) {
      return rt.run('finishing a goal', async () => {
        const row = await sql.begin(async (tx) => {
          await scopeLock(tx, space, user, topic);
          const [updated] = await exec<GoalRow[]>(
            tx,
            `UPDATE ${s}.goals SET status = $1, updated_at = $2::text::timestamptz
             WHERE space = $3 AND user_id = $4 AND ${topicIs('$5')} AND status = 'active'
             RETURNING ${GOAL_COLS}`,
            [status, at, space, user, topic],
          );
          return updated ?? null;
        });
        return row === null ? null : toGoal(row as GoalRow);
      });
    },
    list(space, user, options = {}) {
      return rt.run('listing goals', async () => {
        const n = rowLimit(options.limit);
        if (n === 0) return [];
        const order = 'ORDER BY created_at DESC, rid DESC';
        const rows =
          options.topic === undefined
            ? await exec<GoalRow[]>(
                sql,
                `SELECT ${GOAL_COLS} FROM ${s}.goals WHERE space = $1 AND user_id = $2 ${order} LIMIT $3`,
                [space, user, n],
              )
            : await exec<GoalRow[]>(
                sql,
                `SELECT ${GOAL_COLS} FROM ${s}.goals WHERE space = $1 AND user_id = $2 AND ${topicIs('$3')} ${order} LIMIT $4`,
                [space, user, options.topic, n],
              );
        return rows.map(toGoal);
      });
    },
    deleteUser(space, user) {
      return rt.run('deleting goals', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `WITH d AS (DELETE FROM ${s}.goals WHERE space = $1 AND user_id = $2 RETURNING 1) SELECT count(*)::int AS n FROM d`,
          [space, user],
        );
        return Number(row?.n ?? 0);
      });
    },
  };
}
