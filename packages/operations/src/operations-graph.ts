/**
 * The memory graph (docs/graph.md) on every door: the nine tools of the MCP memory server with its names, argument
 * and result shapes (`mem mcp --profile memory-server` offers exactly these), and import / export of its JSONL.
 * Names resolve by mem's steps (exact, normalised, alias); deleting closes records, which the history keeps.
 */
import { MemError, type Stack } from '@mem/core';
import {
  addObservationsInput,
  createEntitiesInput,
  createRelationsInput,
  deleteEntitiesInput,
  deleteObservationsInput,
  deleteRelationsInput,
  graphEntityInput,
  graphHistoryInput,
  graphMergeInput,
  graphNeighboursInput,
  graphRelationInput,
  graphUnmergeInput,
  openNodesInput,
  readGraphInput,
  searchNodesInput,
} from '@mem/core/adapter';
import { z } from 'zod';
import { int, UsageError } from './cli-binding.js';
import { defineOperation, type Operation } from './operation.js';
import { defined } from './operation-helpers.js';

const graph = (stack: Stack) => stack.service('graph');
const graphResult = z.object({
  entities: z.array(graphEntityInput).describe('Entities: name, entityType, observations.'),
  relations: z.array(graphRelationInput).describe('Relations between them (entity names), in active voice.'),
});
const done = (message: string) => ({ success: true, message });
const doneResult = z.object({ success: z.boolean(), message: z.string() });

const printGraph = (g: z.infer<typeof graphResult>) =>
  g.entities.length === 0 && g.relations.length === 0
    ? '(no entities)'
    : [
        ...g.entities.map((e) => `${e.name} (${e.entityType})${e.observations.map((o) => `\n  - ${o}`).join('')}`),
        ...g.relations.map((r) => `${r.from} —${r.relationType}→ ${r.to}`),
      ].join('\n');

export const createEntities = defineOperation({
  name: 'create_entities',
  summary: 'Create entities in the memory graph',
  description:
    'Create multiple new entities in the knowledge graph: each a name, an entityType and observations. A name that resolves to a known entity (the same name, the same name up to case, accents, punctuation and legal forms, or an alias) is not created again: its new observations are added to it. Returns the entities created.',
  group: 'graph',
  input: createEntitiesInput,
  output: z.object({ entities: z.array(graphEntityInput) }),
  write: true,
  http: { method: 'POST', path: '/v1/graph/entities', status: () => 201, successStatus: [201] },
  tool: true,
  run: ({ principal, stack }, raw) => graph(stack).createEntities(principal, raw),
});

export const createRelations = defineOperation({
  name: 'create_relations',
  summary: 'Create relations between entities of the memory graph',
  description:
    'Create multiple new relations between entities in the knowledge graph. Relations should be in active voice ("works_at", "manages"). A relation already known is skipped; an end that is no entity yet is kept as a name. Returns the relations created.',
  group: 'graph',
  input: createRelationsInput,
  output: z.object({ relations: z.array(graphRelationInput) }),
  write: true,
  http: { method: 'POST', path: '/v1/graph/relations', status: () => 201, successStatus: [201] },
  tool: true,
  run: ({ principal, stack }, raw) => graph(stack).createRelations(principal, raw),
});

export const addObservations = defineOperation({
  name: 'add_observations',
  summary: 'Add observations to entities of the memory graph',
  description:
    'Add new observations to existing entities in the knowledge graph; an observation the entity already has is skipped. NOT_FOUND, changing nothing, when an entity name is unknown: create it first.',
  group: 'graph',
  input: addObservationsInput,
  output: z.object({
    results: z.array(z.object({ entityName: z.string(), addedObservations: z.array(z.string()) })),
  }),
  write: true,
  http: { method: 'POST', path: '/v1/graph/observations' },
  tool: true,
  run: ({ principal, stack }, raw) => graph(stack).addObservations(principal, raw),
});

