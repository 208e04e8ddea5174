/**
 * `pnpm start`: the server on the stack the `MEM_*` settings name (docs/configuration.md), by default the embedded
 * one — one SQLite file (./.mem/mem.db), the offline local embedder, and transcripts and notebooks as Markdown files
 * under ./.mem — with the inspector and the MCP endpoint. The settings are read and the stack built by the same
 * composition root as the mem CLI's (settings.ts, compose.ts). Stops cleanly on SIGTERM / SIGINT.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MemError, type Principal } from '@mem/core';
import type { Embedder, SecretScanner } from '@mem/core/adapter';
import { openStack, type StackOverrides } from './compose.js';
import { jsonLogger, type ServerLogger } from './log.js';
import { serveStack } from './serve.js';
import { type RunningServer, shutdownSignal } from './server.js';
import { isPostgresUrl, readServeSettings, readSettings, type ServeSettings, type Settings } from './settings.js';

export interface DefaultServerOptions extends Omit<Partial<Settings>, 'embedder'>, Partial<ServeSettings> {
  /** Who acts when a request names no one (default: the settings' space, agent and role). */
  principal?: Principal;
  /** An embedder, or the name of one the settings know (default `local`: @mem/embed-local). */
  embedder?: Embedder | Settings['embedder'];
  logger?: ServerLogger;
  /**
   * The secret scanner run after mem's own rules: default secretlint's recommended preset (@mem/secrets-secretlint);
   * `false` runs mem's rules alone (as `secretlint: false`, env MEM_SECRETLINT=off).
   */
  secretScanner?: SecretScanner | false;
}

/**
 * Start the server on the stack `options` name, each unnamed setting at its default (not read from the environment:
 * `main` does that). Without `open` or `requireAuth` it runs open while no active key exists — the local quick
 * start — and keys are required once one does. `close()` also closes the stores and the keys.
 */
export async function startDefaultServer(options: DefaultServerOptions = {}): Promise<RunningServer> {
  const { principal, embedder, logger, secretScanner, ...given } = options;
  const settings: Settings = { ...readSettings({}), ...pick(given, SETTING_NAMES) };
  if (typeof embedder === 'string') settings.embedder = embedder;
  if (!isPostgresUrl(settings.db)) settings.db = resolve(settings.db);
  settings.workspace = resolve(settings.workspace);
  const serve: ServeSettings = { ...readServeSettings({}), ...pick(given, SERVE_NAMES) };
  const overrides: StackOverrides = {};
  if (typeof embedder === 'object') overrides.embedder = embedder;
  if (secretScanner !== undefined) overrides.secretScanner = secretScanner;
  const stack = await openStack(settings, overrides);
  try {
    return await serveStack(stack, settings, serve, {
      principal: principal ?? {
        space: settings.space,
        agentId: settings.agent,
        role: settings.role,
        ...(settings.user !== undefined ? { userId: settings.user } : {}),
      },
      openUntilKeyed: true,
      closeStack: true,
      ...(logger ? { logger } : {}),
    });
  } catch (error) {
    await stack.close();
    throw error;
  }
}

const SETTING_NAMES = Object.keys(readSettings({})).filter((name) => name !== 'embedder') as (keyof Settings)[];
const SERVE_NAMES = Object.keys(readServeSettings({})) as (keyof ServeSettings)[];

/** The entries of `from` named in `names` that are defined. */
function pick<T extends object>(from: object, names: readonly (keyof T)[]): Partial<T> {
  const out: Partial<T> = {};
  const given = from as Partial<T>;
  for (const name of names) if (given[name] !== undefined) out[name] = given[name];
  return out;
}

/** Where the settings keep memories, in a line of the start banner (a PostgreSQL URL without its password). */
async function describeStore(s: Settings): Promise<string> {
  const where = s.store === 'postgres' ? (await import('@mem/store-postgres')).redactUrl(s.db) : resolve(s.db);
  return `${where} (${s.store}) + ${s.embedder} embedder`;
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const serve = readServeSettings(process.env);
  let server: RunningServer;
  try {
    server = await startDefaultServer({ ...settings, ...serve, logger: jsonLogger() });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new Error(`port ${serve.port} is in use: set MEM_PORT to another port (or stop the other server).`);
    throw error;
  }
  process.stdout.write(
    [
      server.describe(),
      '',
      `  Inspector:     ${server.inspectorUrl}`,
      `  MCP endpoint:  ${server.mcpUrl}   (streamable HTTP; stdio: pnpm mem mcp)`,
      `  OpenAPI:       ${server.url}/openapi.json`,
      `  Store:         ${await describeStore(settings)}`,
      settings.transcripts === 'markdown'
        ? `  Notebooks and transcripts: ${resolve(settings.workspace)} (Markdown)`
        : '  Notebooks and transcripts: in the store',
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
