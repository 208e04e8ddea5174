/** The application the end-to-end tests run, in the test process and in the child: an LCEL chain with mem in it. */
import type { Document } from '@langchain/core/documents';
import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatPromptValueInterface } from '@langchain/core/prompt_values';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { RunnableLambda, RunnablePassthrough, RunnableWithMessageHistory } from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import type { Stack } from '@mem/core';
import { MemChatMessageHistory, MemRetriever } from '../src/index.js';

/** A message as plain data (what the tests compare, and what the child prints). */
export interface MessageData {
  type: string;
  content: unknown;
  tool_calls?: { name: string; args: unknown; id?: string | undefined }[];
  tool_call_id?: string;
  name?: string | undefined;
  status?: string | undefined;
}

export function messageData(m: BaseMessage): MessageData {
  const out: MessageData = { type: m.getType(), content: m.content };
  const calls = (m as AIMessage).tool_calls;
  if (calls && calls.length > 0) out.tool_calls = calls.map((c) => ({ name: c.name, args: c.args, id: c.id }));
  if (m.getType() === 'tool') {
    const t = m as ToolMessage;
    out.tool_call_id = t.tool_call_id;
    out.name = t.name;
    out.status = t.status;
  }
  return out;
}

/** `kind: text` per prompt message. */
export const promptLines = (messages: readonly BaseMessage[]): string[] =>
  messages.map((m) => `${m.getType()}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);

const formatDocs = (docs: Document[]) =>
  docs.length === 0 ? '(nothing yet)' : docs.map((d) => `- ${d.pageContent} (${d.metadata.name})`).join('\n');

export interface AssistantOptions {
  space: string;
  userId: string;
  answers: string[];
  compaction?: ConstructorParameters<typeof MemChatMessageHistory>[0]['compaction'];
}

/**
 * RunnableWithMessageHistory over (retriever → prompt → chat model): mem's recall in the system message, mem's
 * transcript as the history. `prompts` keeps what each model call was sent.
 */
export function assistant(stack: Stack, options: AssistantOptions) {
  const prompts: string[][] = [];
  const histories: MemChatMessageHistory[] = [];
  const retriever = new MemRetriever({
    stack,
    principal: { space: options.space, agentId: 'assistant', role: 'worker', userId: options.userId },
    limit: 5,
  });
  const prompt = ChatPromptTemplate.fromMessages([
    ['system', 'You are a travel assistant.\nWhat mem remembers:\n{context}'],
    new MessagesPlaceholder('history'),
    ['human', '{question}'],
  ]);
  const record = RunnableLambda.from((value: ChatPromptValueInterface) => {
    prompts.push(promptLines(value.toChatMessages()));
    return value;
  });
  const chain = RunnablePassthrough.assign({
    context: RunnableLambda.from((input: { question: string }) => input.question)
      .pipe(retriever)
      .pipe(formatDocs),
  })
    .pipe(prompt)
    .pipe(record)
    .pipe(new FakeListChatModel({ responses: options.answers }));
  const app = new RunnableWithMessageHistory({
    runnable: chain,
    getMessageHistory: (sessionId: string) => {
      const history = new MemChatMessageHistory({
        stack,
        space: options.space,
        sessionId,
        userId: options.userId,
        ...(options.compaction ? { compaction: options.compaction } : {}),
      });
      histories.push(history);
      return history;
    },
    inputMessagesKey: 'question',
    historyMessagesKey: 'history',
  });
  const ask = (sessionId: string, question: string) => app.invoke({ question }, { configurable: { sessionId } });
  /** Distil what the conversations hold and wait (a short-lived process calls it before exiting). */
  const flush = async () => {
    for (const h of histories) await h.flush();
  };
  return { app, ask, prompts, histories, retriever, flush };
}
