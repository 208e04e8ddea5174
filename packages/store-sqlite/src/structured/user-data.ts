/** The per-user structured ports on SQLite: messages, facts (with source priority and merge) and goals. */
import type { Fact, FactSource, Goal, GoalStatus, JsonObject, MessageRole, StoredMessage, ToolCall } from '@mem/core';
import {
  canonicalJson,
  type FactStore,
  factPriority,
  type GoalStore,
  type MessageStore,
  mergeFacts,
} from '@mem/core/adapter';
import { duplicateId, isUniqueViolation, type SqliteLease, sqlLimit } from '../connection.js';
import { ADAPTER } from '../database.js';

import { parse } from './shared.js';

// ---------- messages ----------

interface MessageRow {
  id: string;
  session_id: string;
  role: string;
  content: string;
  tool_calls: string;
  name: string | null;
  metadata: string;
  created_at: string;
}

const MESSAGE_COLUMNS = 'id, session_id, role, content, tool_calls, name, metadata, created_at';

function toMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    sessionId: row.session_id,
    role: row.role as MessageRole,
    content: row.content,
    toolCalls: parse(row.tool_calls) as unknown as ToolCall[],
    name: row.name,
    metadata: parse<JsonObject>(row.metadata),
    createdAt: row.created_at,
  };
}

export function messageStore(c: SqliteLease): MessageStore {
  return {
    name: ADAPTER,
    save(space, m) {
      return c.run(
        'saving a message',
        () => {
          c.stmt(
            `INSERT INTO messages (space, id, session_id, role, content, tool_calls, name, metadata, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            space,
            m.id,
            m.sessionId,
            m.role,
            m.content,
            JSON.stringify(m.toolCalls),
            m.name,
            JSON.stringify(m.metadata),
            m.createdAt,
          );
        },
        (error) => (isUniqueViolation(error) ? duplicateId('message', m.id, error) : null),
      );
    },
    recent(space, sessionId, limit) {
      return c.run('reading messages', () => {
        const n = sqlLimit(limit);
        if (n === null) return [];
        const rows = c
          .stmt(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE space = ? AND session_id = ? ORDER BY rid DESC LIMIT ?`)
          .all(space, sessionId, n) as MessageRow[];
        return rows.reverse().map(toMessage);
      });
    },
    count(space, sessionId) {
      return c.run('counting messages', () => {
        const row = c
          .stmt('SELECT count(*) AS n FROM messages WHERE space = ? AND session_id = ?')
          .get(space, sessionId);
        return (row as { n: number }).n;
      });
    },
    deleteBefore(space, sessionId, keepLast) {
      return c.run('deleting messages', () => {
        const keep = Math.max(0, Math.floor(keepLast));
        if (!(keep > 0)) {
          return c.stmt('DELETE FROM messages WHERE space = ? AND session_id = ?').run(space, sessionId).changes;
        }
        // One statement: everything older than the keep-th newest message goes.
        return c
          .stmt(
            `DELETE FROM messages WHERE space = ? AND session_id = ? AND rid < (
               SELECT rid FROM messages WHERE space = ? AND session_id = ? ORDER BY rid DESC LIMIT 1 OFFSET ?)`,
          )
          .run(space, sessionId, space, sessionId, keep - 1).changes;
      });
    },
  };
}

// ---------- facts ----------

interface FactRow {
  user_id: string;
  topic: string | null;
  key: string;
  value: string;
  source: string;
  created_at: string;
  updated_at: string;
}

const FACT_COLUMNS = 'user_id, topic, key, value, source, created_at, updated_at';

