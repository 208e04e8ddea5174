/** The space's housekeeping: who am I (whoami), counts (stats), expiry and archive retention (gc), export and import. */
import { gcInput, MemError, parseInput, gc as runGc } from '@mem/core';
import { exportJsonLines, type FormationStats, formationStats, importJsonLines } from '@mem/core/adapter';
import { z } from 'zod';
import { defineOperation } from './operation.js';
import { emptyInput, graphImportCounts, graphLine, importLine, tokenUsage } from './schemas.js';

export const whoami = defineOperation({
  name: 'whoami',
  summary: 'Who this key acts as',
  description:
    'The space, agent and role the request acts as (decided by the API key, or the server default without keys).',
  group: 'admin',
  input: emptyInput,
  output: z.object({ space: z.string(), agentId: z.string(), role: z.enum(['lead', 'worker']) }),
  write: false,
  http: { method: 'GET', path: '/v1/whoami', input: () => ({}) },
  run: async ({ principal }) => ({ space: principal.space, agentId: principal.agentId, role: principal.role }),
});

interface StatsJson {
  space: string;
  documents: number;
  chunks: number;
  bySource: unknown;
  byScope: unknown;
  formation: FormationStats;
}

export const stats = defineOperation({
  name: 'stats',
  summary: 'Counts of memories per source and scope in your space, and of memories formed from conversations',
  description:
    'How many memories (documents and chunks) the space holds, by source and by scope; and formation: formed memories open and closed, decision-log lines by decision, and the distillations (runs, decisions, tokens) run by this process since it started.',
  group: 'admin',
  input: emptyInput,
  write: false,
  http: { method: 'GET', path: '/v1/stats', input: () => ({}) },
  cli: {
    command: 'stats',
    summary: 'counts per source and scope',
    usage: 'mem stats',
    input: () => ({}),
    print: (s: StatsJson) =>
      [
        `${s.documents} memories (${s.chunks} chunks) in space ${s.space}`,
        `by source: ${JSON.stringify(s.bySource)}`,
        `by scope: ${JSON.stringify(s.byScope)}`,
        `formed: ${s.formation.memories.open} open, ${s.formation.memories.closed} closed; decisions ${JSON.stringify(s.formation.decisions)}`,
        `distilled by this process: ${s.formation.runners.runs} run(s), ${s.formation.runners.usage.totalTokens} tokens`,
      ].join('\n'),
  },
  run: async ({ principal, stack }) => ({
    space: principal.space,
    ...(await stack.knowledge.stats(principal)),
    formation: await formationStats(stack, principal.space),
  }),
});

export const gc = defineOperation({
  name: 'gc',
  summary: 'Delete expired memories of your space; prune transcript archives by retention',
  description:
    'Delete the expired memories of your space (never /longterm) and report how many chunks went. With archiveMaxAgeDays / archiveMaxCount (or a configured retention), also delete transcript archives beyond the policy: a lead for every agent of the space, a worker its own.',
  group: 'admin',
  input: gcInput,
  write: true,
  http: { method: 'POST', path: '/v1/gc' },
  run: ({ principal, stack }, raw) => runGc(stack, principal, parseInput(gcInput, 'gc', raw ?? {})),
});

export const exportMemories = defineOperation({
  name: 'export',
  summary: 'Export memories and the memory graph as JSON Lines (streamed)',
  description:
    'Every memory you may see (a lead: the whole space), oldest first, one JSON object per line with original timestamps; then, when the stores serve a graph, every graph record you may see (a lead: the whole space), closed and merged ones included, one line each with every field: {"type":"graph-entity",…}, graph-observation, graph-relation and graph-log (the decision log). POST the same lines to /v1/import to restore them.',
  group: 'admin',
  input: emptyInput,
  output: z.union([importLine, graphLine]),
  write: false,
  http: { method: 'GET', path: '/v1/export', responseType: 'ndjson', input: () => ({}) },
  run: async ({ principal, stack }) => exportJsonLines(stack, principal),
});

export const importMemories = defineOperation({
  name: 'import',
  summary: 'Import memories and the memory graph from JSON Lines',
  description:
    'The lines export writes. One memory per line ({"content", "name"?, "key"?, "scope"?, "source"?, "tags"?, "createdAt"?, "agentId"?}), imported in order; a refused memory line does not stop the others and is reported with its line number, code and message; content already present is counted as a duplicate. Graph lines ({"type":"graph-entity"|"graph-observation"|"graph-relation"|"graph-log",…}) keep their ids and are all checked before anything is written: a bad one (a field, an id given twice, a reference to no record, a secret) refuses the whole file with INVALID_INPUT (FORBIDDEN for records of another agent or user when you are not a lead) naming its line and field; a record whose id the space holds already is left as it is and counted in graph.duplicates. CAPABILITY_MISSING for graph lines when the stores serve no graph.',
  group: 'admin',
  input: z.string().describe('JSON Lines text.'),
  output: z.object({
    imported: z.number().int(),
    duplicates: z.number().int(),
    skipped: z.number().int(),
    errors: z.array(z.object({ line: z.number().int(), code: z.string(), message: z.string() })),
    usage: tokenUsage.describe('Tokens the embedder spent on the imported memories.'),
    graph: graphImportCounts,
  }),
  write: true,
  http: { method: 'POST', path: '/v1/import', bodyType: 'ndjson', input: ({ body }) => body },
  run: async ({ principal, stack, signal }, raw) => {
    if (typeof raw !== 'string') throw new MemError('INVALID_INPUT', 'import expects JSON Lines text.');
    return importJsonLines(stack, principal, raw, signal ? { signal } : {});
  },
});
