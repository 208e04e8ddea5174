/**
 * `mem serve`, `mem mcp` and `mem keys create|list|revoke`, in the shape of the CLI's command table
 * (apps/cli/src/main.ts). The CLI builds the stack and the principal from its global flags, exactly as for
 * every other command; these commands add only their own flags. Heavy modules load inside `run`.
 */
import type { Principal, Role, Stack } from '@mem/core';
import type { FlagSpec } from '@mem/operations';

/** The part of the CLI's command context these commands use. */
export interface ServerCommandContext {
  args: string[];
  flags: Record<string, unknown>;
  g: {
    db: string;
    workspace: string;
    space: string;
    agent: string;
    role: Role;
    json: boolean;
    /** Where transcripts and notebooks live: the Markdown workspace or the store (absent: markdown). */
    transcripts?: 'markdown' | 'store';
  };
  p: Principal;
  io: {
    stdout: { write(s: string): unknown };
    stderr: { write(s: string): unknown };
    env: Record<string, string | undefined>;
  };
  stack: () => Promise<Stack>;
  out(json: unknown, human: () => string): void;
}

export interface ServerCommand {
  summary: string;
  usage: string;
  /** Flags beyond those its usage line names (the CLI reads the rest from `usage`). */
  flags?: FlagSpec;
  run(ctx: ServerCommandContext): Promise<unknown>;
}

export interface ServerCommandOptions {
  /** The CLI's usage error (exit code 2). */
  usageError: (message: string) => Error;
  /** Resolves when the command should stop (default: SIGTERM or SIGINT). Tests pass their own. */
  stopSignal?: () => Promise<unknown>;
}

const str = (flags: Record<string, unknown>, name: string): string | undefined =>
  typeof flags[name] === 'string' ? (flags[name] as string) : undefined;

export function createServerCommands(options: ServerCommandOptions): Record<string, ServerCommand> {
  const usage = options.usageError;

  /** The keys (and, on PostgreSQL, the shared rate buckets) for the global --db and --keys-db. */
  const serverState = async (ctx: ServerCommandContext) => {
    const { openServerState } = await import('./keys.js');
    return openServerState({
      db: ctx.g.db,
      workspace: ctx.g.workspace,
      keysDb: str(ctx.flags, 'keys-db') ?? ctx.io.env.MEM_KEYS_DB,
    });
  };

  const stop = async () => {
    if (options.stopSignal) return options.stopSignal();
    const { shutdownSignal } = await import('./server.js');
    return shutdownSignal();
  };

  return {
    serve: {
      summary: 'run the HTTP API, MCP over HTTP and the web inspector',
      usage:
        'mem serve [--open] [--host 127.0.0.1] [--port 7420] [--allowed-hosts H,…] [--allowed-origins O,…] [--body-limit BYTES] [--rate-limit N/s] [--rate-burst N] [--auth-failures N] [--headers-timeout MS] [--request-timeout MS] [--keep-alive-timeout MS] [--max-connections N] [--embed-concurrency N] [--keys-db PATH] [--require-auth]',
      async run(ctx) {
        const [{ readServeSettings }, { serveStack }, { jsonLogger }] = await Promise.all([
          import('./settings.js'),
          import('./serve.js'),
          import('./log.js'),
        ]);
        const serve = readServeSettings(ctx.io.env, ctx.flags);
        const server = await serveStack(
          await ctx.stack(),
          { ...ctx.g, transcripts: ctx.g.transcripts ?? 'markdown' },
          serve,
          {
            principal: ctx.p,
            logger: jsonLogger(),
          },
        );
        ctx.out({ url: server.url, mcp: server.mcpUrl, inspector: server.inspectorUrl, auth: server.auth }, () =>
          server.describe(),
        );
        const signal = await stop();
        ctx.io.stderr.write(`mem serve: ${String(signal ?? 'stop')}: finishing in-flight requests…\n`);
        await server.close();
      },
    },

    mcp: {
      summary: 'serve MCP over stdin/stdout (for Claude Desktop-style clients)',
      usage:
        'mem mcp [--profile memory-server]   (the global flags choose the store and who acts: [--store S] [--db PATH] [--space S] [--agent A] [--role R]; --profile memory-server offers exactly the nine tools of the MCP memory server)',
      async run(ctx) {
        const [{ serveMcpStdio, mcpProfile }, { defaultOperations }, { jsonLogger }, { SERVER_VERSION }] =
          await Promise.all([
            import('./mcp.js'),
            import('@mem/operations'),
            import('./log.js'),
            import('./server-options.js'),
          ]);
        const name = str(ctx.flags, 'profile');
        if (name !== undefined && name !== 'memory-server')
          throw usage(
            `unknown --profile "${name}": the profile is memory-server (or leave --profile out for every tool).`,
          );
        const stack = await ctx.stack();
        const profile = name === undefined ? null : mcpProfile(stack, name);
        const session = await serveMcpStdio({
          operations: profile?.operations ?? defaultOperations(stack),
          ...(profile ? { instructions: profile.instructions } : {}),
          stack,
          principal: ctx.p,
          logger: jsonLogger({ level: 'warn' }),
          version: SERVER_VERSION,
        });
        await Promise.race([session.done, stop()]);
        await session.stop();
      },
    },

    keys: {
      summary: 'API keys of the server: create, list, revoke',
      usage:
        'mem keys create --space S --agent A --role lead|worker [--label L] | mem keys list | mem keys revoke <id>   [--keys-db PATH]',
      async run(ctx) {
        const [action, ...rest] = ctx.args;
        if (action !== 'create' && action !== 'list' && action !== 'revoke')
          throw usage('give an action: create, list or revoke.');
        const state = await serverState(ctx);
        const keys = state.keys;
        const path = keys.where;
        try {
          if (action === 'create') {
            if (rest.length > 0) throw usage(`unexpected argument "${rest[0]}".`);
            const { key, info } = await keys.create({
              space: ctx.p.space,
              agentId: ctx.p.agentId,
              role: ctx.p.role,
              label: str(ctx.flags, 'label'),
            });
            ctx.out(
              { key, ...info },
              () =>
                `${key}\n\nKey ${info.id} acts as agent "${info.agentId}" (${info.role}) in space "${info.space}". It is shown only this once: keep it in a secret store. Send it as "Authorization: Bearer <key>".`,
            );
          } else if (action === 'list') {
            const list = await keys.list();
            ctx.out({ keys: list }, () =>
              list.length === 0
                ? `No API keys in ${path}.`
                : list
                    .map(
                      (k) =>
                        `${k.id}  ${k.space}/${k.agentId} (${k.role})  created ${k.createdAt}${k.label ? `  "${k.label}"` : ''}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : k.lastUsedAt ? `  last used ${k.lastUsedAt}` : ''}`,
                    )
                    .join('\n'),
            );
          } else {
            const id = rest[0];
            if (!id) throw usage('give the id of the key to revoke (mem keys list shows it).');
            const { MemError } = await import('@mem/core');
            if (!(await keys.revoke(id)))
              throw new MemError('NOT_FOUND', `No active API key with id "${id}" (mem keys list shows them).`);
            ctx.out({ id, revoked: true }, () => `Revoked key ${id}.`);
          }
        } finally {
          await state.close();
        }
      },
    },
  };
}
