export {
  createLanceEpisodeStore,
  createLanceProcedureStore,
  type LanceCandidateStoreExtras,
  type LanceEpisodeStore,
  type LanceProcedureStore,
} from './candidate-stores.js';
export { ADAPTER } from './database.js';
export { createLanceGraphStore, type LanceGraphStore } from './graph-store.js';
export { createLanceStore, type LanceKnowledgeStore } from './knowledge-store.js';
export { FileLock, type FileLockOptions } from './lock.js';
export type {
  LanceIndexState,
  LanceOptimizeReport,
  LanceStoreOptions,
  LanceTableNames,
  VectorIndexType,
} from './options.js';
export { filterPredicate, matchText, sqlString } from './sql.js';
export { createLanceStores, type LanceStores } from './stores.js';
