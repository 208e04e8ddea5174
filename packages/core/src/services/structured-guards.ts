/**
 * Thin wrappers that put the rules of the structured stores in front of any adapter: input validation (one schema
 * per record, clear `INVALID_INPUT` messages), times normalised to ISO-8601 UTC, JSON size limits, and the secret
 * check for facts (docs/safety.md: facts refuse secrets). Adapters trust their input; the stack wraps every adapter with
 * these guards, so each rule has exactly one implementation whatever the backend.
 *
 * Episodes and procedures are validated by the services of @mem/episodic and @mem/procedural (which build the
 * records), so `guardStructuredStores` passes those two ports through unchanged.
 */
import { z } from 'zod';
import { jsonBytes } from '../domain/json.js';
import { checkName } from '../domain/names.js';
import { guardFields, type PersonalDataSetting, personalDataPolicy } from '../domain/secrets.js';
import { MemError } from '../errors.js';
import type { EpisodeStore } from '../ports/episode-store.js';
import type { FactStore } from '../ports/fact-store.js';
import type { GoalStore } from '../ports/goal-store.js';
import type { MessageStore } from '../ports/message-store.js';
import type { PhaseStore } from '../ports/phase-store.js';
import type { ProcedureStore } from '../ports/procedure-store.js';
import type { SecretScanner } from '../ports/secret-scanner.js';
import type { SessionStateStore } from '../ports/session-state-store.js';
import type { StructuredStores } from '../ports/structured-stores.js';
import type { SummaryStore } from '../ports/summary-store.js';
import type { ToolEventStore } from '../ports/tool-event-store.js';
import type { UserStore } from '../ports/user-store.js';
import { parseInput } from '../schemas.js';
import {
  factKeySchema,
  factWriteSchema,
  isoTimeSchema,
  jsonValueSchema,
  limitSchema,
  nameSchema,
  newGoalSchema,
  newMessageSchema,
  phaseChangeSchema,
  refSchema,
  sessionPrefixSchema,
  summaryWriteSchema,
  toolEventFilterSchema,
  toolEventSchema,
} from '../schemas-structured.js';
import type {
  Episode,
  Fact,
  FactUpsertResult,
  FactWrite,
  Goal,
  JsonValue,
  NewGoal,
  NewMessage,
  PhaseChange,
  Procedure,
  SessionState,
  SessionSummary,
  StoredEmbedding,
  StoredMessage,
  SummaryWrite,
  ToolEvent,
  ToolEventFilter,
  UserRecord,
} from '../types-structured.js';
import { scanFields } from './secret-scan.js';

/** Size limits of the guards (bytes of UTF-8 JSON). */
export interface StructuredLimits {
  factValueBytes: number;
  stateBytes: number;
  metadataBytes: number;
  toolPayloadBytes: number;
}

export const DEFAULT_STRUCTURED_LIMITS: StructuredLimits = {
  factValueBytes: 65_536,
  stateBytes: 1_048_576,
  metadataBytes: 65_536,
  toolPayloadBytes: 1_048_576,
};

const GUARDED = Symbol.for('mem.guarded');

function isGuarded(store: object): boolean {
  return (store as Record<symbol, unknown>)[GUARDED] === true;
}

function mark<T extends object>(guard: T): T {
  Object.defineProperty(guard, GUARDED, { value: true });
  return guard;
}

const space = (s: string): string => checkName(s, 'space');
const arg = <S extends z.ZodType>(schema: S, op: string, field: string, value: unknown): z.infer<S> =>
  (parseInput(z.object({ [field]: schema }).strict(), op, { [field]: value }) as Record<string, z.infer<S>>)[
    field
  ] as z.infer<S>;

const optionalTopic = nameSchema('topic').nullable().optional();
const prefix = (op: string, p: string): string => arg(sessionPrefixSchema, op, 'prefix', p);
const keepLastSchema = z.number().int('keepLast must be a whole number').min(0, 'keepLast must not be negative');
const versionSchema = z
  .number()
  .int('expectedVersion must be a whole number')
  .min(0, 'expectedVersion must not be negative')
  .optional();

