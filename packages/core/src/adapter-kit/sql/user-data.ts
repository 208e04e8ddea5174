/**
 * The per-user structured ports over any SQL engine: messages, facts (with source priority and merge) and goals.
 * Each method's statements are written once; an engine adds what its concurrency needs (PostgreSQL: a one-statement
 * fact upsert, a lock per goal scope, the saves of one session committed in call order).
 */
import { factPriority, mergeFacts } from '../../domain/facts.js';
import { canonicalJson } from '../../domain/json.js';
import type { FactStore } from '../../ports/fact-store.js';
import type { GoalStore } from '../../ports/goal-store.js';
import type { MessageStore } from '../../ports/message-store.js';
import type { NewMessage } from '../../types-structured.js';
import { sqlConflicts } from './conflicts.js';
import { type SqlDialect, type SqlErrorMap, type SqlRunner, type SqlType, selectList, sqlRowCount } from './dialect.js';
import { type SqlProgram, sqlAll, sqlGet, sqlRun } from './program.js';
import { SQL_RECORDS, type SqlRow } from './records.js';
import { sqlNewest } from './sessions.js';

/** CONFLICT for a unique violation of the record id of `table`. */
const idTaken =
  (d: SqlDialect, table: string, what: string, id: string): SqlErrorMap =>
  (error) =>
    d.isDuplicate(error, table) ? sqlConflicts.duplicateId(d, what, id, error) : null;

/** The placeholders of parameters 1…n of `types`, in order. */
const values = (d: SqlDialect, types: readonly SqlType[]) => types.map((t, i) => d.param(i + 1, t)).join(', ');

/** The message port: an append-only log per session, the newest rows (by `rid`) last. */
export function sqlMessageStore(d: SqlDialect, r: SqlRunner): MessageStore {
  const record = SQL_RECORDS.message;
  const t = d.table('messages');
  const insert = `INSERT INTO ${t} (space, id, session_id, role, content, tool_calls, name, metadata, created_at)
    VALUES (${values(d, ['text', 'text', 'text', 'text', 'text', 'json', 'text', 'json', 'time'])})`;
  const newest = `SELECT ${selectList(d, record.fields)} FROM ${t} WHERE space = ${d.param(1)} AND session_id = ${d.param(2)}
    ORDER BY rid DESC LIMIT ${d.param(3)}`;
  const count = `SELECT ${d.count} AS n FROM ${t} WHERE space = ${d.param(1)} AND session_id = ${d.param(2)}`;
  const removeAll = `DELETE FROM ${t} WHERE space = ${d.param(1)} AND session_id = ${d.param(2)}`;
  // One statement: everything older than the keep-th newest message goes (nothing when there are fewer).
  const removeOlder = `${removeAll} AND rid < (
    SELECT rid FROM ${t} WHERE space = ${d.param(3)} AND session_id = ${d.param(4)} ORDER BY rid DESC LIMIT 1 OFFSET ${d.param(5)})`;
  function* write(space: string, m: NewMessage): SqlProgram<void> {
    const [toolCalls, metadata] = [JSON.stringify(m.toolCalls), JSON.stringify(m.metadata)];
    yield* sqlRun(insert, [space, m.id, m.sessionId, m.role, m.content, toolCalls, m.name, metadata, m.createdAt]);
  }
  return {
    name: d.adapter,
    save(space, m) {
      return r.run('saving a message', () => write(space, m), idTaken(d, 'messages', 'message', m.id));
    },
    recent(space, sessionId, limit) {
      return r.run('reading messages', () => sqlNewest(d, record, newest, space, sessionId, limit));
    },
    count(space, sessionId) {
      return r.run('counting messages', function* () {
        return Number((yield* sqlGet<{ n: number }>(count, [space, sessionId]))?.n ?? 0);
      });
    },
    deleteBefore(space, sessionId, keepLast) {
      return r.run('deleting messages', function* () {
        const keep = Math.max(0, Math.floor(keepLast));
        if (!(keep > 0)) return yield* sqlRun(removeAll, [space, sessionId]);
        return yield* sqlRun(removeOlder, [space, sessionId, space, sessionId, keep - 1]);
      });
    },
  };
}

