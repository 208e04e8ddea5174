/**
 * A server on a built stack with `ServeSettings`: its keys (and on PostgreSQL the rate buckets and the replica
 * registration every replica shares), its limits and its logger. `mem serve` and `pnpm start` both start here.
 */
import { resolve } from 'node:path';
import type { Principal, Stack } from '@mem/core';
import { openServerState } from './keys.js';
import type { ServerLogger } from './log.js';
import { type RunningServer, startServer } from './server.js';
import type { ServeSettings, Settings } from './settings.js';

export interface ServeOptions {
  /** Who acts when a request names no one. */
  principal: Principal;
  logger?: ServerLogger;
  /** With neither `--open` nor `--require-auth`: run open while no active key exists (the local quick start). */
  openUntilKeyed?: boolean;
  /** Close the stack with the server. */
  closeStack?: boolean;
}

/** Start serving `stack`. `close()` finishes in-flight requests, leaves the replicas and closes the keys. */
export async function serveStack(
  stack: Stack,
  settings: Pick<Settings, 'db' | 'workspace' | 'transcripts'>,
  serve: ServeSettings,
  options: ServeOptions,
): Promise<RunningServer> {
  const state = await openServerState({ db: settings.db, workspace: settings.workspace, keysDb: serve.keysDb });
  let lease: { leave(): Promise<void> } | null = null;
  try {
    // On PostgreSQL, several replicas may share the database; a Markdown workspace cannot be shared.
    lease = await state.joinReplicas(settings.transcripts === 'store' ? null : resolve(settings.workspace));
    const open =
      serve.open ?? (!serve.requireAuth && options.openUntilKeyed === true && (await state.keys.activeCount()) === 0);
    const server = await startServer({
      stack,
      keys: state.keys,
      rateBuckets: state.rateBuckets,
      host: serve.host,
      port: serve.port,
      defaultPrincipal: options.principal,
      requireAuth: serve.requireAuth,
      open,
      ...(serve.allowedHosts ? { allowedHosts: serve.allowedHosts } : {}),
      ...(serve.allowedOrigins ? { allowedOrigins: serve.allowedOrigins } : {}),
      authFailures: serve.authFailures === 0 ? false : { burst: serve.authFailures, perMinute: serve.authFailures },
      headersTimeoutMs: serve.headersTimeoutMs,
      requestTimeoutMs: serve.requestTimeoutMs,
      keepAliveTimeoutMs: serve.keepAliveTimeoutMs,
      maxConnections: serve.maxConnections,
      fairEmbedding: { concurrency: serve.embedConcurrency },
      bodyLimitBytes: serve.bodyLimitBytes,
      rateLimit: serve.ratePerSecond === 0 ? false : { ratePerSecond: serve.ratePerSecond, burst: serve.burst },
      ...(serve.metricsKey ? { metricsKey: serve.metricsKey } : {}),
      ...(options.closeStack ? { closeStack: true } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const held = lease;
    const close = server.close;
    return Object.assign(server, {
      close: async () => {
        try {
          await close();
        } finally {
          await held.leave();
          await state.close();
        }
      },
    });
  } catch (error) {
    await lease?.leave();
    await state.close();
    throw error;
  }
}
