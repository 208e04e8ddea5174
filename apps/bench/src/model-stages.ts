/**
 * The model-backed stages the retrieval bench can add beside mem's own ranking: a reranker (`--rerank-url`, or
 * `--rerank-fake`: a word-overlap scorer on 127.0.0.1 that shows the plumbing) and a query rewriter (`--rewrite-url`
 * with `--rewrite-model`, or `--rewrite-fake`: a chat server on 127.0.0.1 that answers with the query's names and its
 * words without the question words). The fakes measure the wiring, not a model: the figures with a real model are for
 * users to run.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StackOptions } from '@mem/core';
import { createHttpReranker } from '@mem/rerank-http';
import { createLlmQueryRewriter } from '@mem/summarizer-llm';

export interface ModelStage {
  label: string;
  stack: Pick<StackOptions, 'reranker' | 'queryRewriter'>;
  close(): Promise<void>;
}

export interface ModelFlags {
  'rerank-url'?: string | undefined;
  'rerank-model'?: string | undefined;
  'rerank-format'?: string | undefined;
  'rerank-fake'?: boolean | undefined;
  'rewrite-url'?: string | undefined;
  'rewrite-model'?: string | undefined;
  'rewrite-fake'?: boolean | undefined;
}

const words = (t: string): string[] => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const QUESTION_WORDS = new Set([
  'what',
  'when',
  'where',
  'who',
  'whom',
  'which',
  'why',
  'how',
  'did',
  'does',
  'do',
  'is',
  'was',
]);

/** A JSON server on 127.0.0.1 answering every POST with `answer(body)`. */
async function startJsonServer(answer: (body: any) => unknown): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer(JSON.parse(Buffer.concat(chunks).toString('utf8')))));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** Rerank: the share of the query's words each document holds (Cohere-style answer). */
function fakeRerank(body: { query: string; documents: string[] }): unknown {
  const q = new Set(words(body.query));
  return {
    results: body.documents.map((d, index) => {
      const w = new Set(words(d));
      return { index, relevance_score: q.size === 0 ? 0 : [...q].filter((x) => w.has(x)).length / q.size };
    }),
  };
}

/** Rewrite: the capitalised names of the query, and its words without the question words (a chat completion). */
function fakeRewrite(body: { model: string; messages: { content: string }[] }): unknown {
  const asked = body.messages.at(-1)?.content ?? '';
  const query = String(JSON.parse(asked.slice(asked.indexOf('"'))) ?? '');
  const names = query.match(/\b\p{Lu}[\p{L}'-]+/gu)?.filter((n) => !QUESTION_WORDS.has(n.toLowerCase())) ?? [];
  const content = words(query).filter((w) => !QUESTION_WORDS.has(w));
  const queries = [names.join(' '), content.join(' ')].filter((q) => q !== '');
  return {
    id: 'fake',
    object: 'chat.completion',
    created: 0,
    model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(queries) }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** The stages the flags ask for; exits with a usage message for a bad flag. */
export async function modelStages(flags: ModelFlags, log: (line: string) => void): Promise<ModelStage[]> {
  const stages: ModelStage[] = [];
  if (flags['rerank-url'] || flags['rerank-fake']) {
    const format = flags['rerank-format'] ?? 'cohere';
    if (format !== 'cohere' && format !== 'tei') {
      log(`bench retrieval: --rerank-format must be cohere or tei (got "${format}").`);
      process.exit(2);
    }
    const fake = flags['rerank-fake'] ? await startJsonServer(fakeRerank) : null;
    const reranker = createHttpReranker({
      baseURL: fake?.url ?? flags['rerank-url']!,
      format: fake ? 'cohere' : format,
      ...(flags['rerank-model'] ? { model: flags['rerank-model'] } : {}),
      ...(process.env.MEM_RERANK_API_KEY ? { apiKey: process.env.MEM_RERANK_API_KEY } : {}),
      timeoutMs: 30_000,
    });
    stages.push({
      label: fake ? 'mem+rerank(fake)' : 'mem+rerank',
      stack: { reranker },
      close: async () => fake?.close(),
    });
  }
  if (flags['rewrite-url'] || flags['rewrite-fake']) {
    if (!flags['rewrite-fake'] && !flags['rewrite-model']) {
      log('bench retrieval: --rewrite-url needs --rewrite-model (the chat model that rewrites the queries).');
      process.exit(2);
    }
    const fake = flags['rewrite-fake'] ? await startJsonServer(fakeRewrite) : null;
    const queryRewriter = createLlmQueryRewriter({
      baseURL: fake?.url ?? flags['rewrite-url']!,
      model: flags['rewrite-model'] ?? 'fake',
      ...(process.env.MEM_LLM_API_KEY ? { apiKey: process.env.MEM_LLM_API_KEY } : {}),
    });
    stages.push({
      label: fake ? 'mem+rewrite(fake)' : 'mem+rewrite',
      stack: { queryRewriter },
      close: async () => fake?.close(),
    });
  }
  return stages;
}
