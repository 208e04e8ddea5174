/**
 * Which operations a server offers: knowledge memory and the structured group (facts, episodes, procedures)
 * always; the notebook, conversation and graph groups when the stack has their services.
 */
import type { Stack } from '@mem/core';
import type { Operation } from './operation.js';
import { conversationOperations } from './operations-conversation.js';
import { formationOperations } from './operations-formation.js';
import { graphOperations } from './operations-graph.js';
import { knowledgeOperations } from './operations-knowledge.js';
import { notebookOperations } from './operations-notebook.js';
import { reviewOperations } from './operations-review.js';
import { runnerOperations } from './operations-runner.js';
import { stateOperations } from './operations-state.js';
import { structuredOperations } from './operations-structured.js';

/** The operations a stack offers: each group whose services the stack has. */
export function defaultOperations(stack: Stack): Operation[] {
  return [
    ...knowledgeOperations,
    ...formationOperations,
    ...reviewOperations,
    // Always listed: on a stack without a port (e.g. LanceDB has no facts) they answer 501 CAPABILITY_MISSING.
    ...structuredOperations,
    ...stateOperations,
    ...(stack.notebook ? notebookOperations : []),
    ...(stack.conversations ? conversationOperations : []),
    ...(stack.conversations ? runnerOperations : []),
    ...(stack.graph ? graphOperations : []),
  ];
}
