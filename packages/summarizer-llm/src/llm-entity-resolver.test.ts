import { createInMemoryKnowledgeStore, createInMemoryStructuredStores, createStack, type Principal } from '@mem/core';
import { SECRET_EXAMPLES, startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLlmEntityResolver } from './index.js';

// The model as the memory graph's last resolution step (docs/graph.md): the real openai SDK against a scripted
// OpenAI-compatible server on 127.0.0.1 that answers well, badly or not at all.

let fake: Awaited<ReturnType<typeof startFakeChatServer>>;
let script: ({ content: string } | { status: number })[] = [];
let seen: string[] = [];

beforeAll(async () => {
  fake = await startFakeChatServer(({ body, raw }, send) => {
    seen.push(raw);
    const reply = script.shift() ?? { status: 500 };
    if ('status' in reply) return send(reply.status, { error: { message: 'down', type: 'server_error' } });
    send(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [
        { index: 0, message: { role: 'assistant', content: reply.content, refusal: null }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 6, total_tokens: 126 },
    });
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  script = [];
  seen = [];
});

const me: Principal = { space: 'crm', agentId: 'assistant', role: 'worker' };

async function graphWith() {
  const warnings: string[] = [];
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    structured: createInMemoryStructuredStores(),
    entityResolver: createLlmEntityResolver({ baseURL: fake.baseURL, model: 'scripted', maxRetries: 0 }),
    logger: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} },
  });
  const graph = stack.graph!;
  await graph.createEntities(me, {
    entities: [
      { name: 'Robert Smith', entityType: 'person', observations: ['Head of sales at Acme'] },
      { name: 'Bolivia', entityType: 'place', observations: [] },
    ],
  });
  return { graph, warnings };
}

const names = async (graph: Awaited<ReturnType<typeof graphWith>>['graph']) =>
  (await graph.readGraph(me)).entities.map((e) => e.name).sort();

describe('the LLM entity resolver', () => {
  it('joins a name the model says is a known entity, logged with the resolver and undoable', async () => {
    const { graph } = await graphWith();
    script.push({ content: '```json\n{"match": 1}\n```' });
    await graph.createEntities(me, {
      entities: [{ name: 'Bob Smith', entityType: 'person', observations: ['Runs the Acme sales team'] }],
    });
    expect(await names(graph)).toEqual(['Bolivia', 'Robert Smith']);
    expect((await graph.openNodes(me, { names: ['Bob Smith'] })).entities[0]?.observations).toEqual([
      'Head of sales at Acme',
      'Runs the Acme sales team',
    ]);
    // The model saw the new name with what is known of it and the candidate of its type only.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('Bob Smith');
    expect(seen[0]).toContain('Head of sales at Acme');
    expect(seen[0]).not.toContain('Bolivia');
    const merge = (await graph.history(me, { name: 'Bob Smith' })).log.find((l) => l.decision === 'merge');
    expect(merge?.detail).toMatchObject({ resolution: 'model', kind: 'model', resolver: 'llm:scripted' });
    await graph.unmerge(me, { entity: 'Bob Smith' });
    expect(await names(graph)).toEqual(['Bob Smith', 'Bolivia', 'Robert Smith']);
  });

  it('keeps the name new when the model says none, answers badly or not at all; a failure is logged', async () => {
    const { graph, warnings } = await graphWith();
    script.push(
      { content: '{"match": null}' },
      { content: 'It is probably the first one.' },
      { content: '{"match": 9}' },
    );
    script.push({ status: 500 });
    for (const name of ['Bobby Smith', 'Rob Smith', 'Roberta Smith', 'Robbie Smith'])
      await graph.createEntities(me, { entities: [{ name, entityType: 'person', observations: [] }] });
    expect(await names(graph)).toEqual([
      'Bobby Smith',
      'Bolivia',
      'Rob Smith',
      'Robbie Smith',
      'Robert Smith',
      'Roberta Smith',
    ]);
    expect(seen).toHaveLength(4);
    expect(warnings).toHaveLength(3);
    expect(warnings.every((w) => w.startsWith('entity resolution: the model failed'))).toBe(true);
  });

  it('asks nothing without a candidate of the type, and sends no secret', async () => {
    const { graph } = await graphWith();
    await graph.createEntities(me, { entities: [{ name: 'Zanzibar', entityType: 'place', observations: [] }] });
    expect(seen).toEqual([]);
    // A secret in the new entity's observations stops the write before any resolution: nothing reaches the model.
    const secret = SECRET_EXAMPLES[0]!.caught[0]!;
    script.push({ content: '{"match": null}' });
    const write = graph.createEntities(me, {
      entities: [{ name: 'Rob Smith', entityType: 'person', observations: [`note ${secret}`] }],
    });
    await expect(write).rejects.toMatchObject({ code: 'SECRET_DETECTED' });
    expect(seen).toEqual([]);
  });
});
