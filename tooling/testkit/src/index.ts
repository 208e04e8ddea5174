/**
 * `@mem/testkit`: the conformance suites of mem's ports, for anyone writing an adapter. Each `describe*` suite takes a
 * factory of fresh instances and registers vitest tests. Only what an adapter's test file needs is here; the
 * repository's own helpers (crash campaigns, child processes, a fake chat server, datasets) are in `./internal.ts`.
 * Nothing here starts a process or opens a socket.
 */
export { describeEpisodeStore, describeProcedureStore } from './candidates.js';
export { describeEmbedder, type EmbedderFactory, type EmbedderFixture } from './embedder.js';
export { RESOLUTION_PAIRS, type ResolutionPair, type ResolutionScore, scoreResolution } from './entity-resolution.js';
export { authoredEpisode, describeForget, type ForgetFactory, type ForgetFixture } from './forget.js';
export {
  describeGraphStore,
  entity as graphEntity,
  observation as graphObservation,
  relation as graphRelation,
} from './graph.js';
export {
  describeKnowledgeStore,
  type KnowledgeStoreFactory,
  type KnowledgeStoreFixture,
  type KnowledgeStoreSuiteOptions,
} from './knowledge/index.js';
export { describeKnowledgeCounterRaces } from './knowledge-races.js';
export { formationEntry, memoryRecord } from './memory-record.js';
export { describeNotebookStore, type NotebookStoreFactory, type NotebookStoreFixture } from './notebook.js';
export { recordPortCalls } from './port-calls.js';
export {
  at,
  expectMemError,
  type PortFactory,
  type PortFixture,
  type PortSuiteOptions,
  withFixture,
} from './port-fixture.js';
export { describeReranker } from './reranker.js';
export { keywordHits, neighbourRows, vectorHits } from './search-arms.js';
export { describeSecretScanner, fakeChars, fakeCredentials, type SecretScannerFixture } from './secret-scanner.js';
export { describeStoreBundle, type StoreBundleFactory, type StoreBundleFixture } from './store-bundle.js';
export * from './structured/index.js';
export { readTreeText, tempDir, tempFixture } from './temp-dir.js';
export { tokenEmbedder, wordTokens } from './token-embedder.js';
export {
  describeTranscriptStore,
  type TranscriptStoreFactory,
  type TranscriptStoreFixture,
  type TranscriptStoreTestOptions,
} from './transcript/index.js';