/** A delete of the memory server: the service closes the records; the answer is that server's `{success, message}`. */
function closing(
  name: 'delete_entities' | 'delete_observations' | 'delete_relations',
  spec: { summary: string; description: string; path: string; input: z.ZodType; message: string },
): Operation {
  const method = {
    delete_entities: 'deleteEntities',
    delete_observations: 'deleteObservations',
    delete_relations: 'deleteRelations',
  } as const;
  return defineOperation({
    name,
    summary: spec.summary,
    description: spec.description,
    group: 'graph',
    input: spec.input,
    output: doneResult,
    write: true,
    http: { method: 'POST', path: spec.path },
    tool: true,
    run: async ({ principal, stack }, raw) => {
      await graph(stack)[method[name]](principal, raw);
      return done(spec.message);
    },
  });
}

export const deleteEntities = closing('delete_entities', {
  summary: 'Delete entities and their relations from the memory graph',
  description:
    'Delete multiple entities and their associated relations from the knowledge graph. They are closed, not erased: the graph as of an earlier time still shows them (forget erases).',
  path: '/v1/graph/entities/delete',
  input: deleteEntitiesInput,
  message: 'Entities deleted successfully',
});

export const deleteObservations = closing('delete_observations', {
  summary: 'Delete observations of entities in the memory graph',
  description:
    'Delete specific observations from entities in the knowledge graph (closed, kept in the history); unknown entities and observations are skipped.',
  path: '/v1/graph/observations/delete',
  input: deleteObservationsInput,
  message: 'Observations deleted successfully',
});

export const deleteRelations = closing('delete_relations', {
  summary: 'Delete relations from the memory graph',
  description: 'Delete multiple relations from the knowledge graph (closed, kept in the history).',
  path: '/v1/graph/relations/delete',
  input: deleteRelationsInput,
  message: 'Relations deleted successfully',
});

export const readGraph = defineOperation({
  name: 'read_graph',
  summary: 'Read the whole memory graph',
  description:
    'Read the entire knowledge graph you may see: every current entity with its observations, and the relations.',
  group: 'graph',
  input: readGraphInput,
  output: graphResult,
  write: false,
  http: { method: 'GET', path: '/v1/graph', input: () => ({}) },
  tool: true,
  cli: { command: 'graph read', usage: 'mem graph read', input: () => ({}), print: printGraph },
  run: ({ principal, stack }, raw) => graph(stack).readGraph(principal, raw),
});

export const searchNodes = defineOperation({
  name: 'search_nodes',
  summary: 'Search the memory graph',
  description:
    'Search for nodes in the knowledge graph based on a query, best first: an entity the query names (or an alias of it) first, then by the query words found in names, types and observations. Returns the entities and the relations touching them.',
  group: 'graph',
  input: searchNodesInput,
  output: graphResult,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/graph/search',
    query: searchNodesInput,
    input: ({ query }) => ({ query: query.query }),
  },
  tool: true,
  cli: {
    command: 'graph search',
    usage: 'mem graph search <query…>',
    input: (cli) => {
      if (cli.args.length === 0) throw new UsageError('mem graph search needs a query, e.g. mem graph search Ada');
      return { query: cli.args.join(' ') };
    },
    print: printGraph,
  },
  run: ({ principal, stack }, raw) => graph(stack).searchNodes(principal, raw),
});

export const openNodes = defineOperation({
  name: 'open_nodes',
  summary: 'Open entities of the memory graph by name',
  description:
    'Open specific nodes in the knowledge graph by their names (resolved as create_entities does): the entities with their observations and every relation touching them. Unknown names are skipped.',
  group: 'graph',
  input: openNodesInput,
  output: graphResult,
  write: false,
  http: { method: 'POST', path: '/v1/graph/open' },
  tool: true,
  cli: {
    command: 'graph open',
    usage: 'mem graph open <name…>',
    input: (cli) => {
      if (cli.args.length === 0)
        throw new UsageError('mem graph open needs entity names, e.g. mem graph open "Ada Lovelace"');
      return { names: [...cli.args] };
    },
    print: printGraph,
  },
  run: ({ principal, stack }, raw) => graph(stack).openNodes(principal, raw),
});

const exportQuery = z
  .object({ asOf: z.string().optional().describe('ISO time: the graph as it stood then (default: now).') })
  .strict();