function toFact(row: FactRow): Fact {
  return {
    user: row.user_id,
    topic: row.topic,
    key: row.key,
    value: parse(row.value),
    source: row.source as FactSource,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function factStore(c: SqliteLease): FactStore {
  const FIND = `SELECT ${FACT_COLUMNS} FROM facts WHERE space = ? AND user_id = ? AND topic IS ? AND key = ?`;
  return {
    name: ADAPTER,
    upsert(space, w) {
      return c.write('writing a fact', () => {
        const existed = c.stmt(FIND).get(space, w.user, w.topic, w.key) !== undefined;
        // The priority rule lives in the statement: a lower-priority source leaves the row as it is.
        const written = c
          .stmt(
            `INSERT INTO facts (space, user_id, topic, key, value, source, priority, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (space, user_id, topic IS NULL, ifnull(topic, ''), key) DO UPDATE SET
               value = excluded.value, source = excluded.source, priority = excluded.priority,
               updated_at = excluded.updated_at
             WHERE excluded.priority >= facts.priority
             RETURNING ${FACT_COLUMNS}`,
          )
          .get(space, w.user, w.topic, w.key, canonicalJson(w.value), w.source, factPriority(w.source), w.at, w.at) as
          | FactRow
          | undefined;
        if (written !== undefined) return { status: existed ? 'updated' : 'created', fact: toFact(written) } as const;
        const kept = c.stmt(FIND).get(space, w.user, w.topic, w.key) as FactRow;
        return { status: 'kept', fact: toFact(kept) } as const;
      });
    },
    get(space, user, topic) {
      return c.run('reading facts', () => {
        const rows = c
          .stmt(`SELECT ${FACT_COLUMNS} FROM facts WHERE space = ? AND user_id = ? AND (topic IS NULL OR topic = ?)`)
          .all(space, user, topic ?? null) as FactRow[];
        return mergeFacts(rows.map(toFact), topic);
      });
    },
    find(space, user, key, topic) {
      return c.run('reading a fact', () => {
        const row = c.stmt(FIND).get(space, user, topic, key) as FactRow | undefined;
        return row === undefined ? null : toFact(row);
      });
    },
    delete(space, user, key, topic) {
      return c.run(
        'deleting a fact',
        () =>
          c
            .stmt('DELETE FROM facts WHERE space = ? AND user_id = ? AND topic IS ? AND key = ?')
            .run(space, user, topic, key).changes > 0,
      );
    },
    deleteUser(space, user) {
      return c.run(
        'deleting facts',
        () => c.stmt('DELETE FROM facts WHERE space = ? AND user_id = ?').run(space, user).changes,
      );
    },
  };
}

// ---------- goals ----------

interface GoalRow {
  id: string;
  user_id: string;
  topic: string | null;
  goal: string;
  status: string;
  metadata: string;
  created_at: string;
  updated_at: string;
}

const GOAL_COLUMNS = 'id, user_id, topic, goal, status, metadata, created_at, updated_at';

function toGoal(row: GoalRow): Goal {
  return {
    id: row.id,
    user: row.user_id,
    topic: row.topic,
    goal: row.goal,
    status: row.status as GoalStatus,
    metadata: parse<JsonObject>(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function goalStore(c: SqliteLease): GoalStore {
  const ACTIVE = `SELECT ${GOAL_COLUMNS} FROM goals
    WHERE space = ? AND user_id = ? AND topic IS ? AND status = 'active'`;
  return {
    name: ADAPTER,
    setActive(space, g) {
      return c.write(
        'setting the active goal',
        () => {
          if (c.stmt('SELECT 1 FROM goals WHERE space = ? AND id = ?').get(space, g.id) !== undefined)
            throw duplicateId('goal', g.id, undefined);
          const replaced = c
            .stmt(
              `UPDATE goals SET status = 'replaced', updated_at = ?
               WHERE space = ? AND user_id = ? AND topic IS ? AND status = 'active'
               RETURNING ${GOAL_COLUMNS}`,
            )
            .get(g.at, space, g.user, g.topic) as GoalRow | undefined;
          const inserted = c
            .stmt(
              `INSERT INTO goals (space, id, user_id, topic, goal, status, metadata, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?) RETURNING ${GOAL_COLUMNS}`,
            )
            .get(space, g.id, g.user, g.topic, g.goal, JSON.stringify(g.metadata), g.at, g.at) as GoalRow;
          return { goal: toGoal(inserted), replaced: replaced === undefined ? null : toGoal(replaced) };
        },
        (error) => (isUniqueViolation(error, 'goals.id') ? duplicateId('goal', g.id, error) : null),
      );
    },
    getActive(space, user, topic) {
      return c.run('reading the active goal', () => {
        const row = c.stmt(ACTIVE).get(space, user, topic) as GoalRow | undefined;
        return row === undefined ? null : toGoal(row);
      });
    },
    finish(space, user, topic, status, at) {
      return c.run('finishing a goal', () => {
        const row = c
          .stmt(
            `UPDATE goals SET status = ?, updated_at = ?
             WHERE space = ? AND user_id = ? AND topic IS ? AND status = 'active'
             RETURNING ${GOAL_COLUMNS}`,
          )
          .get(status, at, space, user, topic) as GoalRow | undefined;
        return row === undefined ? null : toGoal(row);
      });
    },
    list(space, user, options = {}) {
      return c.run('listing goals', () => {
        const n = sqlLimit(options.limit);
        if (n === null) return [];
        const order = 'ORDER BY created_at DESC, rid DESC LIMIT ?';
        const rows =
          options.topic === undefined
            ? c.stmt(`SELECT ${GOAL_COLUMNS} FROM goals WHERE space = ? AND user_id = ? ${order}`).all(space, user, n)
            : c
                .stmt(`SELECT ${GOAL_COLUMNS} FROM goals WHERE space = ? AND user_id = ? AND topic IS ? ${order}`)
                .all(space, user, options.topic, n);
        return (rows as GoalRow[]).map(toGoal);
      });
    },
    deleteUser(space, user) {
      return c.run(
        'deleting goals',
        () => c.stmt('DELETE FROM goals WHERE space = ? AND user_id = ?').run(space, user).changes,
      );
    },
  };
}
