export * from './candidates.js';
export * from './crash/index.js';
export { type CrashCase, describeCrashCampaigns } from './crash-suite.js';
export { describeEmbedder, type EmbedderFactory, type EmbedderFixture } from './embedder.js';
export { type ChatRequest, type Send, startFakeChatServer } from './fake-chat-server.js';
export { modeOf, notPrivate, withUmask } from './file-modes.js';
export { authoredEpisode, describeForget, type ForgetFactory, type ForgetFixture } from './forget.js';
export { describeKnowledgeStore, type KnowledgeStoreFactory, type KnowledgeStoreFixture } from './knowledge/index.js';
export { describeKnowledgeCounterRaces } from './knowledge-races.js';
export { locomoTurns } from './locomo.js';
export { memoryRecord } from './memory-record.js';
export { describeNotebookStore, type NotebookStoreFactory, type NotebookStoreFixture } from './notebook.js';
export * from './port-calls.js';
export * from './port-fixture.js';
export * from './processes.js';
export { describeReranker } from './reranker.js';
export {
  DRESSED_EXAMPLES,
  HOSTILE_UNITS,
  renderSecretExamples,
  SECRET_EXAMPLES,
  type SecretExamples,
} from './secret-examples.js';
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
