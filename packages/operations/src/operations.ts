/**
 * Which operations a server offers: knowledge memory and the structured group (facts, episodes, procedures)
 * always; the notebook and conversation groups when their services exist (given explicitly, or found on the stack
 * once core wires them in).
 */
import type { Stack } from '@mem/core';
import type { Operation, Services } from './operation.js';
import { conversationOperations } from './operations-conversation.js';
import { knowledgeOperations } from './operations-knowledge.js';
import { notebookOperations } from './operations-notebook.js';
import { runnerOperations } from './operations-runner.js';
import { stateOperations } from './operations-state.js';
import { structuredOperations } from './operations-structured.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const hasMethods = (v: unknown, names: string[]) => isObject(v) && names.every((n) => typeof v[n] === 'function');

/** The services of a stack: explicit ones first, else those the stack carries (`notebook`/`notebooks`, `conversations`). */
export function servicesOf(stack: Stack, explicit: Services = {}): Services {
  const s = stack as unknown as Record<string, unknown>;
  const notebook =
    explicit.notebook ??
    [s.notebook, s.notebooks].find((v) => hasMethods(v, ['write', 'read', 'list', 'search', 'inject']));
  const conversations =
    explicit.conversations ??
    (hasMethods(s.conversations, ['open', 'agents', 'archives', 'readArchive']) ? s.conversations : undefined);
  return {
    ...(notebook ? { notebook: notebook as Services['notebook'] } : {}),
    ...(conversations ? { conversations: conversations as Services['conversations'] } : {}),
  };
}

export function defaultOperations(stack: Stack, explicit: Services = {}): Operation[] {
  const services = servicesOf(stack, explicit);
  return [
    ...knowledgeOperations,
    // Always listed: on a stack without a port (e.g. LanceDB has no facts) they answer 501 CAPABILITY_MISSING.
    ...structuredOperations,
    ...stateOperations,
    ...(services.notebook ? notebookOperations : []),
    ...(services.conversations ? conversationOperations : []),
    ...(services.conversations ? runnerOperations : []),
  ];
}
