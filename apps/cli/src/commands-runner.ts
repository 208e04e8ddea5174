/**
 * `mem turn context`, `mem turn record`, `mem task end`, `mem session end`: the runner from the shell (docs/runner.md), for
 * agents driven by scripts. Each runs the server's operation in process, with the same validation and answers as
 * HTTP and MCP, for `--agent` (default `main`).
 */
import { type Command, type Ctx, str } from './command.js';
import { UsageError } from './context.js';
import { runOperation } from './operations.js';

const run = <T>(ctx: Ctx, name: string, input: Record<string, unknown>) =>
  runOperation<T>(ctx, (m) => m.runnerOperations, name, input);

async function text(ctx: Ctx, what: string): Promise<string> {
  const rest = ctx.args.join(' ');
  if (rest === '-') return ctx.io.readStdin();
  if (!rest.trim()) throw new UsageError(`missing ${what}.`);
  return rest;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
function role(ctx: Ctx, fallback: string): string {
  const r = str(ctx.flags, 'role-of-message') ?? fallback;
  if (!ROLES.has(r))
    throw new UsageError(`--role-of-message must be one of system, user, assistant, tool (got "${r}").`);
  return r;
}

interface TurnJson {
  messages: { role: string; content: string }[];
  report: { tokens: number; contextWindow: number; recalled: unknown[]; compaction: { status?: string } | null };
}

export const runnerCommands: Record<string, Command> = {
  'turn context': {
    summary: 'assemble the context of one agent turn (writes the message through, compacts, recalls for the task)',
    usage:
      'mem turn context <message|-> [--task T] [--task-id ID] [--system PROMPT] [--role-of-message user|tool|system]   (prints the messages to send)',
    flags: {
      task: { type: 'string' },
      'task-id': { type: 'string' },
      system: { type: 'string' },
      'role-of-message': { type: 'string' },
    },
    async run(ctx) {
      const content = await text(ctx, 'the message of this turn (or - to read it from stdin)');
      const r = await run<TurnJson>(ctx, 'turn-context', {
        task: str(ctx.flags, 'task'),
        taskId: str(ctx.flags, 'task-id'),
        systemPrompt: str(ctx.flags, 'system'),
        messages: [{ role: role(ctx, 'user'), content }],
      });
      ctx.out(r, () =>
        [
          ...r.messages.map((m) => `[${m.role}] ${m.content}`),
          `— ${r.report.tokens} tokens of ${r.report.contextWindow}; ${r.report.recalled.length} recalled${r.report.compaction ? `; compaction: ${r.report.compaction.status}` : ''}`,
        ].join('\n\n'),
      );
    },
  },
  'turn record': {
    summary: "write a turn's answer (or tool result) through to the transcript",
    usage: 'mem turn record <content|-> [--role-of-message assistant|tool]',
    flags: { 'role-of-message': { type: 'string' } },
    async run(ctx) {
      const content = await text(ctx, 'the content to record (or - to read it from stdin)');
      const r = await run<{ written: number }>(ctx, 'turn-record', {
        messages: [{ role: role(ctx, 'assistant'), content }],
      });
      ctx.out(r, () => `Recorded ${r.written} message(s).`);
    },
  },
  'task end': {
    summary: 'end a task: store what was done and learned as a task_completion memory',
    usage:
      'mem task end <summary|-> --task-id ID [--task T] [--outcome success|failure|partial] [--automatic] [--persist-memory]',
    flags: {
      'task-id': { type: 'string' },
      task: { type: 'string' },
      outcome: { type: 'string' },
      automatic: { type: 'boolean' },
      'persist-memory': { type: 'boolean' },
    },
    async run(ctx) {
      const taskId = str(ctx.flags, 'task-id');
      if (!taskId) throw new UsageError('--task-id ID is required (the id given to mem turn context --task-id).');
      const r = await run<{ stored: { id: string } | null; skipped?: string }>(ctx, 'task-end', {
        taskId,
        summary: await text(ctx, 'the summary of the task (or - to read it from stdin)'),
        task: str(ctx.flags, 'task'),
        outcome: str(ctx.flags, 'outcome'),
        automatic: ctx.flags.automatic === true ? true : undefined,
        persistMemory: ctx.flags['persist-memory'] === true ? true : undefined,
      });
      ctx.out(r, () => (r.stored ? `Stored task memory ${r.stored.id}.` : `No task memory stored: ${r.skipped}`));
    },
  },
  'session end': {
    summary: 'end a session: store a session_summary memory (the summariser writes one when none is given)',
    usage: 'mem session end [summary|-] [--since ISO-TIME]',
    flags: { since: { type: 'string' } },
    async run(ctx) {
      const summary = ctx.args.length > 0 ? await text(ctx, 'the session summary') : undefined;
      const since = str(ctx.flags, 'since');
      const r = await run<{ stored: { id: string } | null; skipped?: string }>(ctx, 'session-end', { summary, since });
      ctx.out(r, () =>
        r.stored ? `Stored session summary ${r.stored.id}.` : `No session summary stored: ${r.skipped}`,
      );
    },
  },
};
