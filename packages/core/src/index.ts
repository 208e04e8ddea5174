/**
 * `@mem/core`: what an application uses. Assemble a stack with `createStack`, then call its services. Port
 * interfaces and the helpers adapter authors need are in `@mem/core/adapter`. Every name here is listed in README.md.
 */

export { createExtractiveSummarizer } from './adapters/extractive-summarizer.js';
export { createGptTokenizer, type GptEncoding } from './adapters/gpt-tokenizer.js';
export { createHashingEmbedder } from './adapters/hashing-embedder.js';
export { createInMemoryKnowledgeStore } from './adapters/in-memory-knowledge.js';
export { createInMemoryNotebookData, createInMemoryNotebookStore } from './adapters/in-memory-notebook.js';
export { createInMemoryStructuredStores } from './adapters/in-memory-structured-stores.js';
export { createInMemoryTranscriptData, createInMemoryTranscriptStore } from './adapters/in-memory-transcript.js';
export { createTemplateSummarizer } from './adapters/template-summarizer.js';
export {
  agentSessionId,
  agentSessionPrefix,
  contextSettingsSessionId,
  openTasksSessionId,
} from './domain/agent-sessions.js';
export { checkKey, pathWeight } from './domain/keys.js';
export { checkName } from './domain/names.js';
export { leadOnly, type Permission, permissions } from './domain/permissions.js';
export type { SessionContextOptions } from './domain/ranking.js';
export type { PersonalDataPolicy, PersonalDataSetting } from './domain/secrets.js';
export type { TimeCueOptions } from './domain/time-cue.js';
export { MemError, type MemErrorCode } from './errors.js';
export type { NotebookScope } from './ports/notebook-store.js';
export type { TranscriptMessage, TranscriptRole, TurnMessage } from './ports/transcript-store.js';
export {
  type RecalledMemoryJson,
  recalledMemoryJson,
  type SearchResultJson,
  type SmartRecallResultJson,
  searchResultJson,
  smartRecallResultJson,
  toRecalledJson,
  toSearchJson,
  toSmartRecallJson,
} from './results.js';
export {
  dedupCheckInput,
  injectLearningInput,
  memoryEditInput,
  memoryIndexInput,
  memoryRateInput,
  memoryRefInput,
  memorySearchInput,
  memoryStoreInput,
  parseInput,
  scopeSchema,
  smartRecallInput,
  sourceSchema,
  tagSchema,
  taskContextInput,
} from './schemas.js';
export { forgetInput, gcInput } from './schemas-forget.js';
export { distillInput } from './schemas-formation.js';
export {
  contextSettingsInput,
  conversationAddInput,
  conversationCompactInput,
  deleteMemoryInput,
  listMemoryInput,
  readMemoryInput,
  searchMemoryInput,
  writeMemoryInput,
} from './schemas-notebook.js';
export {
  type EpisodeInput,
  episodeInput,
  episodeOutcomeSchema,
  episodeRecallInput,
  factGetInput,
  factKeySchema,
  factSetInput,
  factSourceSchema,
  goalFinishInput,
  goalGetInput,
  goalListInput,
  goalSetInput,
  jsonObjectSchema,
  jsonValueSchema,
  nameSchema,
  type ProcedureInput,
  phaseHistoryInput,
  phaseSetInput,
  procedureInput,
  procedureOutcomeInput,
  procedureSuggestInput,
  refSchema,
  sessionRefInput,
  sessionStateSetInput,
  summarySaveInput,
  toolEventListInput,
  toolEventRecordInput,
} from './schemas-structured.js';
export { Conversation } from './services/conversation/conversation.js';
export type {
  AssembledContext,
  CompressionOutcome,
  ContextInput,
  ContextSettings,
  ConversationOptions,
} from './services/conversation/options.js';
export { ConversationService } from './services/conversation/service.js';
export {
  type ForgetOptions,
  type ForgetReport,
  type ForgetSessionsRemoved,
  type ForgetSubject,
  forget,
  withEpisodeAuthor,
} from './services/forget.js';
export { type GcOptions, type GcReport, gc } from './services/gc.js';

export {
  DEFAULT_KNOWLEDGE_OPTIONS,
  type DedupResult,
  type EditResult,
  type ExportRecord,
  type ImportLineError,
  type ImportRecord,
  type ImportReport,
  type KnowledgeOptions,
  KnowledgeService,
  type MemoryDocument,
  type RateResult,
  type RecallBlock,
  type RecalledMemory,
  type SearchResult,
  type SmartRecallResult,
  type StoreOverrides,
  type StoreResult,
} from './services/knowledge/index.js';
export {
  Notebook,
  type NotebookListResult,
  type NotebookOptions,
  type NotebookOwner,
  type NotebookSearchHit,
  type ReadMemoryResult,
  type WriteMemoryResult,
} from './services/notebook.js';
export {
  runnerEndSessionInput,
  runnerEndTaskInput,
  runnerRecordInput,
  runnerTurnInput,
} from './services/runner/inputs.js';
export { Runner } from './services/runner/runner.js';
export {
  type AssembledTurn,
  type ContextReport,
  type EndSessionInput,
  type EndSessionResult,
  type EndTaskInput,
  type EndTaskResult,
  type ModelContextDefaults,
  modelContextDefaults,
  type RecordInput,
  type ResolvedRunnerOptions,
  type RunnerOptions,
  type SpentTokens,
  type TurnInput,
} from './services/runner/types.js';
export {
  createStack,
  type Stack,
  type StackCapabilities,
  type StackOptions,
  type StackPort,
} from './stack.js';
export type { MemoryVersion, Principal, Role, Scope, Source } from './types.js';
export type {
  Episode,
  EpisodeOutcome,
  Fact,
  FactSource,
  Goal,
  GoalStatus,
  JsonObject,
  JsonValue,
  MessageRole,
  PhaseChange,
  Procedure,
  ProcedureStep,
  SessionState,
  SessionSummary,
  StoredMessage,
  ToolCall,
  ToolEvent,
  ToolEventFilter,
  UserRecord,
} from './types-structured.js';
