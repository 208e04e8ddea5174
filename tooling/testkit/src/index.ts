export { describeKnowledgeStore, type KnowledgeStoreFactory, type KnowledgeStoreFixture } from './knowledge.js';
export * from './port-fixture.js';
export * from './structured.js';
export * from './candidates.js';
