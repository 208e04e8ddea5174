/** A LangChain chat model for tests: answers from a script, in order, and keeps every prompt it was sent. */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

export type Answer = string | { text?: string; calls: { name: string; args: Record<string, unknown>; id: string }[] };

export class ScriptedChatModel extends BaseChatModel {
  readonly prompts: BaseMessage[][] = [];
  private next = 0;

  constructor(private readonly script: readonly Answer[]) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.prompts.push(messages);
    const answer = this.script[Math.min(this.next, this.script.length - 1)] ?? 'ok';
    this.next += 1;
    const message =
      typeof answer === 'string'
        ? new AIMessage(answer)
        : new AIMessage({
            content: answer.text ?? '',
            tool_calls: answer.calls.map((c) => ({ ...c, type: 'tool_call' as const })),
          });
    return { generations: [{ text: typeof answer === 'string' ? answer : (answer.text ?? ''), message }] };
  }
}

/** The text of each prompt message, with its kind: `human: …`, `ai: …`, `system: …`, `tool: …`. */
export const promptLines = (prompt: readonly BaseMessage[]): string[] =>
  prompt.map((m) => `${m.getType()}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
