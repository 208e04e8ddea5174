import { Document } from '@langchain/core/documents';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnableLambda, RunnablePassthrough } from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { MemError, type Principal } from '@mem/core';
import { afterEach, describe, expect, it } from 'vitest';
import { MemRetriever } from '../src/index.js';
import { cleanup, world } from './world.js';

afterEach(cleanup);

const ana: Principal = { space: 'acme', agentId: 'assistant', role: 'worker', userId: 'ana' };
const ops: Principal = { space: 'acme', agentId: 'ops', role: 'worker' };

async function seeded() {
  const w = world();
  const stack = w.boot();
  await stack.knowledge.store(ops, {
    content: 'The staging database is reset every Sunday at 02:00 UTC.',
    name: 'staging reset',
    key: '/projects/billing/staging-reset',
    scope: 'swarm',
    tags: ['billing', 'staging'],
  });
  await stack.knowledge.store(ops, {
    content: 'Production deploys of billing need two approvals.',
    name: 'prod approvals',
    key: '/projects/billing/prod-approvals',
    scope: 'swarm',
    tags: ['billing'],
  });
  await stack.knowledge.store(ops, {
    content: 'The office coffee machine is descaled on Fridays.',
    name: 'coffee',
    key: '/office/coffee',
    scope: 'swarm',
  });
  await stack.knowledge.store(ops, { content: 'Ops keeps the pager rota in the wiki.', name: 'pager rota' });
  await stack.close();
  // Every test reads in a new stack over the file: the facts were written earlier, by another "process".
  return { w, stack: w.boot() };
}

