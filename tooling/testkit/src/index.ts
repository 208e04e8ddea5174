export { describeKnowledgeStore, type KnowledgeStoreFactory, type KnowledgeStoreFixture } from './knowledge.js';
