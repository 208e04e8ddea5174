import { resolve } from 'node:path';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
  MemError,
  type Principal,
  type Role,
  type Stack,
  type StackOptions,
} from '@mem/core';
import type { Embedder } from '@mem/core/adapter';
import { UsageError } from '@mem/operations';

/** Thrown for bad usage: exit code 2 with the usage hint. */
/** A mistake on the command line: exit code 2 with the command's usage (the one class the table's bindings throw). */
export { UsageError } from '@mem/operations';

export interface GlobalOptions {
  store: string;
  db: string;
  space: string;
  agent: string;
  role: Role;
  json: boolean;
  embedder: string;
  workspace: string;
  transcripts: 'markdown' | 'store';
  /** secretlint's recommended preset after mem's own secret rules (default on; docs/safety.md). */
  secretlint: boolean;
}

export type Env = Record<string, string | undefined>;

export const GLOBAL_FLAGS = {
  store: { type: 'string' },
  db: { type: 'string' },
  space: { type: 'string' },
  agent: { type: 'string' },
  role: { type: 'string' },
  json: { type: 'boolean' },
  embedder: { type: 'string' },
  workspace: { type: 'string' },
  transcripts: { type: 'string' },
  secretlint: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Global options from flags, then environment, then defaults (an explicit flag beats an env var). */
export function globalOptions(values: Record<string, unknown>, env: Env, cwd: string): GlobalOptions {
  const pick = (flag: string, envName: string, fallback: string): string => {
    const v = values[flag];
    if (typeof v === 'string') return v;
    return env[envName] ?? fallback;
  };
  const role = pick('role', 'MEM_ROLE', 'worker');
  if (role !== 'lead' && role !== 'worker') throw new UsageError(`--role must be "lead" or "worker" (got "${role}").`);
  const store = pick('store', 'MEM_STORE', 'sqlite');
  if (!['sqlite', 'postgres', 'lancedb', 'in-memory'].includes(store)) {
    throw new UsageError(`--store must be one of sqlite, postgres, lancedb, in-memory (got "${store}").`);
  }
  const embedder = pick('embedder', 'MEM_EMBEDDER', 'local');
  if (!['local', 'hashing', 'openai', 'none'].includes(embedder)) {
    throw new UsageError(`--embedder must be one of local, hashing, openai, none (got "${embedder}").`);
  }
  // On PostgreSQL, transcripts and notebooks go to the shared database too by default: several processes or
  // replicas on one database must see one transcript per agent, which a Markdown folder per machine cannot give.
  const transcripts = pick('transcripts', 'MEM_TRANSCRIPTS', store === 'postgres' ? 'store' : 'markdown');
  if (transcripts !== 'markdown' && transcripts !== 'store') {
    throw new UsageError(`--transcripts must be "markdown" or "store" (got "${transcripts}").`);
  }
  const secretlint = pick('secretlint', 'MEM_SECRETLINT', 'on');
  if (secretlint !== 'on' && secretlint !== 'off') {
    throw new UsageError(`--secretlint must be "on" or "off" (got "${secretlint}").`);
  }
  return {
    transcripts,
    secretlint: secretlint === 'on',
    store,
    db: pick('db', 'MEM_DB', resolve(cwd, '.mem', 'mem.db')),
    space: pick('space', 'MEM_SPACE', 'default'),
    agent: pick('agent', 'MEM_AGENT', 'main'),
    role,
    json: values.json === true,
    embedder,
    workspace: pick('workspace', 'MEM_WORKSPACE_DIR', resolve(cwd, '.mem')),
  };
}

export function principalOf(g: GlobalOptions): Principal {
  return { space: g.space, agentId: g.agent, role: g.role };
}

async function openEmbedder(g: GlobalOptions, env: Env): Promise<Embedder | undefined> {
  switch (g.embedder) {
    case 'none':
      return undefined;
    case 'hashing':
      return createHashingEmbedder({ dimension: Number(env.MEM_HASHING_DIMENSION ?? 256) });
    case 'openai': {
      const { createOpenAIEmbedder } = await import('@mem/embed-openai');
      const model = env.MEM_EMBED_MODEL;
      if (!model)
        throw new UsageError(
          '--embedder openai needs MEM_EMBED_MODEL (and MEM_EMBED_BASE_URL / MEM_EMBED_API_KEY for your endpoint).',
        );
      const dimensions = env.MEM_EMBED_DIMENSIONS ? Number(env.MEM_EMBED_DIMENSIONS) : undefined;
      const embedder = createOpenAIEmbedder({
        model,
        ...(env.MEM_EMBED_BASE_URL ? { baseURL: env.MEM_EMBED_BASE_URL } : {}),
        ...((env.MEM_EMBED_API_KEY ?? env.OPENAI_API_KEY)
          ? { apiKey: env.MEM_EMBED_API_KEY ?? env.OPENAI_API_KEY }
          : {}),
        ...(dimensions ? { dimensions } : {}),
      });
      await embedder.init();
      return embedder;
    }
    default: {
      const { createLocalEmbedder } = await import('@mem/embed-local');
      return createLocalEmbedder();
    }
  }
}

/** The chat endpoint of the LLM-backed parts (MEM_LLM_MODEL, MEM_LLM_BASE_URL, MEM_LLM_API_KEY or OPENAI_API_KEY). */
function llmEndpoint(env: Env, setting: string): { model: string; baseURL?: string; apiKey?: string } {
  const model = env.MEM_LLM_MODEL;
  if (!model)
    throw new UsageError(`${setting} needs MEM_LLM_MODEL (and MEM_LLM_BASE_URL / MEM_LLM_API_KEY for your endpoint).`);
  const apiKey = env.MEM_LLM_API_KEY ?? env.OPENAI_API_KEY;
  return { model, ...(env.MEM_LLM_BASE_URL ? { baseURL: env.MEM_LLM_BASE_URL } : {}), ...(apiKey ? { apiKey } : {}) };
}

/** The summariser MEM_SUMMARIZER asks for (the template one by default). */
async function openSummarizer(env: Env): Promise<StackOptions['summarizer']> {
  const kind = env.MEM_SUMMARIZER ?? 'template';
  if (kind === 'template') return undefined;
  if (kind !== 'llm') throw new UsageError(`MEM_SUMMARIZER must be "template" or "llm" (got "${kind}").`);
  const endpoint = llmEndpoint(env, 'MEM_SUMMARIZER=llm');
  const { createLlmSummarizer } = await import('@mem/summarizer-llm');
  return createLlmSummarizer(endpoint);
}

/** The query rewriter MEM_QUERY_REWRITE asks for (none by default). */
async function openQueryRewriter(env: Env): Promise<StackOptions['queryRewriter']> {
  const kind = env.MEM_QUERY_REWRITE ?? 'off';
  if (kind === 'off') return undefined;
  if (kind !== 'llm') throw new UsageError(`MEM_QUERY_REWRITE must be "off" or "llm" (got "${kind}").`);
  const endpoint = llmEndpoint(env, 'MEM_QUERY_REWRITE=llm');
  const { createLlmQueryRewriter } = await import('@mem/summarizer-llm');
  return createLlmQueryRewriter(endpoint);
}

/** The reranker MEM_RERANK_URL asks for (none by default), and MEM_RERANK_DEPTH. */
async function openReranker(env: Env): Promise<Pick<StackOptions, 'reranker' | 'knowledgeOptions'>> {
  const url = env.MEM_RERANK_URL;
  if (!url) {
    if (env.MEM_RERANK_MODEL || env.MEM_RERANK_DEPTH) {
      throw new UsageError('MEM_RERANK_MODEL / MEM_RERANK_DEPTH need MEM_RERANK_URL (e.g. http://localhost:8000/v1).');
    }
    return {};
  }
  const format = env.MEM_RERANK_FORMAT ?? 'cohere';
  if (format !== 'cohere' && format !== 'tei') {
    throw new UsageError(`MEM_RERANK_FORMAT must be "cohere" or "tei" (got "${format}").`);
  }
  const depth = env.MEM_RERANK_DEPTH === undefined ? undefined : Number(env.MEM_RERANK_DEPTH);
  if (depth !== undefined && !(Number.isInteger(depth) && depth >= 2 && depth <= 100)) {
    throw new UsageError(`MEM_RERANK_DEPTH must be a whole number from 2 to 100 (got "${env.MEM_RERANK_DEPTH}").`);
  }
  const { createHttpReranker } = await import('@mem/rerank-http');
  return {
    reranker: createHttpReranker({
      baseURL: url,
      format,
      ...(env.MEM_RERANK_MODEL ? { model: env.MEM_RERANK_MODEL } : {}),
      ...(env.MEM_RERANK_API_KEY ? { apiKey: env.MEM_RERANK_API_KEY } : {}),
    }),
    ...(depth !== undefined ? { knowledgeOptions: { rerankDepth: depth } } : {}),
  };
}

/**
 * Load a store package the published CLI lists as an optional peer (PostgreSQL and LanceDB are not installed with
 * it). When it is absent, say which package to install instead of a module-resolution stack trace.
 */
export async function optionalPackage<T>(name: string, load: () => Promise<T>, store: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((e as Error).message).includes(name))
      throw new MemError(
        'CAPABILITY_MISSING',
        `--store ${store} needs the ${name} package, which is not installed. Install it next to the mem CLI (npm install ${name}) and run the command again.`,
        { details: { package: name } },
      );
    throw e;
  }
}

