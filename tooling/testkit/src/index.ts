export * from './candidates.js';
export { describeKnowledgeStore, type KnowledgeStoreFactory, type KnowledgeStoreFixture } from './knowledge.js';
export { describeNotebookStore, type NotebookStoreFactory, type NotebookStoreFixture } from './notebook.js';
export * from './port-fixture.js';
export * from './structured.js';
export {
  describeTranscriptStore,
  type TranscriptStoreFactory,
  type TranscriptStoreFixture,
  type TranscriptStoreTestOptions,
} from './transcript.js';
