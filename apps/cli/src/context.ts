import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  createHashingEmbedder,
  createMemoryKnowledgeStore,
  createMemoryStructuredStores,
  createStack,
  type Embedder,
  type KnowledgeStore,
  MemError,
  type Principal,
  type Role,
  type Stack,
  type StackOptions,
} from '@mem/core';

/** Thrown for bad usage: exit code 2 with the usage hint. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface GlobalOptions {
  store: string;
  db: string;
  space: string;
  agent: string;
  role: Role;
  json: boolean;
  embedder: string;
  workspace: string;
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
  if (!['sqlite', 'postgres', 'lancedb', 'memory'].includes(store)) {
    throw new UsageError(`--store must be one of sqlite, postgres, lancedb, memory (got "${store}").`);
  }
  const embedder = pick('embedder', 'MEM_EMBEDDER', 'local');
  if (!['local', 'hashing', 'openai', 'none'].includes(embedder)) {
    throw new UsageError(`--embedder must be one of local, hashing, openai, none (got "${embedder}").`);
  }
  return {
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

/** Build the stack the global flags ask for. */
export async function openStack(g: GlobalOptions, env: Env): Promise<Stack> {
  let knowledge: KnowledgeStore;
  let structured: StackOptions['structured'];
  switch (g.store) {
    case 'memory':
      knowledge = createMemoryKnowledgeStore();
      structured = createMemoryStructuredStores();
      break;
    case 'sqlite': {
      const { createSqliteStore, createSqliteStructuredStores } = await import('@mem/store-sqlite');
      if (g.db !== ':memory:') mkdirSync(dirname(resolve(g.db)), { recursive: true });
      const sqlite = createSqliteStore({ path: g.db });
      knowledge = sqlite;
      structured = createSqliteStructuredStores({ db: sqlite.db });
      break;
    }
    default:
      throw new MemError(
        'CAPABILITY_MISSING',
        `The ${g.store} store is not available in this build yet. Use --store sqlite (the default, one file) or --store memory.`,
      );
  }
  const embedder = await openEmbedder(g, env);
  return createStack({ knowledge, ...(structured ? { structured } : {}), ...(embedder ? { embedder } : {}) });
}
