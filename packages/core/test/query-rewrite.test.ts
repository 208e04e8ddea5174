import { describe, expect, it } from 'vitest';
import type { Logger } from '../src/adapter.js';
import { createInMemoryKnowledgeStore, createStack, type Principal } from '../src/index.js';
import type { QueryRewriter, RewriteInput } from '../src/ports/query-rewriter.js';

const p: Principal = { space: 's', agentId: 'a', role: 'worker' };

/** A rewriter that answers from a table and records what it was asked (a port implementation, like the template summariser). */
function tableRewriter(answers: Record<string, string[]>, asked: RewriteInput[], fail = false): QueryRewriter {
  return {
    id: 'table',
    async rewrite(input) {
      asked.push(input);
      if (fail) throw new Error('model unreachable');
      return {
        queries: answers[input.query] ?? [],
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      };
    },
  };
}

async function seeded() {
  const store = createInMemoryKnowledgeStore();
  const { knowledge } = createStack({ knowledge: store });
  const ferry = await knowledge.store(p, { content: 'The ferry leaves pier four at half past seven.' });
  const jacket = await knowledge.store(p, { content: 'Bring a warm jacket: the deck is cold.' });
  for (let i = 0; i < 4; i++) await knowledge.store(p, { content: `Trip planning note ${i} for the island trip.` });
  return { store, ferry, jacket };
}

describe('query rewriting', () => {
  it('searches the rewritten queries beside the original, each part reaching the top, tokens counted', async () => {
    const { store, ferry, jacket } = await seeded();
    const asked: RewriteInput[] = [];
    const query = 'what do I need for the island trip';
    const rewriter = tableRewriter(
      { [query]: ['ferry departure pier', 'warm jacket deck', 'FERRY departure pier', ''] },
      asked,
    );
    const { knowledge } = createStack({ knowledge: store, queryRewriter: rewriter });
    const report = await knowledge.searchReport(p, { query, limit: 3 });
    const ids = report.results.map((r) => r.docId);
    expect(ids).toContain(ferry.id);
    expect(ids).toContain(jacket.id);
    expect(asked).toEqual([{ query, max: 3 }]);
    expect(report.usage.inputTokens).toBe(10);
    // Without the rewriter the trip notes fill the top.
    const plain = await createStack({ knowledge: store }).knowledge.search(p, { query, limit: 3 });
    expect(plain.map((r) => r.docId)).not.toContain(jacket.id);
  });

  it('never sends a secret to the rewriter; a failing rewriter leaves the search as it was, logged', async () => {
    const { store } = await seeded();
    const asked: RewriteInput[] = [];
    const warnings: string[] = [];
    const logger: Logger = { info: () => {}, warn: (m) => warnings.push(m), error: () => {} };
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const { knowledge } = createStack({ knowledge: store, queryRewriter: tableRewriter({}, asked, true), logger });
    const query = `island trip planning ${secret}`;
    const results = await knowledge.search(p, { query, limit: 3 });
    const plain = await createStack({ knowledge: store }).knowledge.search(p, { query, limit: 3 });
    expect(results.map((r) => r.id)).toEqual(plain.map((r) => r.id));
    expect(asked[0]!.query).not.toContain(secret);
    expect(warnings).toEqual(['query rewrite failed: searched the query as given']);
  });

  it('applies to memory-search and recall only; rewriteQueries 0 turns it off', async () => {
    const { store } = await seeded();
    const asked: RewriteInput[] = [];
    const rewriter = tableRewriter({}, asked);
    const { knowledge } = createStack({ knowledge: store, queryRewriter: rewriter });
    await knowledge.recall(p, 'plan the island trip');
    expect(asked.map((a) => a.query)).toEqual(['plan the island trip']);
    await knowledge.dedupCheck(p, { text: 'Trip planning note 1 for the island trip.' });
    await knowledge.smartRecallReport(p, { queries: ['island trip', 'ferry'] });
    expect(asked).toHaveLength(1);
    const off = createStack({ knowledge: store, queryRewriter: rewriter, knowledgeOptions: { rewriteQueries: 0 } });
    await off.knowledge.search(p, { query: 'island trip' });
    expect(asked).toHaveLength(1);
  });
});
