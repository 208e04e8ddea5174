/**
 * `mem convo …` and `mem notes …`: conversation memory (docs/conversations.md) and the agent notebook
 * (docs/notebooks.md). Every command but `convo context` is an operation of the table (@mem/operations), rendered in
 * commands-table.ts; this file adds the context-settings flags every `convo` command takes, and `convo context`, which
 * assembles a context without writing anything (the runner's `turn context` writes the turn through).
 */
import { MemError } from '@mem/core';
import { conversationOperations, conversationSettingsSet, notebookOperations } from '@mem/operations';
import { type Command, type Ctx, defined, int, num, str } from './command.js';
import { runOperation, tableCommands } from './commands-table.js';

/**
 * `--context-length N --threshold X --strategy S`, given on any `mem convo` command, are stored for the agent (the
 * conversation-settings-set operation validates them); without them, nothing is stored.
 */
async function saveContextFlags(ctx: Ctx): Promise<void> {
  const fields = defined({
    contextLength: int(ctx.flags, 'context-length'),
    threshold: num(ctx.flags, 'threshold'),
    strategy: str(ctx.flags, 'strategy'),
  });
  if (Object.keys(fields).length > 0) await runOperation(ctx, conversationSettingsSet, fields);
}

/** The command with the context-settings flags: stored first, then the command runs with them. */
function withContextFlags(command: Command): Command {
  return {
    ...command,
    usage: `${command.usage} [--context-length N] [--threshold X] [--strategy S]`,
    async run(ctx) {
      await saveContextFlags(ctx);
      return command.run(ctx);
    },
  };
}

const convoContext: Command = {
  summary: 'the messages a model would get next: system prompt, rules, persistent memory, notebook, recall, turn',
  usage: 'mem convo context [--agent A] [--system S] [--turn T] [--with-notes] [--recall]',
  async run(ctx) {
    const stack = await ctx.stack();
    if (!stack.conversations || (ctx.flags['with-notes'] === true && !stack.notebook)) {
      throw new MemError('CAPABILITY_MISSING', 'No transcript or notebook store is configured for this stack.', {
        details: { service: stack.conversations ? 'notebook' : 'conversations' },
      });
    }
    const system = str(ctx.flags, 'system');
    const convo = await stack.conversations.openWithSettings({
      space: ctx.p.space,
      agentId: ctx.p.agentId,
      ...(system ? { systemPrompt: system } : {}),
    });
    const turn = str(ctx.flags, 'turn');
    const notes =
      ctx.flags['with-notes'] === true
        ? (await stack.notebook!.inject({ space: ctx.p.space, agentId: ctx.p.agentId })).text
        : undefined;
    const recall =
      ctx.flags.recall === true && turn ? ((await stack.knowledge.recall(ctx.p, turn)).block ?? undefined) : undefined;
    const assembled = await convo.context(defined({ turn, notebook: notes, recall }));
    ctx.out(
      assembled,
      () =>
        `${assembled.messages.map((m) => `--- ${m.role}\n${m.content}`).join('\n')}\n--- (${assembled.tokens} tokens)`,
    );
  },
};

const conversationTable = tableCommands(conversationOperations);

/** `mem convo archives --read ID`, as before the table: the same as `mem convo archive ID`. */
function withReadFlag(list: Command, one: Command): Command {
  return {
    ...list,
    usage: `${list.usage} [--read ID] (--read ID: mem convo archive ID)`,
    run(ctx) {
      const id = str(ctx.flags, 'read');
      return id === undefined ? list.run(ctx) : one.run({ ...ctx, args: [id] });
    },
  };
}
conversationTable['convo archives'] = withReadFlag(
  conversationTable['convo archives']!,
  conversationTable['convo archive']!,
);
export const conversationCommands: Record<string, Command> = {
  ...Object.fromEntries(
    Object.entries({ ...conversationTable, 'convo context': convoContext }).map(([name, command]) => [
      name,
      withContextFlags(command),
    ]),
  ),
  ...tableCommands(notebookOperations),
};
