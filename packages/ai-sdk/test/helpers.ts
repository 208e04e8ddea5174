import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookData,
  createInMemoryNotebookStore,
  createInMemoryTranscriptData,
  createInMemoryTranscriptStore,
  createStack,
  type Stack,
} from '@mem/core';

export const me = { space: 'acme', agentId: 'helper', role: 'worker' } as const;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** Shared data; each call of the returned function is one "process" over it (a restart). */
export function world(): { boot(): Stack; appends(): number } {
  const transcripts = createInMemoryTranscriptData();
  const notebooks = createInMemoryNotebookData();
  const knowledge = createInMemoryKnowledgeStore();
  let appends = 0;
  return {
    appends: () => appends,
    boot: () => {
      const store = createInMemoryTranscriptStore({ data: transcripts });
      const append = store.append.bind(store);
      store.append = (...args) => {
        appends += 1;
        return append(...args);
      };
      return createStack({
        knowledge,
        embedder: createHashingEmbedder(),
        transcripts: store,
        notebooks: createInMemoryNotebookStore({ data: notebooks }),
        logger: quiet,
      });
    },
  };
}

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** A model answer with text. */
export const textAnswer = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage: usage(50, 5),
  warnings: [],
});

/** A model answer calling one tool. */
export const toolAnswer = (toolName: string, input: unknown, toolCallId = 'call-1') => ({
  content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage: usage(60, 10),
  warnings: [],
});

/** Every text of a prompt, one string (to look for what the model was sent). */
export function promptText(prompt: readonly { role: string; content: unknown }[]): string {
  return prompt
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : (m.content as { type: string; text?: string; input?: unknown; output?: unknown }[])
            .map((p) => p.text ?? JSON.stringify(p.input ?? p.output ?? ''))
            .join(' '),
    )
    .join('\n');
}
