/**
 * In-memory adapters of the structured ports (docs/structured.md): for tests, demos and short-lived agents. Nothing
 * survives the process. Every store hands out copies, never its own objects.
 *
 * Passing an existing store to a constructor (`new InMemoryFactStore(other)`) gives a second instance over the
 * same data, the in-process stand-in for "another connection to the same database" used by the conformance suites.
 */

import { mayReplaceFact, mergeFacts } from '../domain/facts.js';
import { matchesToolEventFilter } from '../domain/tool-event-filter.js';
import { MemError } from '../errors.js';
import type { FactStore } from '../ports/fact-store.js';
import type { GoalStore } from '../ports/goal-store.js';
import type { MessageStore } from '../ports/message-store.js';
import type { PhaseStore } from '../ports/phase-store.js';
import type { SessionStateStore } from '../ports/session-state-store.js';
import type { SummaryStore } from '../ports/summary-store.js';
import type { ToolEventStore } from '../ports/tool-event-store.js';
import type { UserStore } from '../ports/user-store.js';
import type * as S from '../types-structured.js';

const ADAPTER = 'in-memory';
const SEP = '\u0000';
const NO_TOPIC = '\u0001';
const k = (...parts: (string | null)[]): string => parts.map((p) => (p === null ? NO_TOPIC : p)).join(SEP);
const copy = <T>(value: T): T => structuredClone(value);

/** Delete the entries of a map keyed by `k(space, sessionId)` whose session id starts with `prefix`; returns how many values went (`size` counts a list's items). */
function deleteByPrefix<V>(map: Map<string, V>, space: string, prefix: string, size: (v: V) => number): number {
  const start = k(space, prefix);
  let n = 0;
  for (const [key, value] of map) {
    if (!key.startsWith(start)) continue;
    map.delete(key);
    n += size(value);
  }
  return n;
}

function conflict(what: string, id: string): MemError {
  return new MemError('CONFLICT', `${ADAPTER}: ${what} id "${id}" already exists in this space. Use a new id.`);
}

// ---------- messages ----------

interface MessageData {
  sessions: Map<string, S.StoredMessage[]>;
  ids: Set<string>;
}

export class InMemoryMessageStore implements MessageStore {
  readonly name = ADAPTER;
  private readonly data: MessageData;

  constructor(shareWith?: InMemoryMessageStore) {
    this.data = shareWith ? shareWith.data : { sessions: new Map(), ids: new Set() };
  }

  async save(space: string, message: S.NewMessage): Promise<void> {
    const idKey = k(space, message.id);
    if (this.data.ids.has(idKey)) throw conflict('message', message.id);
    const key = k(space, message.sessionId);
    const list = this.data.sessions.get(key) ?? [];
    list.push(copy(message));
    this.data.sessions.set(key, list);
    this.data.ids.add(idKey);
  }

  async recent(space: string, sessionId: string, limit: number): Promise<S.StoredMessage[]> {
    if (limit <= 0) return [];
    return (this.data.sessions.get(k(space, sessionId)) ?? []).slice(-limit).map(copy);
  }

  async count(space: string, sessionId: string): Promise<number> {
    return this.data.sessions.get(k(space, sessionId))?.length ?? 0;
  }

  async deleteBefore(space: string, sessionId: string, keepLast: number): Promise<number> {
    const key = k(space, sessionId);
    const list = this.data.sessions.get(key);
    if (!list) return 0;
    const cut = Math.max(0, list.length - Math.max(0, keepLast));
    const gone = list.splice(0, cut);
    for (const m of gone) this.data.ids.delete(k(space, m.id));
    if (list.length === 0) this.data.sessions.delete(key);
    return gone.length;
  }
}

// ---------- facts ----------

export class InMemoryFactStore implements FactStore {
  readonly name = ADAPTER;
  private readonly facts: Map<string, S.Fact & { space: string }>;

