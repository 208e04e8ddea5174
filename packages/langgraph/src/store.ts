import {
  BaseStore,
  type GetOperation,
  getTextAtPath,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import { checkKey, type KnowledgeService, MemError, type Principal, type Scope } from '@mem/core';
import { sameJson } from '@mem/core/adapter';
import { itemKey, namespacePrefix, parseItemKey } from './keys.js';

export interface MemStoreOptions {
  /** The knowledge service of a mem stack (`createStack(...).knowledge`). */
  knowledge: KnowledgeService;
  /** Who reads and writes: space, agent and role. */
  principal: Principal;
  /** Key root under which items live (default `/langgraph`); a valid mem key outside `/longterm`. */
  root?: string;
  /** Scope of the memories (default `agent`: private to the principal's agent; `swarm` shares them in the space). */
  scope?: Scope;
  /** Fields whose text is indexed when `put` gets no `index` (LangGraph paths such as `text` or `notes[*].body`); default: every string in the value. */
  indexFields?: string[];
}

const MARKER = '[langgraph item ';
/** Most candidates one ranked search asks mem for (the limit of memory-search). */
const RANKED_CANDIDATES = 50;

interface StoredItem extends Item {
  memKey: string;
  id: string;
}

/**
 * A LangGraph.js `BaseStore` over mem's knowledge memory. Items are memories under `<root>/<namespace…>/<key>`
 * (see keys.ts for the escaping); `search` with a `query` is ranked by mem's hybrid search.
 */
export class MemStore extends BaseStore {
  readonly root: string;
  private readonly knowledge: KnowledgeService;
  private readonly principal: Principal;
  private readonly scope: Scope;
  private readonly indexFields: string[] | undefined;

  constructor(options: MemStoreOptions) {
    super();
    if (!options || typeof options !== 'object' || !options.knowledge || !options.principal) {
      throw new MemError(
        'INVALID_INPUT',
        'new MemStore needs { knowledge, principal }: the knowledge service of a mem stack (createStack(...).knowledge) and who writes ({ space, agentId, role }).',
      );
    }
    const root = options.root ?? '/langgraph';
    checkKey(root, options.principal.role);
    if (root === '/longterm' || root.startsWith('/longterm/')) {
      throw new MemError(
        'INVALID_INPUT',
        `root "${root}" is under /longterm, whose keys follow fixed slots; choose a root such as /langgraph or /apps/my-graph.`,
      );
    }
    if (options.scope !== undefined && options.scope !== 'agent' && options.scope !== 'swarm') {
      throw new MemError('INVALID_INPUT', `scope must be "agent" or "swarm", got ${JSON.stringify(options.scope)}.`);
    }
    this.root = root;
    this.knowledge = options.knowledge;
    this.principal = options.principal;
    this.scope = options.scope ?? 'agent';
    this.indexFields = options.indexFields;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    if (!Array.isArray(operations)) throw new MemError('INVALID_INPUT', 'batch takes an array of operations.');
    const results: unknown[] = new Array(operations.length).fill(null);
    // As in LangGraph's InMemoryStore: reads see the state before the batch; puts apply after, the last per item winning.
    const puts = new Map<string, PutOperation>();
    for (const [i, op] of operations.entries()) {
      if (op && typeof op === 'object' && 'value' in op) {
        checkNamespace(op.namespace, 'put');
        checkItemKey(op.key);
        if (op.value !== null) checkValue(op.value);
        puts.set(itemKey(this.root, op.namespace, op.key), op);
      } else if (op && typeof op === 'object' && 'namespacePrefix' in op) {
        results[i] = await this.searchOp(op);
      } else if (op && typeof op === 'object' && 'matchConditions' in op) {
        results[i] = await this.listOp(op);
      } else if (op && typeof op === 'object' && 'namespace' in op && 'key' in op) {
        results[i] = await this.getOp(op as GetOperation);
      } else {
        throw new MemError(
          'INVALID_INPUT',
          `batch operation ${i} is not a get, put, search or listNamespaces operation: ${JSON.stringify(op)?.slice(0, 120)}.`,
        );
      }
    }
    for (const [memKey, op] of puts) await this.putOp(memKey, op);
    return results as OperationResults<Op>;
  }

  private async find(memKey: string): Promise<StoredItem | null> {
    try {
      const doc = await this.knowledge.peek(this.principal, { key: memKey, scope: this.scope });
      return this.toItem(doc.id, doc.key, doc.content, doc.createdAt, doc.updatedAt);
    } catch (error) {
      if (MemError.is(error, 'NOT_FOUND')) return null;
      throw error;
    }
  }

  private async getOp(op: GetOperation): Promise<Item | null> {
    checkNamespace(op.namespace, 'get');
    checkItemKey(op.key);
    const found = await this.find(itemKey(this.root, op.namespace, op.key));
    return found ? publicItem(found) : null;
  }

  private async putOp(memKey: string, op: PutOperation): Promise<void> {
    const existing = await this.find(memKey);
    if (op.value === null) {
      if (existing) await this.knowledge.delete(this.principal, { id: existing.id });
      return;
    }
    const content = this.content(memKey, op.value, op.index);
    if (existing) {
      await this.knowledge.edit(this.principal, {
        id: existing.id,
        intent: 'LangGraph store put',
        mode: 'replace',
        content,
      });
      return;
    }
    const name = `${op.namespace.join('/')}/${op.key}`;
    await this.knowledge.store(this.principal, {
      content,
      key: memKey,
      scope: this.scope,
      name: name.length > 200 ? `${name.slice(0, 199)}…` : name,
      tags: ['langgraph'],
    });
  }

  /** The text of the memory: the index text (what search matches), then one line with the exact JSON value. */
  private content(memKey: string, value: Record<string, unknown>, index: PutOperation['index']): string {
    const texts =
      index === false
        ? []
        : (index ?? this.indexFields)
          ? (index ?? this.indexFields)!.flatMap((path) => getTextAtPath(value, path))
          : stringLeaves(value);
    const head = texts.filter((t) => t.trim().length > 0).join('\n');
    return `${head}${head ? '\n\n' : ''}${MARKER}${memKey}] ${JSON.stringify(value)}`;
  }

  private toItem(id: string, memKey: string, content: string, createdAt: string, updatedAt: string): StoredItem | null {
    const address = parseItemKey(this.root, memKey);
    const at = content.lastIndexOf(MARKER);
    if (!address || at < 0) return null;
    const json = content.slice(content.indexOf('] ', at) + 2);
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(json);
    } catch (error) {
      throw new MemError(
        'STORE_CORRUPT',
        `Memory ${id} under ${memKey} does not hold a LangGraph value (its last line is not JSON); it was changed outside the store. Delete it or restore it from its versions (mem get ${id}).`,
        { cause: error },
      );
    }
    return {
      id,
      memKey,
      namespace: address.namespace,
      key: address.key,
      value,
      createdAt: new Date(createdAt),
      updatedAt: new Date(updatedAt),
    };
  }

  /** Every item under a key prefix, oldest first (one pass over the space's memories). */
  private async listUnder(prefix: string): Promise<StoredItem[]> {
    const out: StoredItem[] = [];
    for await (const rec of this.knowledge.export(this.principal)) {
      if (!rec.key.startsWith(prefix) || rec.scope !== this.scope) continue;
      if (rec.agentId !== this.principal.agentId) continue;
      const item = this.toItem(rec.id, rec.key, rec.content, rec.createdAt, rec.updatedAt);
      if (item) out.push(item);
    }
    out.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.memKey.localeCompare(b.memKey));
    return out;
  }

  private async searchOp(op: SearchOperation): Promise<SearchItem[]> {
    checkNamespace(op.namespacePrefix, 'search', true);
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    for (const [name, n] of [
      ['limit', limit],
      ['offset', offset],
    ] as const) {
      if (!Number.isInteger(n) || n < 0)
        throw new MemError('INVALID_INPUT', `search ${name} must be a whole number ≥ 0, got ${JSON.stringify(n)}.`);
    }
    if (op.filter !== undefined && (typeof op.filter !== 'object' || op.filter === null || Array.isArray(op.filter)))
      throw new MemError('INVALID_INPUT', 'search filter must be an object of field → value or { $op: value }.');
    const prefix = namespacePrefix(this.root, op.namespacePrefix);
    const keep = (item: StoredItem) =>
      Object.entries(op.filter ?? {}).every(([field, wanted]) => matches(item.value[field], wanted));
    if (op.query !== undefined && op.query.trim().length > 0) {
      const hits = await this.knowledge.search(this.principal, {
        query: op.query,
        keyPrefix: prefix,
        scope: this.scope,
        limit: RANKED_CANDIDATES,
      });
      const seen = new Set<string>();
      const ranked: SearchItem[] = [];
      for (const hit of hits) {
        if (seen.has(hit.docId) || hit.agentId !== this.principal.agentId) continue;
        seen.add(hit.docId);
        const item = await this.find(hit.key);
        if (item && keep(item)) ranked.push({ ...publicItem(item), score: hit.score });
      }
      return ranked.slice(offset, offset + limit);
    }
    const items = (await this.listUnder(prefix)).filter(keep);
    return items.slice(offset, offset + limit).map((i) => ({ ...publicItem(i), score: undefined }));
  }

  private async listOp(op: ListNamespacesOperation): Promise<string[][]> {
    for (const c of op.matchConditions ?? []) checkNamespace(c.path, 'listNamespaces', true);
    if (op.maxDepth !== undefined && (!Number.isInteger(op.maxDepth) || op.maxDepth < 1))
      throw new MemError('INVALID_INPUT', `maxDepth must be a whole number ≥ 1, got ${JSON.stringify(op.maxDepth)}.`);
    const seen = new Map<string, string[]>();
    for (const item of await this.listUnder(`${this.root}/`)) {
      if (!(op.matchConditions ?? []).every((c) => matchesCondition(c, item.namespace))) continue;
      const ns = op.maxDepth === undefined ? item.namespace : item.namespace.slice(0, op.maxDepth);
      seen.set(JSON.stringify(ns), ns);
    }
    const all = [...seen.values()].sort((a, b) => a.join(':').localeCompare(b.join(':')));
    const offset = op.offset ?? 0;
    return all.slice(offset, offset + (op.limit ?? all.length));
  }
}

