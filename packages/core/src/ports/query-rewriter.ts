import type { TokenUsage } from './summarizer.js';

export interface RewriteInput {
  /** The query as the caller gave it. */
  query: string;
  /** Most queries to answer with (the original is searched anyway and need not be repeated). */
  max: number;
}

export interface RewriteResult {
  /** Standalone search queries that together cover what the query asks, most useful first. */
  queries: string[];
  /** Tokens the call spent, when the service says. */
  usage?: TokenUsage | undefined;
}

/**
 * Turns one query into a few searches (docs/ranking.md): a question about two things becomes one query per thing, a
 * vague one gets the names and words a memory would use. Off unless a stack is given one; memory-search and recall
 * then run the original query and the rewritten ones and take their rankings in turn (the original's first).
 * Implementations: createLlmQueryRewriter of @mem/summarizer-llm (any OpenAI-compatible chat endpoint). A rewriter
 * may throw: the search then runs the original query alone and logs why.
 */
export interface QueryRewriter {
  /** Names the rewriter in logs and reports, e.g. `llm:gpt-4o-mini`. */
  readonly id: string;
  rewrite(input: RewriteInput): Promise<RewriteResult>;
}