function checkSize(value: JsonValue, limit: number, what: string): void {
  const bytes = jsonBytes(value);
  if (bytes > limit) {
    throw new MemError(
      'TOO_LARGE',
      `The ${what} is ${bytes} bytes of JSON, over the limit of ${limit}. Store less (or a reference to where the data lives).`,
    );
  }
}

export function guardMessageStore(store: MessageStore, limits: Partial<StructuredLimits> = {}): MessageStore {
  if (isGuarded(store)) return store;
  const lim = { ...DEFAULT_STRUCTURED_LIMITS, ...limits };
  return mark<MessageStore>({
    name: store.name,
    async save(sp: string, message: NewMessage): Promise<void> {
      const m = parseInput(newMessageSchema, 'message save', message) as NewMessage;
      checkSize(m.metadata, lim.metadataBytes, 'message metadata');
      checkSize(
        m.toolCalls.map((c) => c.arguments),
        lim.toolPayloadBytes,
        'tool call arguments',
      );
      return store.save(space(sp), m);
    },
    async recent(sp: string, sessionId: string, limit: number): Promise<StoredMessage[]> {
      return store.recent(
        space(sp),
        arg(refSchema, 'message recent', 'sessionId', sessionId),
        arg(limitSchema, 'message recent', 'limit', limit),
      );
    },
    async count(sp: string, sessionId: string): Promise<number> {
      return store.count(space(sp), arg(refSchema, 'message count', 'sessionId', sessionId));
    },
    async deleteBefore(sp: string, sessionId: string, keepLast: number): Promise<number> {
      return store.deleteBefore(
        space(sp),
        arg(refSchema, 'message delete-before', 'sessionId', sessionId),
        arg(keepLastSchema, 'message delete-before', 'keepLast', keepLast),
      );
    },
  });
}

/**
 * The fact rules in front of a FactStore: names, key, JSON value and size, and no secret in key or value
 * (`SECRET_DETECTED`, naming the kind and where, never the value).
 */
export function guardFactStore(
  store: FactStore,
  limits: Partial<StructuredLimits> = {},
  personalData?: PersonalDataSetting,
  secretScanner?: SecretScanner,
): FactStore {
  if (isGuarded(store)) return store;
  const lim = { ...DEFAULT_STRUCTURED_LIMITS, ...limits };
  const user = (op: string, u: string) => arg(nameSchema('user'), op, 'user', u);
  return mark<FactStore>({
    name: store.name,
    async upsert(sp: string, write: FactWrite): Promise<FactUpsertResult> {
      const w = parseInput(factWriteSchema, 'fact upsert', write) as FactWrite;
      checkSize(w.value, lim.factValueBytes, `value of fact "${w.key}"`);
      // Facts are refused rather than redacted under a redact policy: a redacted JSON value could change its shape.
      const policy = personalDataPolicy(personalData, sp) === 'allow' ? 'allow' : 'refuse';
      const fields = {
        'fact key': w.key,
        'fact user': w.user,
        'fact topic': w.topic,
        [`value of fact "${w.key}"`]: JSON.stringify(w.value, null, 1),
      };
      guardFields(fields, policy);
      await scanFields(secretScanner, fields);
      return store.upsert(space(sp), w);
    },
    async get(sp: string, u: string, topic?: string | null): Promise<Fact[]> {
      return store.get(space(sp), user('fact get', u), arg(optionalTopic, 'fact get', 'topic', topic));
    },
    async find(sp: string, u: string, key: string, topic: string | null): Promise<Fact | null> {
      return store.find(
        space(sp),
        user('fact find', u),
        arg(factKeySchema, 'fact find', 'key', key),
        arg(nameSchema('topic').nullable(), 'fact find', 'topic', topic),
      );
    },
    async delete(sp: string, u: string, key: string, topic: string | null): Promise<boolean> {
      return store.delete(
        space(sp),
        user('fact delete', u),
        arg(factKeySchema, 'fact delete', 'key', key),
        arg(nameSchema('topic').nullable(), 'fact delete', 'topic', topic),
      );
    },
    async deleteUser(sp: string, u: string): Promise<number> {
      return store.deleteUser(space(sp), user('fact delete-user', u));
    },
  });
}