export const graphExport = defineOperation({
  name: 'graph-export',
  summary: 'Export the memory graph as the MCP memory server’s JSONL (streamed)',
  description:
    'The graph you may see as the MCP memory server writes its memory file: one {"type":"entity",…} line per entity, then one {"type":"relation",…} per relation. With asOf, the graph as it stood then. graph-import reads it back.',
  group: 'graph',
  input: exportQuery,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/graph/export',
    query: exportQuery,
    responseType: 'ndjson',
    input: ({ query }) => defined({ asOf: query.asOf }),
  },
  handle: async ({ principal, stack }, input) => {
    const text = await graph(stack).exportJsonl(principal, defined({ asOf: input.asOf }));
    return (async function* () {
      for (const line of text.split('\n')) if (line) yield JSON.parse(line);
    })();
  },
});

export const graphImport = defineOperation({
  name: 'graph-import',
  summary: 'Import an MCP memory server’s JSONL file into the memory graph',
  description:
    'Read a memory file of the MCP memory server (JSONL: entity and relation lines) into the graph, names exactly as written, in order; an entity already there gains the new observations, a relation already there is skipped. A line that is not an entity or relation of that format gets INVALID_INPUT naming it, and nothing is imported.',
  group: 'graph',
  input: z.string().describe('JSON Lines text.'),
  output: z.object({ entities: z.number().int(), relations: z.number().int() }),
  write: true,
  http: { method: 'POST', path: '/v1/graph/import', bodyType: 'ndjson', input: ({ body }) => body },
  run: async ({ principal, stack }, raw) => {
    if (typeof raw !== 'string') throw new MemError('INVALID_INPUT', 'graph-import expects JSON Lines text.');
    return graph(stack).importJsonl(principal, raw);
  },
});

export const graphMerge = defineOperation({
  name: 'graph-merge',
  summary: 'Merge two entities of the memory graph that are one',
  description:
    'Merge entity into into: its observations and relations move to into, and its name and aliases become aliases of into (so they resolve to it). Nothing is lost: the entity merged away is kept, what moved is copied and the originals closed, and graph-unmerge gives it all back. NOT_FOUND for an unknown name, INVALID_INPUT when both names already mean one entity.',
  group: 'graph',
  input: graphMergeInput,
  output: z.object({
    entity: z.string(),
    into: z.string(),
    observations: z.number().int(),
    relations: z.number().int(),
  }),
  write: true,
  http: { method: 'POST', path: '/v1/graph/merge' },
  tool: true,
  cli: {
    command: 'graph merge',
    usage: 'mem graph merge <entity> <into>',
    input: (cli) => {
      if (cli.args.length !== 2)
        throw new UsageError('mem graph merge needs two names: the entity to merge away, then the one that stays.');
      return { entity: cli.args[0], into: cli.args[1] };
    },
    print: (r: { entity: string; into: string; observations: number; relations: number }) =>
      `Merged ${r.entity} into ${r.into} (${r.observations} observations and ${r.relations} relations moved).`,
  },
  run: ({ principal, stack }, raw) => graph(stack).merge(principal, raw),
});

export const graphUnmerge = defineOperation({
  name: 'graph-unmerge',
  summary: 'Undo the merge of an entity of the memory graph',
  description:
    'Give back an entity merged away with graph-merge: it returns with its observations and relations, and the entity it was merged into loses what it gained. NOT_FOUND when the name was never merged away.',
  group: 'graph',
  input: graphUnmergeInput,
  output: z.object({ entity: z.string(), from: z.string() }),
  write: true,
  http: { method: 'POST', path: '/v1/graph/unmerge' },
  tool: true,
  cli: {
    command: 'graph unmerge',
    usage: 'mem graph unmerge <entity>',
    input: (cli) => {
      if (cli.args.length !== 1) throw new UsageError('mem graph unmerge needs the name of the entity merged away.');
      return { entity: cli.args[0] };
    },
    print: (r: { entity: string; from: string }) => `${r.entity} is back, apart from ${r.from}.`,
  },
  run: ({ principal, stack }, raw) => graph(stack).unmerge(principal, raw),
});