  constructor(shareWith?: InMemoryFactStore) {
    this.facts = shareWith ? shareWith.facts : new Map();
  }

  private strip(f: S.Fact & { space: string }): S.Fact {
    const { space: _space, ...fact } = f;
    return copy(fact);
  }

  async upsert(space: string, write: S.FactWrite): Promise<S.FactUpsertResult> {
    const key = k(space, write.user, write.topic, write.key);
    const existing = this.facts.get(key);
    if (existing && !mayReplaceFact(existing.source, write.source))
      return { status: 'kept', fact: this.strip(existing) };
    const fact = {
      space,
      user: write.user,
      topic: write.topic,
      key: write.key,
      value: copy(write.value),
      source: write.source,
      createdAt: existing?.createdAt ?? write.at,
      updatedAt: write.at,
    };
    this.facts.set(key, fact);
    return { status: existing ? 'updated' : 'created', fact: this.strip(fact) };
  }

  async get(space: string, user: string, topic?: string | null): Promise<S.Fact[]> {
    const rows = [...this.facts.values()].filter((f) => f.space === space && f.user === user);
    return mergeFacts(rows, topic).map((f) => this.strip(f as S.Fact & { space: string }));
  }

  async find(space: string, user: string, key: string, topic: string | null): Promise<S.Fact | null> {
    const f = this.facts.get(k(space, user, topic, key));
    return f ? this.strip(f) : null;
  }

  async delete(space: string, user: string, key: string, topic: string | null): Promise<boolean> {
    return this.facts.delete(k(space, user, topic, key));
  }

  async deleteUser(space: string, user: string): Promise<number> {
    let n = 0;
    for (const [key, f] of this.facts) {
      if (f.space === space && f.user === user) {
        this.facts.delete(key);
        n++;
      }
    }
    return n;
  }
}

// ---------- goals ----------

/** A record as a sequenced store keeps it: its space and its place in the order of insertion (ties by time). */
type Sequenced<T> = T & { space: string; seq: number };

/**
 * A store of records in insertion order, unique by id within a space (goals, tool events): the shared rows, adding one
 * (CONFLICT when its id is taken), handing a copy out without the bookkeeping, and dropping rows by a test.
 */
abstract class SequencedRows<T extends { id: string }> {
  readonly name = ADAPTER;
  protected readonly data: { rows: Sequenced<T>[]; seq: number };

  constructor(
    private readonly what: string,
    shareWith?: SequencedRows<T>,
  ) {
    this.data = shareWith ? shareWith.data : { rows: [], seq: 0 };
  }

  /** CONFLICT when `id` is taken in `space`. */
  protected assertFree(space: string, id: string): void {
    if (this.data.rows.some((r) => r.space === space && r.id === id)) throw conflict(this.what, id);
  }

  protected add(space: string, record: T): Sequenced<T> {
    this.assertFree(space, record.id);
    const row = { ...copy(record), space, seq: ++this.data.seq };
    this.data.rows.push(row);
    return row;
  }

  protected strip(row: Sequenced<T>): T {
    const { space: _space, seq: _seq, ...record } = row;
    return copy(record as unknown as T);
  }

  /** Drops the rows `doomed` picks; how many went. */
  protected drop(doomed: (row: Sequenced<T>) => boolean): number {
    const before = this.data.rows.length;
    this.data.rows = this.data.rows.filter((r) => !doomed(r));
    return before - this.data.rows.length;
  }
}

type GoalRow = Sequenced<S.Goal>;

export class InMemoryGoalStore extends SequencedRows<S.Goal> implements GoalStore {
  constructor(shareWith?: InMemoryGoalStore) {
    super('goal', shareWith);
  }

  private active(space: string, user: string, topic: string | null): GoalRow | undefined {
    return this.data.rows.find(
      (r) => r.space === space && r.user === user && r.topic === topic && r.status === 'active',
    );
  }

