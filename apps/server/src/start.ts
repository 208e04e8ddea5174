/**
 * `pnpm start`: the server on the embedded default stack — one SQLite file (./.mem/mem.db), the offline local
 * embedder, and transcripts and notebooks as Markdown files under ./.mem — with the inspector and the MCP endpoint.
 * Environment: MEM_DB, MEM_WORKSPACE_DIR, MEM_HOST, MEM_PORT, MEM_SPACE, MEM_AGENT, MEM_ROLE, MEM_KEYS_DB (the same
 * names as the mem CLI), MEM_SECRETLINT (on by default; off runs mem's own secret rules alone), MEM_SQLITE_INDEX (the
 * SQLite store's index options as JSON, e.g. {"vector":{"nprobe":48}}). Stops cleanly on SIGTERM / SIGINT.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createStack, MemError, type Principal } from '@mem/core';
import type { Embedder, SecretScanner } from '@mem/core/adapter';
import { createLocalEmbedder } from '@mem/embed-local';
import { createSecretlintScanner } from '@mem/secrets-secretlint';
import { createMarkdownStores } from '@mem/store-markdown';
import {
  createSqliteStore,
  createSqliteStructuredStores,
  type SqliteStoreOptions,
  sqliteIndexOptionsFromJson,
} from '@mem/store-sqlite';
import { KeyStore, keysPathFor } from './keys.js';
import { jsonLogger, type ServerLogger } from './log.js';
import { type RunningServer, shutdownSignal, startServer } from './server.js';

export interface DefaultServerOptions {
  /** SQLite file (default ./.mem/mem.db). */
  db?: string;
  /** Folder of the Markdown transcripts and notebooks (default ./.mem). */
  workspace?: string;
  host?: string;
  port?: number;
  principal?: Principal;
  /** Default: the local embedder (@mem/embed-local). */
  embedder?: Embedder;
  /** The SQLite store's index options (default: its defaults; env MEM_SQLITE_INDEX as JSON). */
  sqliteIndex?: SqliteStoreOptions['index'];
  logger?: ServerLogger;
  keysDb?: string;
  /**
   * Run without keys on loopback (as `mem serve --open`). Default: open while no active key exists — this is the
   * local quick start — and keys required once one does (open mode also ends the moment one is created).
   */
  open?: boolean;
  /**
   * The secret scanner run after mem's own rules: default secretlint's recommended preset (@mem/secrets-secretlint);
   * `false` runs mem's rules alone (env MEM_SECRETLINT=off).
   */
  secretScanner?: SecretScanner | false;
}

/** Start the server on the default stack. `close()` also closes the stores and the key file. */
export async function startDefaultServer(options: DefaultServerOptions = {}): Promise<RunningServer> {
  const db = resolve(options.db ?? '.mem/mem.db');
  const workspace = resolve(options.workspace ?? '.mem');
  const { transcripts, notebooks } = createMarkdownStores({ root: workspace });
  const knowledge = createSqliteStore({ path: db, ...(options.sqliteIndex ? { index: options.sqliteIndex } : {}) });
  const stack = createStack({
    knowledge,
    // Facts, episodes and procedures (docs/structured.md) in the same SQLite file, as `mem` does.
    structured: createSqliteStructuredStores({ db: knowledge.db }),
    embedder: options.embedder ?? createLocalEmbedder(),
    transcripts,
    notebooks,
    ...(options.secretScanner === false ? {} : { secretScanner: options.secretScanner ?? createSecretlintScanner() }),
  });
  const keys = KeyStore.open(keysPathFor({ db, workspace, keysDb: options.keysDb }));
  try {
    const server = await startServer({
      stack,
      keys,
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 7420,
      defaultPrincipal: options.principal ?? { space: 'default', agentId: 'main', role: 'worker' },
      open: options.open ?? (await keys.activeCount()) === 0,
      closeStack: true,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const close = server.close;
    return Object.assign(server, {
      close: async () => {
        await close();
        keys.close();
      },
    });
  } catch (error) {
    keys.close();
    await stack.close();
    throw error;
  }
}

async function main(): Promise<void> {
  // An empty variable counts as unset.
  const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ''));
  const role = env.MEM_ROLE ?? 'worker';
  if (role !== 'lead' && role !== 'worker') throw new Error(`MEM_ROLE must be lead or worker (got "${role}")`);
  const port = Number(env.MEM_PORT ?? 7420);
  const secretlint = env.MEM_SECRETLINT ?? 'on';
  if (secretlint !== 'on' && secretlint !== 'off')
    throw new Error(`MEM_SECRETLINT must be on or off (got "${secretlint}")`);
  let server: RunningServer;
  try {
    server = await startDefaultServer({
      db: env.MEM_DB ?? '.mem/mem.db',
      workspace: env.MEM_WORKSPACE_DIR ?? '.mem',
      host: env.MEM_HOST ?? '127.0.0.1',
      port,
      principal: { space: env.MEM_SPACE ?? 'default', agentId: env.MEM_AGENT ?? 'main', role },
      logger: jsonLogger(),
      ...(env.MEM_KEYS_DB ? { keysDb: env.MEM_KEYS_DB } : {}),
      ...(secretlint === 'off' ? { secretScanner: false as const } : {}),
      ...(env.MEM_SQLITE_INDEX
        ? { sqliteIndex: sqliteIndexOptionsFromJson(env.MEM_SQLITE_INDEX, 'MEM_SQLITE_INDEX') }
        : {}),
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new Error(`port ${port} is in use: set MEM_PORT to another port (or stop the other server).`);
    throw error;
  }
  process.stdout.write(
    [
      server.describe(),
      '',
      `  Inspector:     ${server.inspectorUrl}`,
      `  MCP endpoint:  ${server.mcpUrl}   (streamable HTTP; stdio: pnpm mem mcp)`,
      `  OpenAPI:       ${server.url}/openapi.json`,
      `  Store:         ${resolve(env.MEM_DB ?? '.mem/mem.db')} (SQLite) + local embedder`,
      `  Notebooks and transcripts: ${resolve(env.MEM_WORKSPACE_DIR ?? '.mem')} (Markdown)`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
  const signal = await shutdownSignal();
  process.stdout.write(`${signal}: finishing in-flight requests and closing the store…\n`);
  await server.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `mem server: ${MemError.is(error) ? `${error.code}: ` : ''}${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
