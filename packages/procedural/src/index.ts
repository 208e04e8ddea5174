export * from './procedural-memory.js';
export * from './services.js';