export function guardGoalStore(
  store: GoalStore,
  limits: Partial<StructuredLimits> = {},
  personalData?: PersonalDataSetting,
  secretScanner?: SecretScanner,
): GoalStore {
  if (isGuarded(store)) return store;
  const lim = { ...DEFAULT_STRUCTURED_LIMITS, ...limits };
  const user = (op: string, u: string) => arg(nameSchema('user'), op, 'user', u);
  const topic = (op: string, t: string | null) => arg(nameSchema('topic').nullable(), op, 'topic', t);
  return mark<GoalStore>({
    name: store.name,
    async setActive(sp: string, goal: NewGoal): Promise<{ goal: Goal; replaced: Goal | null }> {
      const g = parseInput(newGoalSchema, 'goal set', goal) as NewGoal;
      checkSize(g.metadata, lim.metadataBytes, 'goal metadata');
      // A goal is read back into prompts like a fact: refused (never redacted) when it holds a secret.
      const fields = { goal: g.goal, 'goal user': g.user, 'goal topic': g.topic };
      guardFields(fields, personalDataPolicy(personalData, sp) === 'allow' ? 'allow' : 'refuse');
      await scanFields(secretScanner, fields);
      return store.setActive(space(sp), g);
    },
    async getActive(sp: string, u: string, t: string | null): Promise<Goal | null> {
      return store.getActive(space(sp), user('goal get', u), topic('goal get', t));
    },
    async finish(
      sp: string,
      u: string,
      t: string | null,
      status: 'completed' | 'abandoned',
      at: string,
    ): Promise<Goal | null> {
      const s = arg(z.enum(['completed', 'abandoned']), 'goal finish', 'status', status);
      return store.finish(
        space(sp),
        user('goal finish', u),
        topic('goal finish', t),
        s,
        arg(isoTimeSchema, 'goal finish', 'at', at),
      );
    },
    async list(sp: string, u: string, options: { topic?: string | null; limit?: number } = {}): Promise<Goal[]> {
      const o = parseInput(
        z.object({ topic: optionalTopic, limit: limitSchema.optional() }).strict(),
        'goal list',
        options,
      );
      const clean: { topic?: string | null; limit?: number } = {};
      if (o.topic !== undefined) clean.topic = o.topic;
      if (o.limit !== undefined) clean.limit = o.limit;
      return store.list(space(sp), user('goal list', u), clean);
    },
    async deleteUser(sp: string, u: string): Promise<number> {
      return store.deleteUser(space(sp), user('goal delete-user', u));
    },
  });
}

export function guardSummaryStore(
  store: SummaryStore,
  personalData?: PersonalDataSetting,
  secretScanner?: SecretScanner,
): SummaryStore {
  if (isGuarded(store)) return store;
  return mark<SummaryStore>({
    name: store.name,
    async save(sp: string, write: SummaryWrite, expectedVersion?: number): Promise<SessionSummary> {
      const w = parseInput(summaryWriteSchema, 'summary save', write) as SummaryWrite;
      const v = arg(versionSchema, 'summary save', 'expectedVersion', expectedVersion);
      const fields = { summary: w.summary };
      guardFields(fields, personalDataPolicy(personalData, sp) === 'allow' ? 'allow' : 'refuse');
      await scanFields(secretScanner, fields);
      return v === undefined ? store.save(space(sp), w) : store.save(space(sp), w, v);
    },
    async get(sp: string, sessionId: string): Promise<SessionSummary | null> {
      return store.get(space(sp), arg(refSchema, 'summary get', 'sessionId', sessionId));
    },
    async delete(sp: string, sessionId: string): Promise<boolean> {
      return store.delete(space(sp), arg(refSchema, 'summary delete', 'sessionId', sessionId));
    },
    async deleteSessions(sp: string, p: string): Promise<number> {
      return store.deleteSessions(space(sp), prefix('summary delete-sessions', p));
    },
  });
}

