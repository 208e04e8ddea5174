/**
 * `@mem/core/adapter`: what an adapter author implements and needs. The port interfaces of every store, embedder,
 * summariser and capability, and the shared rules adapters apply (validation, search text, vector maths, the
 * transcript format, archive names). Application-level names (records, services, `createStack`) are in `@mem/core`.
 * Every name here is listed in README.md.
 */

export { bundleCapabilities, checkCapabilities, STRUCTURED_PORTS, storeBundle } from './adapter-kit/bundle.js';
export { contentText, sameJson } from './adapter-kit/content.js';
export { inOrder, keyTakenByStore, parseTags } from './adapter-kit/rows.js';
export {
  type CandidateArms,
  type KnowledgeRoles,
  knowledgeStoreOf,
  searchCandidatesWith,
} from './adapter-kit/search.js';
export {
  type SessionSetupNames,
  type SessionSetupOptions,
  sessionSetup,
  TranscriptSession,
} from './adapter-kit/sessions.js';
export { clampSimilarity } from './adapter-kit/similarity.js';
export {
  type SqlCandidateEngine,
  type SqlCandidateTable,
  type SqlEpisodeEngine,
  sqlEpisodeStore,
  sqlProcedureStore,
} from './adapter-kit/sql/candidates.js';
export { sqlConflicts } from './adapter-kit/sql/conflicts.js';
export {
  type SqlDialect,
  type SqlErrorMap,
  type SqlField,
  type SqlRunner,
  type SqlType,
  selectList,
  sqlRowCount,
} from './adapter-kit/sql/dialect.js';
export { sqlGraphStore } from './adapter-kit/sql/graph.js';
export { type SqlNotebookEngine, type SqlNotebookStore, sqlNotebookStore } from './adapter-kit/sql/notebooks.js';
export {
  type AsyncSqlExecutor,
  runSqlPausingProgram,
  runSqlPausingProgramAsync,
  runSqlProgram,
  runSqlProgramAsync,
  type SqlExecutor,
  type SqlPause,
  type SqlPausingProgram,
  type SqlProgram,
  type SqlStatement,
  type SqlValue,
  sqlAll,
  sqlGet,
  sqlPause,
  sqlRun,
} from './adapter-kit/sql/program.js';
export { SQL_RECORDS, type SqlRecord, type SqlRow } from './adapter-kit/sql/records.js';
export {
  type SqlDeleteSessions,
  sqlPhaseStore,
  sqlSessionStateStore,
  sqlSummaryStore,
  sqlToolEventStore,
  sqlUserStore,
} from './adapter-kit/sql/sessions.js';
export {
  SQL_COMPACTION_STEPS,
  type SqlTranscriptEngine,
  type SqlTranscriptParts,
  sqlTranscriptParts,
  storedTranscriptMessages,
} from './adapter-kit/sql/transcripts.js';
export { type SqlScopeLock, sqlFactStore, sqlGoalStore, sqlMessageStore } from './adapter-kit/sql/user-data.js';
export {
  checkCompactionChange,
  checkTranscriptMessages,
  compactionArchiveTime,
  guardTranscriptStore,
} from './adapter-kit/transcripts.js';
export type { ExtractiveSummarizerOptions } from './adapters/extractive-summarizer.js';
export { InMemoryGraphStore } from './adapters/in-memory-graph.js';
export type { TemplateSummarizerOptions } from './adapters/template-summarizer.js';
export { archiveId, compareArchiveIds, invalidArchiveId, parseArchiveId } from './domain/archive-names.js';
export { calibrationTexts } from './domain/calibration.js';
export { checkCompactionBasis } from './domain/compaction.js';
export {
  checkFactKey,
  FACT_KEY_PATTERN,
  factKeyProblem,
  factKeySegment,
  factKeyWords,
  factPriority,
  MAX_FACT_SEGMENT,
  mergeFacts,
} from './domain/facts.js';
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './domain/file-modes.js';
export { matchesFilter } from './domain/filter.js';
export {
  decideFormation,
  type FormationCandidate,
  type FormationDecision,
  type FormationFact,
  type FormedMemory,
  normalValue,
  sameValue,
} from './domain/formation.js';
export {
  checkedEntityKey,
  entityKey,
  entitySearchText,
  graphHolds,
  graphVisible,
  type MemoryServerEntity,
  type MemoryServerGraph,
  type MemoryServerRelation,
  observationHolds,
  onlyOn,
  parseMemoryJsonl,
  toMemoryJsonl,
} from './domain/graph.js';
export {
  type ClaimForGraph,
  type ClaimGraph,
  claimEntityNames,
  claimGraph,
  type EdgeRule,
  edgeOf,
  type GraphEdge,
  subjectEntityName,
} from './domain/graph-formation.js';
export { candidatePrefixes, type SimilarKind, similarKeys, withinOneEdit } from './domain/graph-similar.js';
export { chunkId, contentHash, newId } from './domain/ids.js';
export { compactJson, itemText, toolCallText, toolResultText } from './domain/item-text.js';
export { canonicalJson, jsonEqual } from './domain/json.js';
export { memoByKey } from './domain/memo.js';
export { checkNotebookPath, checkNotebookScope, notebookVersion, utf8Bytes } from './domain/notebook.js';
export {
  DEFAULT_PROCEDURE_RANKING,
  type ProcedureCandidate,
  type ProcedureRankingOptions,
  type RankedProcedure,
  rankProcedures,
} from './domain/procedure-ranking.js';
export { seededRandom } from './domain/random.js';
export { cosine, type KeywordLengthNorm } from './domain/ranking.js';
export { type SaidTime, type SaidTimeOptions, type SaidTimeUnit, saidTimes } from './domain/said-time.js';
export { episodeSearchText, procedureSearchText } from './domain/search-text.js';
export { assertNoSecrets, findSecrets, redactSecrets, type SecretFinding } from './domain/secrets.js';
export { firstPersonStatements, type Statement, type StatementKind } from './domain/statements/index.js';
export { queryTerms } from './domain/text.js';
export { MONTH_NAMES } from './domain/time-cue.js';
export {
  appendRepair,
  checkTranscriptHeader,
  checkTranscriptMessage,
  checkTranscriptRef,
  isEmptyContent,
  isTornBlock,
  type ParsedTranscript,
  parseTranscript,
  renderMessageLine,
  renderTranscript,
  renderTranscriptBlock,
  usesCrlf,
} from './domain/transcript-format.js';
export { MemError, type MemErrorOptions, wrapStoreError } from './errors.js';
export { type Clock, ManualClock, systemClock } from './ports/clock.js';
export type { Embedder, EmbeddingResult } from './ports/embedder.js';
export type {
  EntityCandidate,
  EntityResolution,
  EntityResolutionInput,
  EntityResolver,
} from './ports/entity-resolver.js';
export type { CandidateStoreCapabilities, EpisodeStore } from './ports/episode-store.js';
export type {
  EpisodeRecall,
  EpisodeRecallReport,
  EpisodeStoreReport,
  EpisodicMemory,
} from './ports/episodic-memory.js';
export type { Erasable, Eraser } from './ports/eraser.js';
export type {
  EpisodeCluster,
  ExtractedFact,
  FactExtraction,
  FactExtractionInput,
  FactExtractor,
} from './ports/fact-extractor.js';
export type { FactStore } from './ports/fact-store.js';
export type { GoalStore } from './ports/goal-store.js';
export type {
  ByIds,
  EntityQuery,
  GraphDeleted,
  GraphStore,
  GraphView,
  GraphWrite,
  RelationQuery,
} from './ports/graph-store.js';
export type {
  CandidateQuery,
  CandidateSet,
  DeletedByAgent,
  DocumentClose,
  FormationDecisionName,
  FormationEntry,
  FormationWrite,
  FoundCandidates,
  HashLookup,
  KeywordHit,
  KnowledgeAdmin,
  KnowledgeCounters,
  KnowledgeReader,
  KnowledgeSearcher,
  KnowledgeStats,
  KnowledgeStore,
  KnowledgeStoreCapabilities,
  KnowledgeWriter,
  NeighbourRequest,
  ScanOptions,
  SearchFilter,
  VectorHit,
} from './ports/knowledge-store.js';
export { type Logger, silentLogger } from './ports/logger.js';
export type { MessageStore } from './ports/message-store.js';
export type { NotebookEntry, NotebookFile, NotebookStore, NotebookStoreCapabilities } from './ports/notebook-store.js';
export type { PhaseStore } from './ports/phase-store.js';
export type {
  ProceduralMemory,
  ProcedureStoreReport,
  ProcedureSuggestion,
  ProcedureSuggestReport,
} from './ports/procedural-memory.js';
export type { ProcedureStore } from './ports/procedure-store.js';
export type { QueryRewriter, RewriteInput, RewriteResult } from './ports/query-rewriter.js';
export type { Reranker, RerankInput, RerankResult } from './ports/reranker.js';
export type { SecretScanFinding, SecretScanner, SecretScanText } from './ports/secret-scanner.js';
export type { SessionStateStore } from './ports/session-state-store.js';
export type {
  ConsolidatedFact,
  ConsolidatedFactStatus,
  Consolidation,
  ConsolidationReport,
  ServicePlugin,
  ServicePorts,
} from './ports/stack-services.js';
export type {
  DistillMessage,
  ExtractionFailure,
  ProposedEntity,
  ProposedMemory,
  ProposedRelation,
  RelatedMemory,
  StatementExtraction,
  StatementExtractionInput,
  StatementExtractor,
} from './ports/statement-extractor.js';
export type { StoreBundle, StoreBundleCapabilities, StructuredPort } from './ports/store-bundle.js';
export type { StructuredStores } from './ports/structured-stores.js';
export {
  NO_USAGE,
  openAIUsage,
  type SummarizeInput,
  type Summarizer,
  type SummaryResult,
  sumUsage,
  type TokenUsage,
} from './ports/summarizer.js';
export type { SummaryStore } from './ports/summary-store.js';
export type { Tokenizer } from './ports/tokenizer.js';
export type { ToolEventStore } from './ports/tool-event-store.js';
export type {
  ArchiveInfo,
  CompactionChange,
  CompactionResult,
  CompactionStepHook,
  LockedTranscript,
  Transcript,
  TranscriptHeader,
  TranscriptStore,
  TranscriptStoreCapabilities,
} from './ports/transcript-store.js';
export type { UserStore } from './ports/user-store.js';
export { distillReviewDecisionInput, distillReviewInput } from './schemas-formation.js';
export {
  addObservationsInput,
  createEntitiesInput,
  createRelationsInput,
  deleteEntitiesInput,
  deleteObservationsInput,
  deleteRelationsInput,
  graphEntityInput,
  graphHistoryInput,
  graphMergeInput,
  graphNeighboursInput,
  graphRelationInput,
  graphUnmergeInput,
  openNodesInput,
  readGraphInput,
  searchNodesInput,
} from './schemas-graph.js';
export {
  type CandidateCommon,
  CandidateMemory,
  type CandidateMemoryDeps,
  type CandidateRecordStore,
  type CandidateSearcher,
  type CandidateSearchOptions,
  type CandidateSearchResult,
  type CandidateSearchStore,
  type CandidateStoreReport,
  type CandidateWrite,
  candidateSearcher,
  DEFAULT_CANDIDATE_SEARCH,
  embedText,
  searchCandidates,
} from './services/candidate-search.js';
export {
  approveReview,
  listReview,
  MAX_REVIEW_ITEMS,
  type ReviewDecision,
  type ReviewItem,
  rejectReview,
} from './services/distill-review.js';
export { forgetFormedByEvidence, formedBatches, transcriptEvidenceIds } from './services/forget-evidence.js';
export { type FormationStats, formationStats } from './services/formation-stats.js';
export {
  type GraphContext,
  type GraphReadOptions,
  GraphService,
  type GraphWriteOptions,
  type ResolutionMode,
  type ResolutionStep,
} from './services/graph/index.js';
export { linkedQuery, nameRuns } from './services/graph/recall.js';
export type { GraphImportCounts, GraphImportPlan } from './services/graph/transfer.js';
export { GRAPH_LINE_TYPES, type GraphLine, type GraphLineType } from './services/graph/transfer-lines.js';
export type { ExtractorMeta, PendingProposal } from './services/knowledge/formation.js';
export { distillMessageId } from './services/knowledge/formation.js';
export { createOfflineStatementExtractor, OFFLINE_EXTRACTOR_VERSION } from './services/offline-extractor.js';
export { BackgroundDistiller, DEFAULT_DISTILL_TOKENS } from './services/runner/distiller.js';
export type {
  DistillationCounts,
  DistillationRun,
  DistillationStatus,
  DistillationTotals,
  DistillationTrigger,
  LoopOptions,
} from './services/runner/types.js';
export {
  guardFactStore,
  guardGoalStore,
  guardMessageStore,
  guardPhaseStore,
  guardSessionStateStore,
  guardSummaryStore,
  guardToolEventStore,
  guardUserStore,
  type StructuredLimits,
} from './services/structured-guards.js';
export { exportJsonLines, importJsonLines, type TransferReport } from './services/transfer.js';
export { missingPort } from './stack.js';
export {
  type EmbeddingInfo,
  type MemoryClaim,
  type MemoryRecord,
  type MemoryValidity,
  OPEN_VALIDITY,
  type Rating,
  type RatingOutcome,
} from './types.js';
export type {
  EntityRecord,
  GraphDecision,
  GraphLogEntry,
  GraphOwner,
  GraphTimes,
  ObservationRecord,
  RelationRecord,
} from './types-graph.js';
export type {
  FactUpsertResult,
  FactWrite,
  NewGoal,
  NewMessage,
  StoredEmbedding,
  SummaryWrite,
} from './types-structured.js';
