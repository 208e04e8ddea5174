/**
 * The memory graph (docs/graph.md): entities with observations and relations between them, scoped like memories,
 * with world and system time, evidence and a log. Nothing is deleted by a write: deleting an entity, an observation
 * or a relation closes it (it stays in the history); only forget removes records. The nine operations of the MCP
 * memory server are here with its semantics, names resolved by mem's steps (`resolve.ts`).
 */
import { checkedEntityKey, type MemoryServerGraph, parseMemoryJsonl, toMemoryJsonl } from '../../domain/graph.js';
import { parseInput } from '../../schemas.js';
import * as S from '../../schemas-graph.js';
import type { Principal } from '../../types.js';
import type { EntityRecord, RelationRecord } from '../../types-graph.js';
import { type GraphReadOptions, type GraphWriteOptions, IMPLICIT, PAGE } from './base.js';
import { GraphTransfer } from './transfer.js';

export type { GraphContext, GraphReadOptions, GraphWriteOptions } from './base.js';
export type { ResolutionMode, ResolutionStep, Resolved } from './resolve.js';

/** The words of a search: lower-case runs of letters and digits, two characters or more, common words left out. */
const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'what',
  'who',
  'is',
  'are',
  'of',
  'to',
  'in',
  'on',
  'at',
  'a',
  'an',
]);
const queryWords = (q: string) => [
  ...new Set(
    q
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length >= 2 && !STOP.has(w)),
  ),
];

export class GraphService extends GraphTransfer {
  /** The graph as the MCP memory server shows it: of the given entities (every visible one when null), with the relations touching them. */
  private async render(
    p: Principal,
    entities: readonly EntityRecord[] | null,
    read: GraphReadOptions = {},
  ): Promise<MemoryServerGraph> {
    const view = this.view(p, read);
    let list: EntityRecord[];
    let relations: RelationRecord[];
    if (entities === null) {
      list = await this.pageAll((after) => this.ctx.store.entities(p.space, { after, limit: PAGE }, view));
      relations = await this.pageAll((after) => this.ctx.store.relations(p.space, { after, limit: PAGE }, view));
    } else {
      list = [...entities];
      const ids = list.map((e) => e.id);
      relations =
        ids.length === 0 ? [] : await this.ctx.store.relations(p.space, { entityIds: ids, direction: 'both' }, view);
      relations.sort((a, b) => (a.id < b.id ? -1 : 1));
    }
    const names = new Map(list.map((e) => [e.id, e.name]));
    const ends = [...new Set(relations.flatMap((r) => [r.fromId, r.toId]))].filter((id) => !names.has(id));
    if (ends.length > 0) {
      for (const e of await this.ctx.store.entities(p.space, { ids: ends }, { ...view, history: true }))
        names.set(e.id, e.name);
    }
    const typed = list.filter((e) => e.entityType !== IMPLICIT);
    const texts = await this.observationTexts(
      p,
      typed.map((e) => e.id),
      read,
    );
    return {
      entities: typed.map((e) => ({ name: e.name, entityType: e.entityType, observations: texts.get(e.id) ?? [] })),
      relations: relations
        .filter((r) => names.has(r.fromId) && names.has(r.toId))
        .map((r) => ({ from: names.get(r.fromId)!, to: names.get(r.toId)!, relationType: r.relationType })),
    };
  }

  private async pageAll<T extends { id: string }>(page: (after: string | null) => Promise<T[]>): Promise<T[]> {
    const out: T[] = [];
    let after: string | null = null;
    for (;;) {
      const rows = await page(after);
      out.push(...rows);
      if (rows.length < PAGE) return out;
      after = rows.at(-1)!.id;
    }
  }

  /** The whole graph the principal sees (MCP `read_graph`), current or as of a time. */
  async readGraph(p: Principal, input: unknown = {}, read: GraphReadOptions = {}): Promise<MemoryServerGraph> {
    parseInput(S.readGraphInput, 'read_graph', input);
    return this.render(p, null, read);
  }

  /**
   * Entities matching a query, best first (MCP `search_nodes`), with the relations touching them: a name or alias
   * that resolves to the query first, then by the query's words found in names (×3), types and observations.
   */
  async searchNodes(p: Principal, input: unknown, limit = 20): Promise<MemoryServerGraph> {
    const { query } = parseInput(S.searchNodesInput, 'search_nodes', input);
    const words = queryWords(query);
    const view = this.view(p);
    const key = query.trim().length > 0 ? checkedKeyOrNull(query) : null;
    const exact = key ? await this.ctx.store.entities(p.space, { keys: [key] }, view) : [];
    const found = words.length === 0 ? [] : await this.ctx.store.entities(p.space, { words, limit: 500 }, view);
    const score = (e: EntityRecord) => {
      const names = [e.name, ...e.aliases].join('\n').toLowerCase();
      let s = exact.some((x) => x.id === e.id) ? 100 : 0;
      for (const w of words) s += (names.includes(w) ? 3 : 0) + (e.searchText.includes(w) ? 1 : 0);
      if (e.searchText.includes(query.trim().toLowerCase())) s += 2;
      return s;
    };
    const all = new Map([...exact, ...found].filter((e) => e.entityType !== IMPLICIT).map((e) => [e.id, e]));
    const ranked = [...all.values()]
      .map((e) => ({ e, s: score(e) }))
      .sort((a, b) => b.s - a.s || (a.e.id < b.e.id ? -1 : 1))
      .slice(0, limit)
      .map((x) => x.e);
    return this.render(p, ranked);
  }

  /** Entities by name (MCP `open_nodes`), with the relations touching them; unknown names are skipped. */
  async openNodes(p: Principal, input: unknown, read: GraphReadOptions = {}): Promise<MemoryServerGraph> {
    const { names } = parseInput(S.openNodesInput, 'open_nodes', input);
    const known = await this.named(p, names, read);
    return this.render(p, [...new Map([...known.values()].map((e) => [e.id, e])).values()], read);
  }

  /** Import an MCP memory-server file (JSONL): entities and relations as they are (exact names), in order. */
  async importJsonl(
    p: Principal,
    text: string,
    o: GraphWriteOptions = {},
  ): Promise<{ entities: number; relations: number }> {
    const graph = parseMemoryJsonl(text);
    const opts = { resolution: 'exact' as const, by: 'graph-import', ...o };
    let entities = 0;
    let relations = 0;
    for (let i = 0; i < graph.entities.length; i += PAGE) {
      entities += (await this.putEntities(p, graph.entities.slice(i, i + PAGE), opts, 'graph-import')).entities.length;
    }
    for (let i = 0; i < graph.relations.length; i += PAGE) {
      relations += (await this.putRelations(p, graph.relations.slice(i, i + PAGE), opts, 'graph-import')).relations
        .length;
    }
    return { entities, relations };
  }

  /** The graph the principal sees as an MCP memory-server file (JSONL). */
  async exportJsonl(p: Principal, read: GraphReadOptions = {}): Promise<string> {
    return toMemoryJsonl(await this.render(p, null, read));
  }

  /** Forget: remove for good every record of an agent or about a user. */
  deleteOwner(space: string, owner: { agentId: string } | { userId: string }) {
    return this.ctx.store.deleteOwner(space, owner);
  }
}

function checkedKeyOrNull(query: string): string | null {
  try {
    return checkedEntityKey(query);
  } catch {
    return null;
  }
}
