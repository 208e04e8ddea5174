export * from './consolidation.js';
export * from './episodic-memory.js';
export * from './keyword-extractor.js';
export * from './services.js';