const neighbourhood = z.object({
  entities: z.array(
    z.object({
      name: z.string(),
      entityType: z.string().nullable().describe('null: a name only relations gave.'),
      observations: z.array(z.string()),
      hops: z.number().int().describe('0: the centre; 1 or 2: how many relations away.'),
    }),
  ),
  relations: z.array(graphRelationInput),
});

export const graphNeighbours = defineOperation({
  name: 'graph-neighbours',
  summary: 'An entity and its neighbours in the memory graph (1 or 2 hops)',
  description:
    'The entity, the entities its current relations reach within hops (1, the default, or 2) with their distance and observations, and those relations.',
  group: 'graph',
  input: graphNeighboursInput,
  output: neighbourhood,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/graph/neighbours',
    query: z.object({ name: z.string(), hops: z.string().optional() }).strict(),
    input: ({ query }) =>
      defined({ name: query.name, hops: query.hops === undefined ? undefined : Number(query.hops) }),
  },
  tool: true,
  cli: {
    command: 'graph neighbours',
    usage: 'mem graph neighbours <name> [--hops 1|2]',
    input: (cli) => {
      if (cli.args.length === 0) throw new UsageError('mem graph neighbours needs an entity name.');
      const hops = int(cli.flags, 'hops');
      return defined({ name: cli.args.join(' '), hops });
    },
    print: (r: z.infer<typeof neighbourhood>) =>
      [
        ...r.entities.map((e) => `${'  '.repeat(e.hops)}${e.name}${e.entityType ? ` (${e.entityType})` : ''}`),
        ...r.relations.map((x) => `${x.from} —${x.relationType}→ ${x.to}`),
      ].join('\n'),
  },
  run: ({ principal, stack }, raw) => graph(stack).neighbours(principal, raw),
});

const historyResult = z.object({
  entities: z.array(
    z
      .object({
        id: z.string(),
        name: z.string(),
        recordedAt: z.string(),
        invalidatedAt: z.string().nullable(),
        mergedInto: z.string().nullable(),
      })
      .passthrough(),
  ),
  observations: z.array(
    z
      .object({ entity: z.string(), text: z.string(), recordedAt: z.string(), invalidatedAt: z.string().nullable() })
      .passthrough(),
  ),
  relations: z.array(
    z
      .object({ from: z.string(), relationType: z.string(), to: z.string(), invalidatedAt: z.string().nullable() })
      .passthrough(),
  ),
  log: z.array(z.object({ at: z.string(), kind: z.string(), decision: z.string(), by: z.string() }).passthrough()),
});

export const graphHistory = defineOperation({
  name: 'graph-history',
  summary: 'Everything the memory graph has of an entity, closed and merged records included',
  description:
    'The entity (also when deleted or merged away), every observation and relation it had with when each was recorded and closed, and the log of every decision about them: what was added, matched, closed, merged and by whom.',
  group: 'graph',
  input: graphHistoryInput,
  output: historyResult,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/graph/history',
    query: graphHistoryInput,
    input: ({ query }) => ({ name: query.name }),
  },
  tool: true,
  cli: {
    command: 'graph history',
    usage: 'mem graph history <name>',
    input: (cli) => {
      if (cli.args.length === 0) throw new UsageError('mem graph history needs an entity name.');
      return { name: cli.args.join(' ') };
    },
    print: (r: z.infer<typeof historyResult>) =>
      r.log.map((l) => `${l.at} ${l.kind} ${l.decision} by ${l.by}`).join('\n'),
  },
  run: ({ principal, stack }, raw) => graph(stack).history(principal, raw),
});

/** The nine tools of the MCP memory server, in its order: `mem mcp --profile memory-server` offers exactly these. */
export const memoryServerOperations: Operation[] = [
  createEntities,
  createRelations,
  addObservations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  readGraph,
  searchNodes,
  openNodes,
];

/** Every graph operation. */
export const graphOperations: Operation[] = [
  ...memoryServerOperations,
  graphMerge,
  graphUnmerge,
  graphNeighbours,
  graphHistory,
  graphExport,
  graphImport,
];