describe('MemRetriever', () => {
  it('finds a fact written earlier and returns it as a Document with mem metadata', async () => {
    const { stack } = await seeded();
    const retriever = new MemRetriever({ stack, principal: ana });
    const docs = await retriever.invoke('When is the staging database reset?');
    expect(docs[0]).toBeInstanceOf(Document);
    expect(docs[0]!.pageContent).toBe('The staging database is reset every Sunday at 02:00 UTC.');
    const m = docs[0]!.metadata;
    expect(m).toMatchObject({
      key: '/projects/billing/staging-reset',
      name: 'staging reset',
      scope: 'swarm',
      source: 'manual',
      tags: ['billing', 'staging'],
      agentId: 'ops',
      userId: null,
      chunkIndex: 0,
      chunkCount: 1,
      validTo: null,
    });
    expect(m.id).toMatch(/\S/);
    expect(docs[0]!.id).toBe(m.chunkId);
    expect(typeof m.similarity).toBe('number');
    expect(m.relevance).toBeGreaterThan(0);
    expect(typeof m.score).toBe('number');
    expect(Date.parse(m.recordedAt)).not.toBeNaN();
    expect(m.validFrom).toBe(m.recordedAt);
    // The id is mem's: `knowledge.get` reads the memory it names.
    expect((await stack.knowledge.get(ana, { id: m.id })).name).toBe('staging reset');
    // A principal's own (agent-scoped) memories stay its own.
    const mine = await new MemRetriever({ stack, principal: ops }).invoke('pager rota');
    expect(mine.map((d) => d.metadata.name)).toContain('pager rota');
    expect((await retriever.invoke('pager rota')).map((d) => d.metadata.name)).not.toContain('pager rota');
  });

  it('limit, minSimilarity and the memory-search filters', async () => {
    const { stack } = await seeded();
    const names = async (options: Partial<ConstructorParameters<typeof MemRetriever>[0]>, q = 'billing staging') =>
      (await new MemRetriever({ stack, principal: ana, ...options }).invoke(q)).map((d) => d.metadata.name);
    expect(await names({ limit: 1 })).toEqual(['staging reset']);
    expect((await names({ limit: 3 })).length).toBeLessThanOrEqual(3);
    expect(await names({ filter: { keyPrefix: '/office/' } }, 'when is the coffee machine descaled')).toEqual([
      'coffee',
    ]);
    expect((await names({ filter: { tags: ['billing'] } }, 'database reset or approvals')).sort()).toEqual([
      'prod approvals',
      'staging reset',
    ]);
    expect(await names({ filter: { source: 'distilled' } })).toEqual([]);
    expect(await names({ filter: { scope: 'agent' } })).toEqual([]);
    expect(await names({ filter: { asOf: '2000-01-01' } })).toEqual([]);
    // minSimilarity drops what is less like the query than asked; every kept document says so.
    const all = await new MemRetriever({ stack, principal: ana }).invoke('billing staging');
    const cut = (all[0]!.metadata.similarity! + all.at(-1)!.metadata.similarity!) / 2;
    const kept = await new MemRetriever({ stack, principal: ana, minSimilarity: cut }).invoke('billing staging');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(all.length);
    for (const d of kept) expect(d.metadata.similarity).toBeGreaterThanOrEqual(cut);
  });

  it('mode recall: what the recall block would hold, with its confidence, above the threshold', async () => {
    const { stack } = await seeded();
    const recall = new MemRetriever({ stack, principal: ana, mode: 'recall' });
    const docs = await recall.invoke('When is the staging database reset?');
    expect(docs.map((d) => d.metadata.name)).toContain('staging reset');
    expect(docs[0]!.metadata.name).toBe('staging reset');
    for (const d of docs) expect(d.metadata.confidence).toBeGreaterThan(0);
    const everything = await new MemRetriever({
      stack,
      principal: ana,
      mode: 'recall',
      threshold: 0,
      limit: 10,
    }).invoke('When is the staging database reset?');
    expect(everything.length).toBeGreaterThan(docs.length);
    const top = docs[0]!.metadata.confidence!;
    const strict = await new MemRetriever({ stack, principal: ana, mode: 'recall', threshold: top }).invoke(
      'When is the staging database reset?',
    );
    for (const d of strict) expect(d.metadata.confidence).toBeGreaterThanOrEqual(top);
  });

  it('memories about a user are found only for that user', async () => {
    const { stack } = await seeded();
    // A memory distilled from what Ana said is about her: any agent acting for her finds it, no one else does.
    await stack.distill(ana, { messages: [{ role: 'user', content: 'I prefer aisle seats on long flights.' }] });
    const forAna = await new MemRetriever({ stack, principal: { ...ana, agentId: 'concierge' } }).invoke('aisle seats');
    const seat = forAna.find((d) => d.pageContent.includes('aisle seats'));
    expect(seat?.metadata).toMatchObject({ source: 'distilled', userId: 'ana' });
    const forBen = await new MemRetriever({ stack, principal: { ...ana, userId: 'ben' } }).invoke('aisle seats');
    expect(forBen.map((d) => d.pageContent).join('\n')).not.toContain('aisle seats');
  });

  it('works in LCEL: pipe, batch, and a prompt → model chain', async () => {
    const { stack } = await seeded();
    const retriever = new MemRetriever({ stack, principal: ana, limit: 2 });
    const texts = retriever.pipe((docs: Document[]) => docs.map((d) => d.pageContent));
    expect((await texts.invoke('staging database reset'))[0]).toContain('every Sunday');
    const [a, b] = await retriever.batch(['staging database reset', 'coffee machine descaled']);
    expect(a![0]!.metadata.name).toBe('staging reset');
    expect(b![0]!.metadata.name).toBe('coffee');

    const sent: string[] = [];
    const chain = RunnablePassthrough.assign({
      context: RunnableLambda.from((i: { question: string }) => i.question)
        .pipe(retriever)
        .pipe((docs: Document[]) => docs.map((d) => d.pageContent).join('\n')),
    })
      .pipe(
        ChatPromptTemplate.fromMessages([
          ['system', 'Context:\n{context}'],
          ['human', '{question}'],
        ]),
      )
      .pipe(
        RunnableLambda.from((p: { toString(): string }) => {
          sent.push(p.toString());
          return p;
        }),
      )
      .pipe(new FakeListChatModel({ responses: ['Sunday, 02:00 UTC.'] }));
    const answer = await chain.invoke({ question: 'When is the staging database reset?' });
    expect(answer.content).toBe('Sunday, 02:00 UTC.');
    expect(sent[0]).toContain('The staging database is reset every Sunday at 02:00 UTC.');
  });

  it('refuses bad input with MemErrors of stable codes and clear messages', async () => {
    const { stack } = await seeded();
    const retriever = new MemRetriever({ stack, principal: ana });
    const bad: [() => unknown, string, string][] = [
      [() => new MemRetriever(undefined as never), 'INVALID_INPUT', 'needs { stack, principal }'],
      [() => new MemRetriever({ principal: ana } as never), 'INVALID_INPUT', '`stack`'],
      [() => new MemRetriever({ stack, principal: undefined as never }), 'INVALID_INPUT', 'principal'],
      [() => new MemRetriever({ stack, principal: { ...ana, space: '' } }), 'INVALID_INPUT', 'space'],
      [() => new MemRetriever({ stack, principal: { ...ana, role: 'boss' as never } }), 'INVALID_INPUT', 'role'],
      [() => new MemRetriever({ stack, principal: ana, mode: 'fuzzy' as never }), 'INVALID_INPUT', 'mode'],
      [() => new MemRetriever({ stack, principal: ana, limit: 0 }), 'INVALID_INPUT', 'limit'],
      [() => new MemRetriever({ stack, principal: ana, limit: 51 }), 'INVALID_INPUT', 'limit'],
      [() => new MemRetriever({ stack, principal: ana, minSimilarity: 2 }), 'INVALID_INPUT', 'minSimilarity'],
      [() => new MemRetriever({ stack, principal: ana, threshold: 0.5 }), 'INVALID_INPUT', 'mode "recall"'],
      [
        () => new MemRetriever({ stack, principal: ana, mode: 'recall', filter: { tags: ['x'] } }),
        'INVALID_INPUT',
        'takes no filter',
      ],
      [
        () => new MemRetriever({ stack, principal: ana, filter: { colour: 'red' } as never }),
        'INVALID_INPUT',
        'colour',
      ],
      [
        () => new MemRetriever({ stack, principal: ana, filter: { tags: 'billing' as never } }),
        'INVALID_INPUT',
        'tags',
      ],
      [() => new MemRetriever({ stack, principal: ana, filter: { asOf: 'yesterday' } }), 'INVALID_INPUT', 'asOf'],
      [() => retriever.invoke(''), 'INVALID_INPUT', 'non-empty text'],
      [() => retriever.invoke('   '), 'INVALID_INPUT', 'non-empty text'],
      [() => retriever.invoke({ query: 'x' } as never), 'INVALID_INPUT', 'pass the query text itself'],
    ];
    for (const [run, code, text] of bad) {
      const error = await (async () => run())().then(
        () => null,
        (e) => e,
      );
      expect(MemError.is(error, code as never), `${text}: ${String(error)}`).toBe(true);
      expect(error.message).toContain(text);
    }
  });
});