/**
 * The fact port. `upsert` reads the stored fact and writes in one transaction (an engine with a write lock keeps the
 * priority rule atomic so); an engine without one replaces it by a single statement.
 */
export function sqlFactStore(d: SqlDialect, r: SqlRunner): FactStore {
  const record = SQL_RECORDS.fact;
  const t = d.table('facts');
  const cols = selectList(d, record.fields);
  const scope = `space = ${d.param(1)} AND user_id = ${d.param(2)} AND key = ${d.param(3)} AND ${d.same('topic', 4)}`;
  const find = `SELECT ${cols} FROM ${t} WHERE ${scope}`;
  const stored = `SELECT ${cols}, priority FROM ${t} WHERE ${scope}`;
  const update = `UPDATE ${t} SET value = ${d.param(1, 'json')}, source = ${d.param(2)}, priority = ${d.param(3)},
      updated_at = ${d.param(4, 'time')}
    WHERE space = ${d.param(5)} AND user_id = ${d.param(6)} AND key = ${d.param(7)} AND ${d.same('topic', 8)}
    RETURNING ${cols}`;
  const insert = `INSERT INTO ${t} (space, user_id, topic, key, value, source, priority, created_at, updated_at)
    VALUES (${values(d, ['text', 'text', 'text', 'text', 'json', 'text', 'int', 'time', 'time'])}) RETURNING ${cols}`;
  const byScope = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} AND user_id = ${d.param(2)}
    AND (topic IS NULL OR topic = ${d.param(3)})`;
  const remove = `DELETE FROM ${t} WHERE ${scope}`;
  const removeUser = `DELETE FROM ${t} WHERE space = ${d.param(1)} AND user_id = ${d.param(2)}`;
  return {
    name: d.adapter,
    upsert(space, w) {
      return r.transaction('writing a fact', function* () {
        const current = yield* sqlGet<SqlRow & { priority: number }>(stored, [space, w.user, w.key, w.topic]);
        const priority = factPriority(w.source);
        // The priority rule: a lower-priority source leaves the stored fact as it is.
        if (current !== undefined && Number(current.priority) > priority) {
          return { status: 'kept', fact: record.from(current) } as const;
        }
        const value = canonicalJson(w.value);
        const row =
          current === undefined
            ? yield* sqlGet<SqlRow>(insert, [space, w.user, w.topic, w.key, value, w.source, priority, w.at, w.at])
            : yield* sqlGet<SqlRow>(update, [value, w.source, priority, w.at, space, w.user, w.key, w.topic]);
        const status = current === undefined ? 'created' : 'updated';
        return { status, fact: record.from(row as SqlRow) } as const;
      });
    },
    get(space, user, topic) {
      return r.run('reading facts', function* () {
        const rows = yield* sqlAll<SqlRow>(byScope, [space, user, topic ?? null]);
        return mergeFacts(rows.map(record.from), topic);
      });
    },
    find(space, user, key, topic) {
      return r.run('reading a fact', function* () {
        const row = yield* sqlGet<SqlRow>(find, [space, user, key, topic]);
        return row === undefined ? null : record.from(row);
      });
    },
    delete(space, user, key, topic) {
      return r.run('deleting a fact', function* () {
        return (yield* sqlRun(remove, [space, user, key, topic])) > 0;
      });
    },
    deleteUser(space, user) {
      return r.run('deleting facts', () => sqlRun(removeUser, [space, user]));
    },
  };
}

/**
 * Serialises the writers of one (space, user, topic) for the rest of the transaction: what an engine without a
 * write lock runs first in each goal write, so that two writers never leave two active goals.
 */
export type SqlScopeLock = (space: string, user: string, topic: string | null) => SqlProgram<void>;

/**
 * The goal port: at most one active goal per (space, user, topic). `setActive` replaces and inserts in one
 * transaction; with `lockScope`, `setActive` and `finish` take the scope's lock first.
 */
export function sqlGoalStore(d: SqlDialect, r: SqlRunner, lockScope?: SqlScopeLock): GoalStore {
  const record = SQL_RECORDS.goal;
  const t = d.table('goals');
  const cols = selectList(d, record.fields);
  const active = (n: number) =>
    `space = ${d.param(n)} AND user_id = ${d.param(n + 1)} AND ${d.same('topic', n + 2)} AND status = 'active'`;
  const replace = `UPDATE ${t} SET status = 'replaced', updated_at = ${d.param(1, 'time')} WHERE ${active(2)}
    RETURNING ${cols}`;
  const insert = `INSERT INTO ${t} (space, id, user_id, topic, goal, status, metadata, created_at, updated_at)
    VALUES (${d.param(1)}, ${d.param(2)}, ${d.param(3)}, ${d.param(4)}, ${d.param(5)}, 'active', ${d.param(6, 'json')},
      ${d.param(7, 'time')}, ${d.param(8, 'time')}) RETURNING ${cols}`;
  const getActive = `SELECT ${cols} FROM ${t} WHERE ${active(1)}`;
  const finish = `UPDATE ${t} SET status = ${d.param(1)}, updated_at = ${d.param(2, 'time')} WHERE ${active(3)}
    RETURNING ${cols}`;
  const order = 'ORDER BY created_at DESC, rid DESC LIMIT';
  const ofUser = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} AND user_id = ${d.param(2)}`;
  const list = `${ofUser} ${order} ${d.param(3)}`;
  const listTopic = `${ofUser} AND ${d.same('topic', 3)} ${order} ${d.param(4)}`;
  const removeUser = `DELETE FROM ${t} WHERE space = ${d.param(1)} AND user_id = ${d.param(2)}`;
  const scopedWrite = lockScope === undefined ? r.run.bind(r) : r.transaction.bind(r);
  return {
    name: d.adapter,
    setActive(space, g) {
      const program = function* () {
        if (lockScope !== undefined) yield* lockScope(space, g.user, g.topic);
        const replaced = yield* sqlGet<SqlRow>(replace, [g.at, space, g.user, g.topic]);
        const metadata = JSON.stringify(g.metadata);
        const inserted = yield* sqlGet<SqlRow>(insert, [space, g.id, g.user, g.topic, g.goal, metadata, g.at, g.at]);
        return {
          goal: record.from(inserted as SqlRow),
          replaced: replaced === undefined ? null : record.from(replaced),
        };
      };
      return r.transaction('setting the active goal', program, idTaken(d, 'goals', 'goal', g.id));
    },
    getActive(space, user, topic) {
      return r.run('reading the active goal', function* () {
        const row = yield* sqlGet<SqlRow>(getActive, [space, user, topic]);
        return row === undefined ? null : record.from(row);
      });
    },
    finish(space, user, topic, status, at) {
      return scopedWrite('finishing a goal', function* () {
        if (lockScope !== undefined) yield* lockScope(space, user, topic);
        const row = yield* sqlGet<SqlRow>(finish, [status, at, space, user, topic]);
        return row === undefined ? null : record.from(row);
      });
    },
    list(space, user, options = {}) {
      return r.run('listing goals', function* () {
        const n = sqlRowCount(options.limit);
        if (n === 0) return [];
        const rows =
          options.topic === undefined
            ? yield* sqlAll<SqlRow>(list, [space, user, d.limit(n)])
            : yield* sqlAll<SqlRow>(listTopic, [space, user, options.topic, d.limit(n)]);
        return rows.map(record.from);
      });
    },
    deleteUser(space, user) {
      return r.run('deleting goals', () => sqlRun(removeUser, [space, user]));
    },
  };
}
