import { defaultTokenizer } from '../adapters/gpt-tokenizer.js';
import {
  buildNotebookInjection,
  DEFAULT_INJECTION_BUDGET,
  type InjectionBudget,
  type InjectionResult,
} from '../domain/injection.js';
import {
  applyNotebookEdit,
  checkNotebookScope,
  MAIN_NOTEBOOK_FILE,
  type NotebookWriteStatus,
  normalizeNotebookPath,
  utf8Bytes,
} from '../domain/notebook.js';
import { guardText, type PersonalDataSetting, personalDataPolicy } from '../domain/secrets.js';
import { bm25Rank, queryTerms, stem, tokenize } from '../domain/text.js';
import { MemError } from '../errors.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { NotebookEntry, NotebookScope, NotebookStore } from '../ports/notebook-store.js';
import type { SecretScanner } from '../ports/secret-scanner.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { parseInput } from '../schemas.js';
import {
  deleteMemoryInput,
  listMemoryInput,
  readMemoryInput,
  searchMemoryInput,
  type WriteMemoryInput,
  writeMemoryInput,
} from '../schemas-notebook.js';
import { scanFields } from './secret-scan.js';

/** Every number of the notebook (docs/notebooks.md), with defaults. */
export interface NotebookOptions {
  /** Payment cards and IBANs in notebooks: refuse (default), redact or allow, for all spaces or per space. */
  personalData?: PersonalDataSetting;
  maxFileBytes: number;
  maxNotebookBytes: number;
  maxFiles: number;
  /** read_memory returns at most this many characters, then a marker. */
  readMaxChars: number;
  /** search_memory returns at most this many matches. */
  searchLimit: number;
  /** How much more a hit in the file name weighs than the best content hit. */
  nameWeight: number;
  snippetChars: number;
  injection: InjectionBudget;
  /** Compare-and-set retries for an automatic re-apply of an edit after a concurrent change. */
  casRetries: number;
}

export const DEFAULT_NOTEBOOK_OPTIONS: NotebookOptions = {
  maxFileBytes: 100 * 1024,
  maxNotebookBytes: 1024 * 1024,
  maxFiles: 200,
  readMaxChars: 65_536,
  searchLimit: 10,
  nameWeight: 2,
  snippetChars: 200,
  injection: DEFAULT_INJECTION_BUDGET,
  casRetries: 10,
};

/** Whose notebook: a Principal fits (`space`, `agentId`), optionally narrowed to a user and/or topic. */
export interface NotebookOwner {
  space: string;
  agentId: string;
  user?: string | undefined;
  topic?: string | undefined;
}

export interface WriteMemoryResult {
  file: string;
  version: string;
  status: NotebookWriteStatus;
  size: number;
}

export interface ReadMemoryResult {
  file: string;
  /** The text from `offset`, cut at `readMaxChars` characters with a marker saying how to read on. */
  content: string;
  /** Null when the file does not exist yet (only for MEMORY.md, which reads as empty). */
  version: string | null;
  size: number;
  totalChars: number;
  offset: number;
  truncated: boolean;
}

export interface NotebookListResult {
  files: { file: string; size: number; updatedAt: string }[];
  totalBytes: number;
}

export interface NotebookSearchHit {
  file: string;
  snippet: string;
  score: number;
}

export interface NotebookDeps {
  store: NotebookStore;
  clock?: Clock | undefined;
  tokenizer?: Tokenizer | undefined;
  options?: Partial<NotebookOptions> | undefined;
  /** An extra asynchronous secret scan after mem's own rules, awaited by every write (docs/safety.md). */
  secretScanner?: SecretScanner | undefined;
}

const scopeOf = (o: NotebookOwner): NotebookScope => ({
  space: o.space,
  agent: o.agentId,
  ...(o.user === undefined ? {} : { user: o.user }),
  ...(o.topic === undefined ? {} : { topic: o.topic }),
});

