/**
 * A scripted language model for a real Mastra Agent: Mastra's own `MastraLanguageModelV2Mock` (from
 * `@mastra/core/test-utils/llm-mock`) answering from a script, recording every prompt it was sent.
 */
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';

/** One model answer: text, or a tool call. */
export type Answer = string | { tool: string; args: Record<string, unknown> };

/** A prompt as the model received it: one `role: text` line per message part. */
export type PromptLines = string[];

function lines(prompt: unknown): PromptLines {
  const out: string[] = [];
  for (const m of prompt as { role: string; content: unknown }[]) {
    if (typeof m.content === 'string') out.push(`${m.role}: ${m.content}`);
    else
      for (const p of m.content as {
        type: string;
        text?: string;
        toolName?: string;
        input?: unknown;
        output?: unknown;
      }[]) {
        if (p.type === 'text') out.push(`${m.role}: ${p.text}`);
        else if (p.type === 'tool-call') out.push(`${m.role}: [call ${p.toolName}] ${JSON.stringify(p.input)}`);
        else if (p.type === 'tool-result') out.push(`${m.role}: [result ${p.toolName}] ${JSON.stringify(p.output)}`);
      }
  }
  return out;
}

export function scriptedModel(script: Answer[]) {
  const prompts: PromptLines[] = [];
  const next = (prompt: unknown) => {
    prompts.push(lines(prompt));
    const answer = script.shift();
    if (answer === undefined) throw new Error(`the script has no answer for model call ${prompts.length}`);
    return answer;
  };
  const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
  const answerParts = (prompt: unknown) => {
    const answer = next(prompt);
    const head: unknown[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: `r${prompts.length}`, modelId: 'scripted', timestamp: new Date(0) },
    ];
    if (typeof answer === 'string') {
      return {
        content: [{ type: 'text', text: answer }],
        finishReason: 'stop',
        parts: [
          ...head,
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: answer },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: 'stop', usage },
        ],
      };
    }
    const call = {
      type: 'tool-call',
      toolCallId: `call-${prompts.length}`,
      toolName: answer.tool,
      input: JSON.stringify(answer.args),
    };
    return {
      content: [call],
      finishReason: 'tool-calls',
      parts: [...head, call, { type: 'finish', finishReason: 'tool-calls', usage }],
    };
  };
  const streamOf = (parts: unknown[]) =>
    new ReadableStream({
      start(controller) {
        for (const p of parts) controller.enqueue(p);
        controller.close();
      },
    });
  const model = new MastraLanguageModelV2Mock({
    modelId: 'scripted',
    doGenerate: async (options) => {
      const a = answerParts(options.prompt);
      return {
        content: a.content,
        finishReason: a.finishReason,
        usage,
        warnings: [],
        request: {},
        response: { id: `r${prompts.length}`, modelId: 'scripted', timestamp: new Date(0) },
        stream: streamOf(a.parts),
      } as never;
    },
    doStream: async (options) => ({ stream: streamOf(answerParts(options.prompt).parts) as never }),
  });
  return { model, prompts };
}
