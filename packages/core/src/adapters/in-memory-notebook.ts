import { checkNotebookPath, checkNotebookScope, notebookVersion, utf8Bytes } from '../domain/notebook.js';
import { MemError } from '../errors.js';
import type { NotebookEntry, NotebookFile, NotebookScope, NotebookStore } from '../ports/notebook-store.js';

interface StoredFile {
  content: string;
  version: string;
  updatedAt: string;
}

/** The state behind in-memory notebook stores; share it between instances to model "reopening". */
export interface InMemoryNotebookData {
  notebooks: Map<string, Map<string, StoredFile>>;
}

export function createInMemoryNotebookData(): InMemoryNotebookData {
  return { notebooks: new Map() };
}

const SEP = '\u0000';
const scopeKey = (s: NotebookScope) => [s.space, s.agent, s.user ?? '', s.topic ?? ''].join(SEP);

/** NotebookStore kept in process memory (tests, demos). Compare-and-set holds within the process. */
export function createInMemoryNotebookStore(
  options: { data?: InMemoryNotebookData } = {},
): NotebookStore & { readonly data: InMemoryNotebookData } {
  const data = options.data ?? createInMemoryNotebookData();
  const files = (scope: NotebookScope, create: boolean) => {
    checkNotebookScope(scope);
    const key = scopeKey(scope);
    let m = data.notebooks.get(key);
    if (!m && create) {
      m = new Map();
      data.notebooks.set(key, m);
    }
    return m;
  };
  const conflict = (path: string, expected: string | null, actual: string | null) =>
    new MemError(
      'CONFLICT',
      `in-memory: ${path} changed since it was read (it is ${actual === null ? 'gone' : `at version ${actual}`}, the write expected ${expected === null ? 'no file' : `version ${expected}`}). Read it again and re-apply the change.`,
      { retryable: true, details: { path, expected, actual } },
    );

  return {
    name: 'in-memory',
    capabilities: { durable: false, crossProcess: false },
    data,
    async read(scope, path): Promise<NotebookFile | null> {
      checkNotebookPath(path);
      const f = files(scope, false)?.get(path);
      return f
        ? { path, content: f.content, version: f.version, size: utf8Bytes(f.content), updatedAt: f.updatedAt }
        : null;
    },
    async write(scope, path, content, { expectedVersion, at }) {
      checkNotebookPath(path);
      const m = files(scope, true)!;
      const current = m.get(path);
      if ((current?.version ?? null) !== expectedVersion)
        throw conflict(path, expectedVersion, current?.version ?? null);
      const stored = { content, version: notebookVersion(content), updatedAt: at };
      m.set(path, stored);
      return { path, size: utf8Bytes(content), updatedAt: at, version: stored.version };
    },
    async delete(scope, path, opts = {}) {
      checkNotebookPath(path);
      const m = files(scope, false);
      const current = m?.get(path);
      if (!m || !current) return false;
      if (opts.expectedVersion !== undefined && current.version !== opts.expectedVersion)
        throw conflict(path, opts.expectedVersion, current.version);
      m.delete(path);
      return true;
    },
    async list(scope, opts = {}): Promise<NotebookEntry[]> {
      const m = files(scope, false);
      if (!m) return [];
      const prefix = opts.prefix ?? '';
      return [...m.entries()]
        .filter(([p]) => p.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([path, f]) => ({ path, size: utf8Bytes(f.content), updatedAt: f.updatedAt }));
    },
    async remove(scope) {
      checkNotebookScope(scope);
      const whole = scope.user === undefined && scope.topic === undefined;
      const exact = scopeKey(scope);
      const agentPrefix = [scope.space, scope.agent, ''].join(SEP);
      let removed = 0;
      for (const [key, m] of [...data.notebooks.entries()]) {
        if (key === exact || (whole && key.startsWith(agentPrefix))) {
          removed += m.size;
          data.notebooks.delete(key);
        }
      }
      return removed;
    },
    async close() {},
  };
}
