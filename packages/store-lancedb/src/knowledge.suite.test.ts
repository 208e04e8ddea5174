import {
  describeKnowledgeCounterRaces,
  describeKnowledgeStore,
  type KnowledgeStoreFactory,
  tempFixture,
} from '@mem/testkit';
import { createLanceStore } from './index.js';

const factory: KnowledgeStoreFactory = async () =>
  tempFixture('lancedb-suite', (dir) => createLanceStore({ uri: dir }));

describeKnowledgeStore('lancedb', factory, { timeoutMs: 180_000 });
// Two connections on one folder: a rating or a read landing while an edit is under way must survive the edit.
describeKnowledgeCounterRaces('lancedb', factory);
