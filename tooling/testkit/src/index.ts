export { describeKnowledgeStore, type KnowledgeStoreFactory, type KnowledgeStoreFixture } from './knowledge.js';
export * from './port-fixture.js';
export * from './structured.js';
export * from './candidates.js';
export {
  describeTranscriptStore,
  type TranscriptStoreFactory,
  type TranscriptStoreFixture,
  type TranscriptStoreTestOptions,
} from './transcript.js';
export { describeNotebookStore, type NotebookStoreFactory, type NotebookStoreFixture } from './notebook.js';
