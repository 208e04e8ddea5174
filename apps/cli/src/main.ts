/** The mem command's dispatcher: the command table of every group, global flags before or after the command, usage, exit codes. */
import { parseArgs } from 'node:util';
import { MemError, type Stack } from '@mem/core';
import { commandFlags } from '@mem/operations';
import type { Command, Ctx } from './command.js';
import { benchCommands } from './commands-bench.js';
import { conversationCommands } from './commands-conversation.js';
import { graphCommands } from './commands-graph.js';
import { knowledgeCommands } from './commands-knowledge.js';
import { serverCommands } from './commands-server.js';
import { structuredCommands } from './commands-structured.js';
import { knowledgeTableCommands, operationCommands } from './commands-table.js';
import { GLOBAL_FLAGS, globalOptions, openStack, principalOf, UsageError } from './context.js';
import type { Io } from './io.js';

const USAGE_HEAD = `mem — long-term memory for LLM agents

Usage: mem <command> [arguments] [flags]

Global flags:
  --store sqlite|postgres|lancedb|in-memory  where memories live (default sqlite, env MEM_STORE)
  --db <path|url>                          database (default ./.mem/mem.db, env MEM_DB)
  --space <name>                           tenant / swarm (default "default", env MEM_SPACE)
  --agent <name>                           acting agent (default "main", env MEM_AGENT)
  --role lead|worker                       (default worker, env MEM_ROLE)
  --embedder local|hashing|openai|none     (default local, env MEM_EMBEDDER)
  --workspace <dir>                        transcripts and notebooks (default ./.mem, env MEM_WORKSPACE_DIR)
  --transcripts markdown|store             keep them as Markdown files (default) or in the main store
  --secretlint on|off                      secretlint's preset after mem's secret rules (default on, env MEM_SECRETLINT)
  --json                                   one JSON document on stdout

Commands:`;

const commands: Record<string, Command> = {
  ...knowledgeTableCommands,
  ...knowledgeCommands,
  ...structuredCommands,
  ...operationCommands,
  ...graphCommands,
  ...conversationCommands,
  ...serverCommands,
  ...benchCommands,
};

/** Words that take a sub-command (`mem facts set …`). */
const GROUPS = new Set(
  Object.keys(commands)
    .filter((k) => k.includes(' '))
    .map((k) => k.split(' ')[0]!),
);

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return `${USAGE_HEAD}\n${Object.entries(commands)
    .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
    .join('\n')}\n\nRun "mem <command> --help" for a command's flags.\n`;
}

/**
 * Global flags may stand before the command, as with git (`mem --db x.db search q`): they are moved behind it, where
 * the command's own parser reads them together with its flags. `--help` stays in front (the general usage).
 */
export function moveLeadingGlobalFlags(argv: string[]): string[] {
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const token = argv[i]!;
    if (!token.startsWith('--') || token === '--help') break;
    const eq = token.indexOf('=');
    const flag = token.slice(2, eq === -1 ? undefined : eq);
    const spec = (GLOBAL_FLAGS as Record<string, { type: string }>)[flag];
    if (!spec || flag === 'help') break;
    if (spec.type === 'string' && eq === -1) {
      const value = argv[i + 1];
      if (value === undefined) break; // left in place: the usage error names the flag
      leading.push(token, value);
      i += 2;
    } else {
      leading.push(token);
      i += 1;
    }
  }
  if (leading.length === 0) return argv;
  const [name, ...rest] = argv.slice(i);
  if (name === undefined) return argv;
  // A group's sub-command stays right after the group word (`mem --json facts get …` → `facts get … --json`).
  if (GROUPS.has(name) && rest[0] !== undefined && !rest[0].startsWith('-'))
    return [name, rest[0], ...rest.slice(1), ...leading];
  return [name, ...rest, ...leading];
}

/** Run the CLI. Returns the exit code: 0 success, 1 refused request, 2 bad usage. */
export async function run(argv: string[], io: Io): Promise<number> {
  let [name, ...rest] = moveLeadingGlobalFlags(argv);
  // A word that is a command of its own and a group (`mem distill`, `mem distill review`) runs itself without a sub-command.
  const sub0 = rest[0];
  const subCommand = sub0 !== undefined && !sub0.startsWith('-') && commands[`${name} ${sub0}`] !== undefined;
  if (name !== undefined && GROUPS.has(name) && (subCommand || !commands[name])) {
    const sub = rest[0];
    if (sub === undefined || sub.startsWith('-') || !commands[`${name} ${sub}`]) {
      const subs = Object.keys(commands).filter((k) => k.startsWith(`${name} `));
      io.stderr.write(
        `mem ${name}: ${sub === undefined ? 'missing' : `unknown`} sub-command${sub ? ` "${sub}"` : ''}. Use one of: ${subs.join(', ')}.\n`,
      );
      return 2;
    }
    name = `${name} ${sub}`;
    rest = rest.slice(1);
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command && name.startsWith('-')) {
    io.stderr.write(
      `mem: "${name}" is not a global flag (or lacks its value). Global flags: ${Object.keys(GLOBAL_FLAGS)
        .filter((f) => f !== 'help')
        .map((f) => `--${f}`)
        .join(', ')}; a command's own flags go after the command ("mem <command> --help" lists them).\n`,
    );
    return 2;
  }
  if (!command) {
    io.stderr.write(`mem: unknown command "${name}".\n\n${usage()}`);
    return 2;
  }
  let stack: Stack | undefined;
  let json = false;
  try {
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = command.passthrough
        ? { values: rest.includes('--help') ? { help: true } : {}, positionals: rest, tokens: undefined }
        : parseArgs({
            args: rest,
            options: { ...GLOBAL_FLAGS, ...commandFlags(command) },
            allowPositionals: true,
            strict: true,
          });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (parsed.values.help) {
      io.stdout.write(`${command.usage}\n`);
      return 0;
    }
    const globalValues = Object.fromEntries(
      Object.entries(parsed.values).filter(([k]) => !command.ownsFlags?.includes(k)),
    );
    const g = globalOptions(globalValues, io.env, io.cwd);
    json = g.json;
    const ctx: Ctx = {
      args: parsed.positionals,
      flags: parsed.values,
      g,
      p: principalOf(g),
      io,
      stack: async () => {
        stack ??= await openStack(g, io.env);
        return stack;
      },
      out(jsonValue, human) {
        io.stdout.write(g.json ? `${JSON.stringify(jsonValue)}\n` : `${human()}\n`);
      },
    };
    const code = await command.run(ctx);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`mem ${name}: ${e.message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    if (MemError.is(e)) {
      io.stderr.write(json ? `${JSON.stringify({ error: e.toJSON() })}\n` : `mem ${name}: ${e.code}: ${e.message}\n`);
      return 1;
    }
    const message = e instanceof Error ? e.message : String(e);
    io.stderr.write(`mem ${name}: INTERNAL: ${message}\n`);
    if (io.env.MEM_DEBUG && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
    return 1;
  } finally {
    if (stack) await stack.close();
  }
}