  async setActive(space: string, goal: S.NewGoal): Promise<{ goal: S.Goal; replaced: S.Goal | null }> {
    this.assertFree(space, goal.id);
    const previous = this.active(space, goal.user, goal.topic);
    if (previous) {
      previous.status = 'replaced';
      previous.updatedAt = goal.at;
    }
    const row = this.add(space, {
      id: goal.id,
      user: goal.user,
      topic: goal.topic,
      goal: goal.goal,
      status: 'active',
      metadata: goal.metadata,
      createdAt: goal.at,
      updatedAt: goal.at,
    });
    return { goal: this.strip(row), replaced: previous ? this.strip(previous) : null };
  }

  async getActive(space: string, user: string, topic: string | null): Promise<S.Goal | null> {
    const r = this.active(space, user, topic);
    return r ? this.strip(r) : null;
  }

  async finish(
    space: string,
    user: string,
    topic: string | null,
    status: 'completed' | 'abandoned',
    at: string,
  ): Promise<S.Goal | null> {
    const r = this.active(space, user, topic);
    if (!r) return null;
    r.status = status;
    r.updatedAt = at;
    return this.strip(r);
  }

  async list(space: string, user: string, options: { topic?: string | null; limit?: number } = {}): Promise<S.Goal[]> {
    const rows = this.data.rows
      .filter((r) => r.space === space && r.user === user && (options.topic === undefined || r.topic === options.topic))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.seq - a.seq));
    return (options.limit !== undefined ? rows.slice(0, Math.max(0, options.limit)) : rows).map((r) => this.strip(r));
  }

  async deleteUser(space: string, user: string): Promise<number> {
    return this.drop((r) => r.space === space && r.user === user);
  }
}

// ---------- one row per session (summaries, session state) ----------

/** A store of one row per (space, session): reading, deleting and forgetting by session prefix are the same. */
abstract class PerSessionRows<T> {
  readonly name = ADAPTER;
  protected readonly rows: Map<string, T>;

  constructor(shareWith?: PerSessionRows<T>) {
    this.rows = shareWith ? shareWith.rows : new Map();
  }

  async get(space: string, sessionId: string): Promise<T | null> {
    const row = this.rows.get(k(space, sessionId));
    return row ? copy(row) : null;
  }

  async delete(space: string, sessionId: string): Promise<boolean> {
    return this.rows.delete(k(space, sessionId));
  }

  async deleteSessions(space: string, prefix: string): Promise<number> {
    return deleteByPrefix(this.rows, space, prefix, () => 1);
  }
}

// ---------- summaries ----------

export class InMemorySummaryStore extends PerSessionRows<S.SessionSummary> implements SummaryStore {
  async save(space: string, write: S.SummaryWrite, expectedVersion?: number): Promise<S.SessionSummary> {
    const key = k(space, write.sessionId);
    const existing = this.rows.get(key);
    const current = existing?.version ?? 0;
    if (expectedVersion !== undefined && expectedVersion !== current) {
      throw new MemError(
        'CONFLICT',
        `${ADAPTER}: the summary of session "${write.sessionId}" changed meanwhile (version ${current}, expected ${expectedVersion}). Read it again and retry.`,
        { retryable: true },
      );
    }
    const row: S.SessionSummary = {
      sessionId: write.sessionId,
      summary: write.summary,
      messagesCovered: write.messagesCovered,
      version: current + 1,
      createdAt: existing?.createdAt ?? write.at,
      updatedAt: write.at,
    };
    this.rows.set(key, row);
    return copy(row);
  }
}

// ---------- users ----------

export class InMemoryUserStore implements UserStore {
  readonly name = ADAPTER;
  private readonly data: { byExternal: Map<string, S.UserRecord>; byId: Map<string, S.UserRecord> };

  constructor(shareWith?: InMemoryUserStore) {
    this.data = shareWith ? shareWith.data : { byExternal: new Map(), byId: new Map() };
  }