export function guardUserStore(store: UserStore): UserStore {
  if (isGuarded(store)) return store;
  const ext = (op: string, id: string) => arg(refSchema, op, 'externalId', id);
  return mark<UserStore>({
    name: store.name,
    async ensure(
      sp: string,
      externalId: string,
      candidate: { id: string; at: string },
    ): Promise<{ user: UserRecord; created: boolean }> {
      const c = parseInput(z.object({ id: refSchema, at: isoTimeSchema }).strict(), 'user ensure', candidate);
      return store.ensure(space(sp), ext('user ensure', externalId), c);
    },
    async get(sp: string, externalId: string): Promise<UserRecord | null> {
      return store.get(space(sp), ext('user get', externalId));
    },
    async getById(sp: string, id: string): Promise<UserRecord | null> {
      return store.getById(space(sp), arg(refSchema, 'user get', 'id', id));
    },
    async delete(sp: string, externalId: string): Promise<boolean> {
      return store.delete(space(sp), ext('user delete', externalId));
    },
  });
}

export function guardSessionStateStore(
  store: SessionStateStore,
  limits: Partial<StructuredLimits> = {},
): SessionStateStore {
  if (isGuarded(store)) return store;
  const lim = { ...DEFAULT_STRUCTURED_LIMITS, ...limits };
  const session = (op: string, id: string) => arg(refSchema, op, 'sessionId', id);
  return mark<SessionStateStore>({
    name: store.name,
    async get(sp: string, sessionId: string): Promise<SessionState | null> {
      return store.get(space(sp), session('state get', sessionId));
    },
    async set(sp: string, sessionId: string, state: JsonValue, at: string): Promise<void> {
      const value = arg(jsonValueSchema, 'state set', 'state', state);
      checkSize(value, lim.stateBytes, 'session state');
      return store.set(space(sp), session('state set', sessionId), value, arg(isoTimeSchema, 'state set', 'at', at));
    },
    async delete(sp: string, sessionId: string): Promise<boolean> {
      return store.delete(space(sp), session('state delete', sessionId));
    },
    async deleteSessions(sp: string, p: string): Promise<number> {
      return store.deleteSessions(space(sp), prefix('state delete-sessions', p));
    },
  });
}

export function guardPhaseStore(store: PhaseStore, limits: Partial<StructuredLimits> = {}): PhaseStore {
  if (isGuarded(store)) return store;
  const lim = { ...DEFAULT_STRUCTURED_LIMITS, ...limits };
  const session = (op: string, id: string) => arg(refSchema, op, 'sessionId', id);
  return mark<PhaseStore>({
    name: store.name,
    async set(sp: string, change: PhaseChange): Promise<void> {
      const c = parseInput(phaseChangeSchema, 'phase set', change) as PhaseChange;
      checkSize(c.metadata, lim.metadataBytes, 'phase metadata');
      return store.set(space(sp), c);
    },
    async current(sp: string, sessionId: string): Promise<PhaseChange | null> {
      return store.current(space(sp), session('phase current', sessionId));
    },
    async history(sp: string, sessionId: string, limit?: number): Promise<PhaseChange[]> {
      const l = arg(limitSchema.optional(), 'phase history', 'limit', limit);
      return l === undefined
        ? store.history(space(sp), session('phase history', sessionId))
        : store.history(space(sp), session('phase history', sessionId), l);
    },
    async deleteSessions(sp: string, p: string): Promise<number> {
      return store.deleteSessions(space(sp), prefix('phase delete-sessions', p));
    },
  });
}