/**
 * The agent-written notebook (docs/notebooks.md): write_memory, read_memory, delete_memory, list_memory, search_memory and
 * the injection block. Every operation takes its input as the tool gives it (validated with the schemas of
 * `schemas-notebook.ts`) and the owner (a Principal, optionally with user/topic).
 */
export class Notebook {
  readonly store: NotebookStore;
  readonly options: NotebookOptions;
  private readonly clock: Clock;
  private readonly tokenizer: Tokenizer | undefined;
  private readonly secretScanner: SecretScanner | undefined;
  /** Writes to one file through this instance run one at a time; other writers are handled by compare-and-set. */
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(deps: NotebookDeps) {
    this.store = deps.store;
    this.clock = deps.clock ?? systemClock;
    this.tokenizer = deps.tokenizer;
    this.secretScanner = deps.secretScanner;
    this.options = {
      ...DEFAULT_NOTEBOOK_OPTIONS,
      ...deps.options,
      injection: { ...DEFAULT_INJECTION_BUDGET, ...deps.options?.injection },
    };
  }

  /** write_memory {content, file = MEMORY.md, oldText?, expectedVersion?} */
  async write(owner: NotebookOwner, raw: unknown): Promise<WriteMemoryResult> {
    const parsed = parseInput(writeMemoryInput, 'write_memory', raw);
    const scope = checkNotebookScope(scopeOf(owner));
    const file = normalizeNotebookPath(parsed.file ?? MAIN_NOTEBOOK_FILE);
    const policy = personalDataPolicy(this.options.personalData, scope.space);
    guardText(file, 'notebook file name', policy === 'allow' ? 'allow' : 'refuse');
    const input = { ...parsed, content: guardText(parsed.content, `notebook file ${file}`, policy) };
    await scanFields(this.secretScanner, { 'notebook file name': file, [`notebook file ${file}`]: input.content });
    const key = [scope.space, scope.agent, scope.user ?? '', scope.topic ?? '', file].join('\u0000');
    const previous = this.writing.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.writeNow(scope, file, input));
    const settled = run.catch(() => {});
    this.writing.set(key, settled);
    void settled.then(() => {
      if (this.writing.get(key) === settled) this.writing.delete(key);
    });
    return run;
  }

  private async writeNow(scope: NotebookScope, file: string, input: WriteMemoryInput): Promise<WriteMemoryResult> {
    // Compare-and-set: re-read and re-apply the edit when another writer got in between. With an explicit
    // expectedVersion the caller asked for exactly that base, so a change meanwhile is reported instead.
    for (let attempt = 1; ; attempt++) {
      const current = await this.store.read(scope, file);
      if (input.expectedVersion !== undefined && (current?.version ?? null) !== input.expectedVersion) {
        throw new MemError(
          'CONFLICT',
          `${file} is ${current ? `at version ${current.version}` : 'gone'}, not at the expected version ${input.expectedVersion}: it changed since you read it. Read it again and re-apply your change.`,
          { retryable: true, details: { file, expected: input.expectedVersion, actual: current?.version ?? null } },
        );
      }
      const edited = applyNotebookEdit(
        current?.content ?? null,
        { content: input.content, oldText: input.oldText },
        file,
      );
      await this.checkLimits(scope, file, edited.content, current === null);
      try {
        const written = await this.store.write(scope, file, edited.content, {
          expectedVersion: current?.version ?? null,
          at: this.clock.now().toISOString(),
        });
        return { file, version: written.version, status: edited.status, size: written.size };
      } catch (error) {
        if (!MemError.is(error, 'CONFLICT') || input.expectedVersion !== undefined || attempt > this.options.casRetries)
          throw error;
      }
    }
  }

  private async checkLimits(scope: NotebookScope, file: string, content: string, isNew: boolean): Promise<void> {
    const o = this.options;
    const size = utf8Bytes(content);
    if (size > o.maxFileBytes) {
      throw new MemError(
        'TOO_LARGE',
        `${file} would be ${size} bytes, over the limit of ${o.maxFileBytes} bytes per file. Remove outdated lines (write_memory with oldText and empty content) or move a topic into its own file (e.g. "notes/topic.md").`,
        { details: { file, size, limit: o.maxFileBytes } },
      );
    }
    const entries = await this.store.list(scope);
    const others = entries.filter((e) => e.path !== file);
    if (isNew && others.length >= o.maxFiles) {
      throw new MemError(
        'TOO_LARGE',
        `The notebook already holds ${others.length} files, the limit. Add to an existing file, or delete one you no longer need (delete_memory) first.`,
        { details: { files: others.length, limit: o.maxFiles } },
      );
    }
    const total = others.reduce((sum, e) => sum + e.size, 0) + size;
    if (total > o.maxNotebookBytes) {
      throw new MemError(
        'TOO_LARGE',
        `The notebook would hold ${total} bytes, over the limit of ${o.maxNotebookBytes} bytes. Remove outdated notes or delete files you no longer need, then write again.`,
        { details: { total, limit: o.maxNotebookBytes } },
      );
    }
  }

  /** read_memory {file = MEMORY.md, offset?} */
  async read(owner: NotebookOwner, raw: unknown = {}): Promise<ReadMemoryResult> {
    const input = parseInput(readMemoryInput, 'read_memory', raw);
    const scope = checkNotebookScope(scopeOf(owner));
    const file = normalizeNotebookPath(input.file ?? MAIN_NOTEBOOK_FILE);
    const found = await this.store.read(scope, file);
    if (!found && file !== MAIN_NOTEBOOK_FILE) {
      throw new MemError(
        'NOT_FOUND',
        `No notebook file ${file}. list_memory shows the files there are; write_memory creates a file.`,
        {
          details: { file },
        },
      );
    }
    const text = found?.content ?? '';
    const offset = input.offset ?? 0;
    const max = this.options.readMaxChars;
    const slice = text.slice(offset, offset + max);
    const truncated = offset + max < text.length;
    const content = truncated
      ? `${slice}\n\n[… cut: showing characters ${offset}–${offset + max} of ${text.length}. Read on with read_memory {"file": "${file}", "offset": ${offset + max}}.]`
      : slice;
    return {
      file,
      content,
      version: found?.version ?? null,
      size: found?.size ?? 0,
      totalChars: text.length,
      offset,
      truncated,
    };
  }

  /** delete_memory {file}: any file but MEMORY.md. */
  async delete(owner: NotebookOwner, raw: unknown): Promise<{ file: string; deleted: true }> {
    const input = parseInput(deleteMemoryInput, 'delete_memory', raw);
    const scope = checkNotebookScope(scopeOf(owner));
    const file = normalizeNotebookPath(input.file);
    if (file === MAIN_NOTEBOOK_FILE) {
      throw new MemError(
        'FORBIDDEN',
        `${MAIN_NOTEBOOK_FILE} is the main notebook and cannot be deleted. Remove lines from it instead: write_memory with oldText set to the passage and empty content.`,
      );
    }
    if (!(await this.store.delete(scope, file))) {
      throw new MemError('NOT_FOUND', `No notebook file ${file} to delete. list_memory shows the files there are.`, {
        details: { file },
      });
    }
    return { file, deleted: true };
  }

  /** list_memory {prefix?}: files with sizes, sorted by path. */
  async list(owner: NotebookOwner, raw: unknown = {}): Promise<NotebookListResult> {
    const input = parseInput(listMemoryInput, 'list_memory', raw);
    const entries = await this.store.list(
      checkNotebookScope(scopeOf(owner)),
      input.prefix === undefined ? {} : { prefix: input.prefix },
    );
    return {
      files: entries.map((e) => ({ file: e.path, size: e.size, updatedAt: e.updatedAt })),
      totalBytes: entries.reduce((s, e) => s + e.size, 0),
    };
  }

  /**
   * search_memory {query, limit?}: up to 10 matches `{file, snippet, score}` over file names and contents. Content
   * relevance is BM25 over the notebook's files, normalised to [0, 1]; each query term found in the file name adds
   * `nameWeight / terms`, so a name hit weighs more than the best content hit.
   */
  async search(owner: NotebookOwner, raw: unknown): Promise<NotebookSearchHit[]> {
    const input = parseInput(searchMemoryInput, 'search_memory', raw);
    const scope = checkNotebookScope(scopeOf(owner));
    const terms = queryTerms(input.query);
    if (terms.length === 0) return [];
    const stems = terms.map(stem);
    const entries = await this.store.list(scope);
    const files = (await Promise.all(entries.map((e) => this.store.read(scope, e.path)))).filter((f) => f !== null);
    const ranked = bm25Rank(
      files.map((f) => ({ id: f.path, tokens: tokenize(f.content) })),
      terms,
    );
    const best = ranked[0]?.score ?? 0;
    const contentScore = new Map(ranked.map((r) => [r.id, best > 0 ? r.score / best : 0]));
    const hits: NotebookSearchHit[] = [];
    for (const f of files) {
      const nameStems = new Set(tokenize(f.path.replace(/\.md$/i, '')).map(stem));
      const nameHits = stems.filter((s) => nameStems.has(s)).length;
      const score = (this.options.nameWeight * nameHits) / stems.length + (contentScore.get(f.path) ?? 0);
      if (score <= 0) continue;
      hits.push({
        file: f.path,
        snippet: snippet(f.content, stems, this.options.snippetChars),
        score: Math.round(score * 1000) / 1000,
      });
    }
    hits.sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : 1));
    return hits.slice(0, Math.min(input.limit ?? this.options.searchLimit, this.options.searchLimit));
  }

  /**
   * The block injected into every model request: guidance, then `<memory>` with MEMORY.md and the list of other
   * files, within 200 lines and 2,000 tokens (configurable). Reads the store; counts with the tokenizer.
   */
  async inject(owner: NotebookOwner): Promise<InjectionResult> {
    const scope = checkNotebookScope(scopeOf(owner));
    const [main, entries] = await Promise.all([this.store.read(scope, MAIN_NOTEBOOK_FILE), this.store.list(scope)]);
    return buildNotebookInjection({
      memory: main?.content ?? null,
      files: entries as NotebookEntry[],
      tokenizer: this.tokenizer ?? defaultTokenizer(),
      budget: this.options.injection,
    });
  }

  /** Delete every notebook file of the owner (`forget`); without user/topic, all of the agent's notebooks. */
  async forget(owner: NotebookOwner): Promise<number> {
    return this.store.remove(checkNotebookScope(scopeOf(owner)));
  }
}

/** The line with the most query terms (earliest on ties), cut around the first hit; else the first non-empty line. */
function snippet(content: string, stems: readonly string[], max: number): string {
  const lines = content.split('\n');
  let bestLine = -1;
  let bestHits = 0;
  lines.forEach((line, i) => {
    const words = new Set(tokenize(line).map(stem));
    const n = stems.filter((s) => words.has(s)).length;
    if (n > bestHits) {
      bestHits = n;
      bestLine = i;
    }
  });
  const pick = bestLine >= 0 ? lines[bestLine]! : (lines.find((l) => l.trim().length > 0) ?? '');
  const text = pick.trim();
  if (text.length <= max) return text;
  const lower = text.toLowerCase();
  const first = Math.max(0, Math.min(...stems.map((s) => lower.indexOf(s)).filter((i) => i >= 0), text.length));
  const start = Math.max(0, Math.min(first - Math.floor(max / 4), text.length - max));
  return `${start > 0 ? '…' : ''}${text.slice(start, start + max)}${start + max < text.length ? '…' : ''}`;
}
