export * from './procedural-memory.js';