/** Build the stack the global flags ask for. */
export async function openStack(g: GlobalOptions, env: Env): Promise<Stack> {
  const options: Partial<StackOptions> = {};
  switch (g.store) {
    case 'in-memory': {
      options.knowledge = createInMemoryKnowledgeStore();
      options.structured = createInMemoryStructuredStores();
      if (g.transcripts === 'store') {
        options.transcripts = createInMemoryTranscriptStore();
        options.notebooks = createInMemoryNotebookStore();
      }
      break;
    }
    case 'sqlite': {
      const sqlite = await import('@mem/store-sqlite');
      // MEM_SQLITE_INDEX: the store's index options as JSON (names checked here, values when the file opens).
      const index = env.MEM_SQLITE_INDEX
        ? sqlite.sqliteIndexOptionsFromJson(env.MEM_SQLITE_INDEX, 'MEM_SQLITE_INDEX')
        : undefined;
      // The store creates the file's folder (0700) once its options are accepted.
      const knowledge = sqlite.createSqliteStore({ path: g.db, ...(index ? { index } : {}) });
      options.knowledge = knowledge;
      options.structured = sqlite.createSqliteStructuredStores({ db: knowledge.db });
      if (g.transcripts === 'store') {
        options.transcripts = sqlite.createSqliteTranscriptStore({ db: knowledge.db });
        options.notebooks = sqlite.createSqliteNotebookStore({ db: knowledge.db });
      }
      break;
    }
    case 'postgres': {
      const pg = await optionalPackage('@mem/store-postgres', () => import('@mem/store-postgres'), 'postgres');
      const url = g.db.startsWith('postgres://') || g.db.startsWith('postgresql://') ? g.db : env.MEM_DB;
      if (!url || !/^postgres(ql)?:\/\//.test(url)) {
        throw new UsageError('--store postgres needs --db postgres://user:pass@host:5432/db (or MEM_DB).');
      }
      const stores = await pg.createPostgresStores({ url });
      options.knowledge = stores.knowledge;
      options.structured = { ...stores.structured, close: () => stores.close() };
      if (g.transcripts === 'store') {
        options.transcripts = stores.transcripts;
        options.notebooks = stores.notebooks;
      }
      break;
    }
    case 'lancedb': {
      const { createLanceStores } = await optionalPackage(
        '@mem/store-lancedb',
        () => import('@mem/store-lancedb'),
        'lancedb',
      );
      const stores = createLanceStores({ uri: resolve(g.db) });
      options.knowledge = stores.knowledge;
      options.structured = { episodes: stores.episodes, procedures: stores.procedures, close: () => stores.close() };
      if (g.transcripts === 'store') {
        throw new MemError(
          'CAPABILITY_MISSING',
          'The lancedb store keeps no transcripts or notebooks. Use --transcripts markdown (the default).',
        );
      }
      break;
    }
    default:
      throw new UsageError(`unknown store "${g.store}".`);
  }
  if (g.transcripts === 'markdown') {
    const { createMarkdownStores } = await import('@mem/store-markdown');
    const md = createMarkdownStores({ root: g.workspace });
    options.transcripts = md.transcripts;
    options.notebooks = md.notebooks;
  }
  const embedder = await openEmbedder(g, env);
  if (embedder) options.embedder = embedder;
  const summarizer = await openSummarizer(env);
  if (summarizer) options.summarizer = summarizer;
  Object.assign(options, await openReranker(env));
  const queryRewriter = await openQueryRewriter(env);
  if (queryRewriter) options.queryRewriter = queryRewriter;
  if (g.secretlint) {
    const { createSecretlintScanner } = await import('@mem/secrets-secretlint');
    options.secretScanner = createSecretlintScanner();
  }
  return createStack(options as StackOptions);
}
