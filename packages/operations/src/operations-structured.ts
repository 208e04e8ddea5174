/**
 * Structured, episodic and procedural memory (docs/structured.md) over HTTP and MCP: facts about users, episodes (what
 * happened) and procedures (what worked), plus consolidation of episodes into facts. They behave like
 * `mem facts|episodes|procedures|consolidate` (apps/cli/src/commands-structured.ts): facts set defaults to source
 * `user`, times come from the stack's clock, and the space always comes from the principal. A stack without the
 * port (e.g. LanceDB has no facts) answers CAPABILITY_MISSING (501) naming the stores that provide it.
 */
import type { Operation } from './operation.js';
import { consolidate, forgetOperation } from './operations-consolidation.js';
import { episodeByTag, episodeRecall, episodeRecent, episodeStore } from './operations-episodes.js';
import { factDelete, factGet, factSet } from './operations-facts.js';
import { procedureGet, procedureOutcome, procedureStore, procedureSuggest } from './operations-procedures.js';

export const structuredOperations: Operation[] = [
  factSet,
  factGet,
  factDelete,
  episodeStore,
  episodeRecall,
  episodeRecent,
  episodeByTag,
  procedureStore,
  procedureSuggest,
  procedureOutcome,
  procedureGet,
  consolidate,
  forgetOperation,
];