function publicItem(item: StoredItem): Item {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

function checkNamespace(namespace: unknown, op: string, allowEmpty = false): asserts namespace is string[] {
  if (!Array.isArray(namespace) || namespace.some((l) => typeof l !== 'string' || l === '')) {
    throw new MemError(
      'INVALID_INPUT',
      `${op}: a namespace is an array of non-empty strings such as ["users", "u-42"], got ${JSON.stringify(namespace)?.slice(0, 120)}.`,
    );
  }
  if (!allowEmpty && namespace.length === 0)
    throw new MemError(
      'INVALID_INPUT',
      `${op}: the namespace must not be empty; give at least one label, e.g. ["memories"].`,
    );
}

function checkItemKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '')
    throw new MemError('INVALID_INPUT', `An item key is a non-empty string, got ${JSON.stringify(key)}.`);
}

function checkValue(value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MemError(
      'INVALID_INPUT',
      `put: the value must be a JSON object such as { "text": "…" }, got ${Array.isArray(value) ? 'an array' : typeof value}.`,
    );
  const json = JSON.stringify(value);
  if (JSON.stringify(JSON.parse(json)) !== json || !sameJson(JSON.parse(json), value))
    throw new MemError(
      'INVALID_INPUT',
      'put: the value must be plain JSON (strings, finite numbers, booleans, null, arrays, objects); it holds something JSON cannot keep (undefined, a function, a Date, NaN, a class instance…). Convert it first.',
    );
}

function stringLeaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringLeaves(v, out);
  return out;
}

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

/** LangGraph's filter rule: a field equals the value, or satisfies every `$op` of an operator object. */
function matches(actual: unknown, wanted: unknown): boolean {
  if (
    wanted &&
    typeof wanted === 'object' &&
    !Array.isArray(wanted) &&
    Object.keys(wanted).every((k) => OPERATORS.has(k))
  ) {
    return Object.entries(wanted).every(([op, v]) => {
      switch (op) {
        case '$eq':
          return actual === v;
        case '$ne':
          return actual !== v;
        case '$gt':
          return Number(actual) > Number(v);
        case '$gte':
          return Number(actual) >= Number(v);
        case '$lt':
          return Number(actual) < Number(v);
        case '$lte':
          return Number(actual) <= Number(v);
        case '$in':
          return Array.isArray(v) && v.includes(actual);
        default:
          return !Array.isArray(v) || !v.includes(actual);
      }
    });
  }
  return actual === wanted;
}

function matchesCondition(condition: MatchCondition, namespace: string[]): boolean {
  const { path, matchType } = condition;
  if (path.length > namespace.length) return false;
  const start = matchType === 'suffix' ? namespace.length - path.length : 0;
  return path.every((label, i) => label === '*' || namespace[start + i] === label);
}
