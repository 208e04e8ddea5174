/**
 * The JSON shape of a search result, shared by `mem search --json`, `POST /v1/memories/search`, recall and the
 * MCP tools: one mapping, one schema (the OpenAPI document derives the response schema from it).
 * Pure: importing this module loads nothing but zod.
 */

import { z } from 'zod';
import type { RecalledMemory, SearchResult, SmartRecallResult } from './services/knowledge/index.js';
import { SOURCES } from './types.js';

const scope = z.enum(['agent', 'swarm']);
const source = z.enum(SOURCES);

export const searchResultJson = z.object({
  id: z.string().describe('The memory (document) id: use it with memory-get, memory-edit, memory-delete, memory_rate.'),
  chunkId: z.string().describe('The chunk that matched (equals id for a one-chunk memory).'),
  chunkIndex: z.number().int(),
  chunkCount: z.number().int(),
  key: z.string(),
  name: z.string(),
  content: z.string().describe('The text of the matching chunk.'),
  scope,
  source,
  tags: z.array(z.string()),
  agentId: z.string().describe('The owning agent.'),
  similarity: z.number().nullable().describe('Raw cosine similarity of the vector arm, or null without vectors.'),
  keywordRank: z.number().int().nullable().describe('1-based rank in the keyword arm, or null.'),
  relevance: z.number().describe('Fused relevance in [0, 1], with the session context and the time cue.'),
  score: z
    .number()
    .describe('relevance × the bounded effect of recency × access × quality × path weight × usefulness.'),
  createdAt: z.string(),
  validFrom: z.string().nullable().describe('World time the memory holds from (null: since createdAt).'),
  validTo: z.string().nullable().describe('World time it stopped holding (null: still holds).'),
  supersedes: z.string().nullable().describe('The memory this one replaced (a changed fact), or null.'),
  supersededBy: z.string().nullable().describe('The memory that replaced it, or null.'),
  userId: z.string().nullable().describe('The end user it is about, or null.'),
});

export const smartRecallResultJson = searchResultJson.extend({
  hits: z.number().int().describe('How many of the queries found this memory.'),
  recallScore: z.number().describe('Best similarity (or relevance) + bonus × hits.'),
});

export const recalledMemoryJson = searchResultJson.extend({
  confidence: z
    .number()
    .describe("Match confidence in [0, 1]: the task's words the memory holds and the calibrated similarity."),
});

export type SearchResultJson = z.infer<typeof searchResultJson>;
export type RecalledMemoryJson = z.infer<typeof recalledMemoryJson>;
export type SmartRecallResultJson = z.infer<typeof smartRecallResultJson>;

/** One search result as machine output (`mem search --json`, the HTTP API, MCP). */
export function toSearchJson(r: SearchResult): SearchResultJson {
  return {
    id: r.docId,
    chunkId: r.id,
    chunkIndex: r.chunkIndex,
    chunkCount: r.chunkCount,
    key: r.key,
    name: r.name,
    content: r.content,
    scope: r.scope,
    source: r.source,
    tags: r.tags,
    agentId: r.agentId,
    similarity: r.similarity,
    keywordRank: r.keywordRank,
    relevance: r.relevance,
    score: r.score,
    createdAt: r.createdAt,
    validFrom: r.validFrom,
    validTo: r.validTo,
    supersedes: r.supersedes,
    supersededBy: r.supersededBy,
    userId: r.userId,
  };
}

/** A smart-recall / task-context result: the search shape plus hits and recallScore. */
export function toSmartRecallJson(r: SmartRecallResult): SmartRecallResultJson {
  return { ...toSearchJson(r), hits: r.hits, recallScore: r.recallScore };
}

/** A memory of the recall block as machine output: the search shape plus its match confidence. */
export function toRecalledJson(r: RecalledMemory): RecalledMemoryJson {
  return { ...toSearchJson(r), confidence: r.confidence };
}
