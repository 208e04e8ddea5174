export * from './clock.js';
export * from './embedder.js';
export * from './knowledge-store.js';