export function guardToolEventStore(store: ToolEventStore, limits: Partial<StructuredLimits> = {}): ToolEventStore {
  if (isGuarded(store)) return store;
  const lim = { ...DEFAULT_STRUCTURED_LIMITS, ...limits };
  const filter = (op: string, f: ToolEventFilter): ToolEventFilter => {
    const parsed = parseInput(toolEventFilterSchema, op, f);
    const out: ToolEventFilter = {};
    for (const [key, value] of Object.entries(parsed))
      if (value !== undefined) (out as Record<string, unknown>)[key] = value;
    return out;
  };
  return mark<ToolEventStore>({
    name: store.name,
    async record(sp: string, event: ToolEvent): Promise<void> {
      const e = parseInput(toolEventSchema, 'tool event record', event) as ToolEvent;
      checkSize(e.input, lim.toolPayloadBytes, `input of tool event for "${e.tool}"`);
      checkSize(e.output, lim.toolPayloadBytes, `output of tool event for "${e.tool}"`);
      return store.record(space(sp), e);
    },
    async list(sp: string, f: ToolEventFilter, limit: number): Promise<ToolEvent[]> {
      return store.list(space(sp), filter('tool event list', f), arg(limitSchema, 'tool event list', 'limit', limit));
    },
    async count(sp: string, f: ToolEventFilter): Promise<number> {
      return store.count(space(sp), filter('tool event count', f));
    },
    async deleteSessions(sp: string, p: string): Promise<number> {
      return store.deleteSessions(space(sp), prefix('tool event delete-sessions', p));
    },
  });
}

/**
 * The stack's secret scanner in front of the episode and procedure stores: their services run mem's own rules when
 * they build a record; the scanner then sees every free-text field of it, once, before the insert.
 */
function scanOnInsert<S extends EpisodeStore | ProcedureStore>(
  store: S,
  secretScanner: SecretScanner,
  fields: (record: Parameters<S['insert']>[1]) => Record<string, string | null | readonly string[]>,
): S {
  const insert = async (sp: string, record: Parameters<S['insert']>[1], embedding: StoredEmbedding | null) => {
    await scanFields(secretScanner, fields(record));
    const write = store.insert as (sp: string, r: typeof record, e: StoredEmbedding | null) => Promise<void>;
    return write.call(store, sp, record, embedding);
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'insert') return insert;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Guard every structured port of a bundle that is present (episodes and procedures pass through: their services
 * validate; with a secret scanner, it is run on their inserts; the graph passes through: its service checks).
 */
export function guardStructuredStores(
  stores: Partial<StructuredStores>,
  limits: Partial<StructuredLimits> = {},
  personalData?: PersonalDataSetting,
  secretScanner?: SecretScanner,
): Partial<StructuredStores> {
  const out: Partial<StructuredStores> = {};
  if (stores.messages) out.messages = guardMessageStore(stores.messages, limits);
  if (stores.facts) out.facts = guardFactStore(stores.facts, limits, personalData, secretScanner);
  if (stores.goals) out.goals = guardGoalStore(stores.goals, limits, personalData, secretScanner);
  if (stores.summaries) out.summaries = guardSummaryStore(stores.summaries, personalData, secretScanner);
  if (stores.users) out.users = guardUserStore(stores.users);
  if (stores.sessionState) out.sessionState = guardSessionStateStore(stores.sessionState, limits);
  if (stores.phases) out.phases = guardPhaseStore(stores.phases, limits);
  if (stores.toolEvents) out.toolEvents = guardToolEventStore(stores.toolEvents, limits);
  if (stores.episodes)
    out.episodes = secretScanner
      ? scanOnInsert(stores.episodes, secretScanner, (e: Episode) => ({
          episode: e.summary,
          'episode key decision': e.keyDecisions,
          'episode tool name': e.toolsUsed,
          'episode session id': e.sessionId,
          'episode tag': e.tags,
          'episode metadata': JSON.stringify(e.metadata, null, 1),
        }))
      : stores.episodes;
  if (stores.procedures)
    out.procedures = secretScanner
      ? scanOnInsert(stores.procedures, secretScanner, (p: Procedure) => ({
          'procedure name': p.name,
          procedure: `${p.description}\n${p.trigger}`,
          'procedure steps': JSON.stringify(p.steps, null, 1),
          'procedure tag': p.tags,
          'procedure metadata': JSON.stringify(p.metadata, null, 1),
        }))
      : stores.procedures;
  // The graph service checks every input and runs the scanners before it writes.
  if (stores.graph) out.graph = stores.graph;
  return out;
}
