/**
 * Inputs of the memory graph's operations (docs/graph.md). The nine of the MCP memory-server profile keep that
 * server's argument shapes exactly (`create_entities {entities}`, `add_observations {observations}`, …); the texts'
 * own rules (lengths, no control characters, a name with a letter or digit) are checked by the graph service.
 */
import { z } from 'zod';

const text = (what: string) => z.string().describe(what);
const list = <T extends z.ZodType>(item: T, what: string, max = 1000) =>
  z.array(item).max(max, `at most ${max} per call: split them`).describe(what);

export const graphEntityInput = z
  .object({
    name: text('The name of the entity'),
    entityType: text('The type of the entity'),
    observations: list(text('An observation'), 'An array of observation contents associated with the entity'),
  })
  .strict();

export const graphRelationInput = z
  .object({
    from: text('The name of the entity where the relation starts'),
    to: text('The name of the entity where the relation ends'),
    relationType: text('The type of the relation'),
  })
  .strict();

export const createEntitiesInput = z.object({ entities: list(graphEntityInput, 'The entities to create') }).strict();
export const createRelationsInput = z
  .object({ relations: list(graphRelationInput, 'The relations to create, in active voice') })
  .strict();
export const addObservationsInput = z
  .object({
    observations: list(
      z
        .object({
          entityName: text('The name of the entity to add the observations to'),
          contents: list(text('An observation'), 'An array of observation contents to add'),
        })
        .strict(),
      'Observations to add, per entity',
    ),
  })
  .strict();
export const deleteEntitiesInput = z
  .object({ entityNames: list(text('An entity name'), 'An array of entity names to delete') })
  .strict();
export const deleteObservationsInput = z
  .object({
    deletions: list(
      z
        .object({
          entityName: text('The name of the entity containing the observations'),
          observations: list(text('An observation'), 'An array of observations to delete'),
        })
        .strict(),
      'Observations to delete, per entity',
    ),
  })
  .strict();
export const deleteRelationsInput = z
  .object({ relations: list(graphRelationInput, 'An array of relations to delete') })
  .strict();
export const readGraphInput = z.object({}).strict();
export const searchNodesInput = z
  .object({ query: text('The search query to match against entity names, types, and observation content') })
  .strict();
export const openNodesInput = z
  .object({ names: list(text('An entity name'), 'An array of entity names to retrieve') })
  .strict();

const name = (what: string) => z.string().describe(what);
export const graphMergeInput = z
  .object({
    entity: name('The entity to merge away: its name then resolves to `into`.'),
    into: name('The entity that stays and takes its observations, relations and names.'),
  })
  .strict();
export const graphUnmergeInput = z
  .object({ entity: name('An entity merged away earlier: it comes back as it was.') })
  .strict();
export const graphNeighboursInput = z
  .object({
    name: name('The entity at the centre.'),
    hops: z.number().int().min(1).max(2).optional().describe('1 (default) or 2: how far to follow current relations.'),
  })
  .strict();
export const graphHistoryInput = z.object({ name: name('The entity (current, closed or merged away).') }).strict();
