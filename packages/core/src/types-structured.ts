/**
 * Record types of the structured stores (docs/structured.md) and of episodic / procedural memory (docs/structured.md).
 * Every record lives in a space; the space is a method argument of every port, so it is not repeated in
 * the records the ports hand back unless a caller needs it.
 */

/** Any value JSON can carry. Values of facts, session state, metadata and tool input/output are JSON. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

// ---------- messages ----------

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';
export const MESSAGE_ROLES: readonly MessageRole[] = ['system', 'user', 'assistant', 'tool'];

/** A tool call requested by an assistant message. */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as JSON (already parsed). */
  arguments: JsonValue;
}

/** A message to save. `id` and `createdAt` are set by the caller (the core), never by the adapter. */
export interface NewMessage {
  id: string;
  sessionId: string;
  role: MessageRole;
  content: string;
  toolCalls: ToolCall[];
  /** The tool name of a `tool` message, or a participant name. */
  name: string | null;
  metadata: JsonObject;
  createdAt: string;
}

/** A stored message. Messages of a session are ordered by insertion (the order `save` calls committed). */
export type StoredMessage = NewMessage;

// ---------- facts ----------

/** Where a fact came from. Priority: user > ai_inferred > mcp > other (see domain/facts.ts). */
export type FactSource = 'user' | 'ai_inferred' | 'mcp' | 'other';
export const FACT_SOURCES: readonly FactSource[] = ['user', 'ai_inferred', 'mcp', 'other'];

/** A fact about a user: global (`topic` null) or tied to a topic. */
export interface Fact {
  user: string;
  topic: string | null;
  key: string;
  value: JsonValue;
  source: FactSource;
  createdAt: string;
  updatedAt: string;
}

export interface FactWrite {
  user: string;
  topic: string | null;
  key: string;
  value: JsonValue;
  source: FactSource;
  /** ISO time of the write. */
  at: string;
}

export interface FactUpsertResult {
  /** `kept`: a fact of higher priority holds the key, nothing was written. */
  status: 'created' | 'updated' | 'kept';
  /** The fact as stored after the call (the winner). */
  fact: Fact;
}

// ---------- goals ----------

export type GoalStatus = 'active' | 'completed' | 'abandoned' | 'replaced';
export const GOAL_STATUSES: readonly GoalStatus[] = ['active', 'completed', 'abandoned', 'replaced'];

/** A goal of a user, global (`topic` null) or per topic. At most one goal per (user, topic) is active. */
export interface Goal {
  id: string;
  user: string;
  topic: string | null;
  goal: string;
  status: GoalStatus;
  metadata: JsonObject;
  createdAt: string;
  updatedAt: string;
}

export interface NewGoal {
  id: string;
  user: string;
  topic: string | null;
  goal: string;
  metadata: JsonObject;
  at: string;
}

// ---------- summaries ----------

/** The running summary of a session. `version` starts at 1 and grows by one on every save. */
export interface SessionSummary {
  sessionId: string;
  summary: string;
  /** How many messages of the session the summary covers. */
  messagesCovered: number;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface SummaryWrite {
  sessionId: string;
  summary: string;
  messagesCovered: number;
  at: string;
}

// ---------- users ----------

/** An external user id (from a chat platform, an auth system…) mapped to a stable internal id. */
export interface UserRecord {
  id: string;
  externalId: string;
  createdAt: string;
}

// ---------- session state ----------

export interface SessionState {
  sessionId: string;
  state: JsonValue;
  updatedAt: string;
}

// ---------- phases ----------

/** One phase change of a session; the current phase is the newest change. */
export interface PhaseChange {
  sessionId: string;
  phase: string;
  metadata: JsonObject;
  at: string;
}

// ---------- tool events ----------

export interface ToolEvent {
  id: string;
  sessionId: string | null;
  tool: string;
  input: JsonValue;
  output: JsonValue;
  latencyMs: number;
  /** The error message when the call failed, else null. */
  error: string | null;
  at: string;
}

export interface ToolEventFilter {
  sessionId?: string;
  tool?: string;
  /** Only events with `at >= since` (ISO). */
  since?: string;
  /** Only events with `at < until` (ISO). */
  until?: string;
  /** Only failed (`true`) or only successful (`false`) calls. */
  failed?: boolean;
}

// ---------- episodes (docs/structured.md) ----------

export type EpisodeOutcome = 'success' | 'failure' | 'partial' | 'unknown';
export const EPISODE_OUTCOMES: readonly EpisodeOutcome[] = ['success', 'failure', 'partial', 'unknown'];

/** What happened in one task or session. */
export interface Episode {
  id: string;
  summary: string;
  keyDecisions: string[];
  toolsUsed: string[];
  outcome: EpisodeOutcome;
  sessionId: string | null;
  /** ISO time the episode happened. */
  timestamp: string;
  tags: string[];
  metadata: JsonObject;
}

/** A vector stored next to an episode or a procedure, with the id of the embedder that made it. */
export interface StoredEmbedding {
  vector: Float32Array;
  model: string;
}

// ---------- procedures (docs/structured.md) ----------

export interface ProcedureStep {
  toolName: string;
  /** Arguments to pass, with placeholders the agent fills (e.g. `{"env": "{{env}}"}`). */
  argsTemplate: JsonObject;
  expectedOutcome: string;
}

/** What worked: a named sequence of tool steps with its track record. */
export interface Procedure {
  id: string;
  name: string;
  description: string;
  /** When to use it (a situation or request the procedure answers). */
  trigger: string;
  steps: ProcedureStep[];
  successCount: number;
  failureCount: number;
  tags: string[];
  metadata: JsonObject;
  createdAt: string;
  updatedAt: string;
}