  async ensure(
    space: string,
    externalId: string,
    candidate: { id: string; at: string },
  ): Promise<{ user: S.UserRecord; created: boolean }> {
    const existing = this.data.byExternal.get(k(space, externalId));
    if (existing) return { user: copy(existing), created: false };
    if (this.data.byId.has(k(space, candidate.id))) throw conflict('user', candidate.id);
    const user: S.UserRecord = { id: candidate.id, externalId, createdAt: candidate.at };
    this.data.byExternal.set(k(space, externalId), user);
    this.data.byId.set(k(space, candidate.id), user);
    return { user: copy(user), created: true };
  }

  async get(space: string, externalId: string): Promise<S.UserRecord | null> {
    const u = this.data.byExternal.get(k(space, externalId));
    return u ? copy(u) : null;
  }

  async getById(space: string, id: string): Promise<S.UserRecord | null> {
    const u = this.data.byId.get(k(space, id));
    return u ? copy(u) : null;
  }

  async delete(space: string, externalId: string): Promise<boolean> {
    const u = this.data.byExternal.get(k(space, externalId));
    if (!u) return false;
    this.data.byExternal.delete(k(space, externalId));
    this.data.byId.delete(k(space, u.id));
    return true;
  }
}

// ---------- session state ----------

export class InMemorySessionStateStore extends PerSessionRows<S.SessionState> implements SessionStateStore {
  async set(space: string, sessionId: string, state: S.JsonValue, at: string): Promise<void> {
    this.rows.set(k(space, sessionId), { sessionId, state: copy(state), updatedAt: at });
  }
}

// ---------- phases ----------

export class InMemoryPhaseStore implements PhaseStore {
  readonly name = ADAPTER;
  private readonly sessions: Map<string, S.PhaseChange[]>;

  constructor(shareWith?: InMemoryPhaseStore) {
    this.sessions = shareWith ? shareWith.sessions : new Map();
  }

  async set(space: string, change: S.PhaseChange): Promise<void> {
    const key = k(space, change.sessionId);
    const list = this.sessions.get(key) ?? [];
    list.push(copy(change));
    this.sessions.set(key, list);
  }

  async current(space: string, sessionId: string): Promise<S.PhaseChange | null> {
    const last = this.sessions.get(k(space, sessionId))?.at(-1);
    return last ? copy(last) : null;
  }

  async history(space: string, sessionId: string, limit?: number): Promise<S.PhaseChange[]> {
    const list = this.sessions.get(k(space, sessionId)) ?? [];
    if (limit !== undefined && limit <= 0) return [];
    return (limit !== undefined ? list.slice(-limit) : list).map(copy);
  }

  async deleteSessions(space: string, prefix: string): Promise<number> {
    return deleteByPrefix(this.sessions, space, prefix, (list) => list.length);
  }
}

// ---------- tool events ----------

export class InMemoryToolEventStore extends SequencedRows<S.ToolEvent> implements ToolEventStore {
  constructor(shareWith?: InMemoryToolEventStore) {
    super('tool event', shareWith);
  }

  private matching(space: string, filter: S.ToolEventFilter): Sequenced<S.ToolEvent>[] {
    return this.data.rows
      .filter((r) => r.space === space && matchesToolEventFilter(r, filter))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.seq - b.seq));
  }

  async record(space: string, event: S.ToolEvent): Promise<void> {
    this.add(space, event);
  }

  async list(space: string, filter: S.ToolEventFilter, limit: number): Promise<S.ToolEvent[]> {
    if (limit <= 0) return [];
    return this.matching(space, filter)
      .slice(-limit)
      .map((r) => this.strip(r));
  }

  async count(space: string, filter: S.ToolEventFilter): Promise<number> {
    return this.matching(space, filter).length;
  }

  async deleteSessions(space: string, prefix: string): Promise<number> {
    return this.drop((r) => r.space === space && r.sessionId !== null && r.sessionId.startsWith(prefix));
  }
}
