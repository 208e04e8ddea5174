export {
  ADAPTER,
  createLanceStore,
  type LanceIndexState,
  type LanceKnowledgeStore,
  type LanceOptimizeReport,
  type LanceStoreOptions,
  type VectorIndexType,
} from './knowledge-store.js';
export { FileLock, type FileLockOptions } from './lock.js';
export { filterPredicate, matchText, sqlString } from './sql.js';
