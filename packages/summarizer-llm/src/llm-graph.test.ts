import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  type Principal,
} from '@mem/core';
import { ManualClock } from '@mem/core/adapter';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmStatementExtractor } from './index.js';

// The LLM extractor names the entities and relations of each fact, and distillation writes them to the memory graph
// (docs/graph.md). The real openai SDK against a scripted OpenAI-compatible server on 127.0.0.1.

let fake: Awaited<ReturnType<typeof startFakeChatServer>>;
const script: string[] = [];
const schemas: unknown[] = [];

beforeAll(async () => {
  fake = await startFakeChatServer(({ body }, send) => {
    schemas.push((body as { response_format?: { json_schema?: { schema: unknown } } }).response_format?.json_schema);
    const content = script.shift();
    if (content === undefined) return send(500, { error: { message: 'nothing scripted', type: 'server_error' } });
    send(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 400, completion_tokens: 90, total_tokens: 490 },
    });
  });
});
afterAll(() => fake.close());

const fact = (over: Record<string, unknown>) => ({
  subject: 'user',
  single: true,
  stance: 'for',
  polarity: 'holds',
  validFrom: null,
  validTo: null,
  evidence: ['m1'],
  about: null,
  entities: [],
  relations: [],
  ...over,
});

describe('the LLM extractor feeds the memory graph', () => {
  it('names entities and relations per fact; memories know their entities; a move closes the old edge', async () => {
    const me: Principal = { space: 'home', agentId: 'assistant', role: 'worker', userId: 'u7' };
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      structured: createInMemoryStructuredStores(),
      embedder: createHashingEmbedder({ dimension: 64 }),
      clock: new ManualClock('2026-05-10T12:00:00.000Z'),
      extractor: createLlmStatementExtractor({ baseURL: fake.baseURL, model: 'scripted', maxRetries: 0 }),
    });
    const said = 'I moved to Lisbon for my job at Acme Corp, which is based there.';
    script.push(
      JSON.stringify({
        memories: [
          fact({
            attribute: 'residence',
            value: 'Lisbon',
            statement: 'User lives in Lisbon.',
            kind: 'residence',
            entities: [{ name: 'Lisbon', type: 'place' }],
            relations: [{ from: 'user', type: 'lives in', to: 'Lisbon' }],
          }),
          fact({
            attribute: 'employer',
            value: 'Acme Corp',
            statement: 'User works at Acme Corp, based in Lisbon.',
            kind: 'employer',
            entities: [
              { name: 'Acme Corp', type: 'organization' },
              { name: 'lisbon', type: 'place' },
              { name: '!!!', type: 'place' },
              { name: 'Nowhere', type: 'Two Words!' },
            ],
            relations: [
              { from: 'User', type: 'works_at', to: 'Acme Corp' },
              { from: 'Acme Corp', type: 'located_in', to: 'Lisbon' },
              { from: 'Acme Corp', type: 'rivals', to: 'Globex' },
              { from: 'user', type: 'works-at', to: 'user' },
            ],
          }),
        ],
      }),
    );
    const first = await stack.distill(me, {
      messages: [{ id: 'turn-1', role: 'user', content: said, at: '2026-05-01T09:00:00.000Z' }],
    });
    // The answer's schema asks for both lists; what cannot be used is left out, each said, the facts kept.
    expect(JSON.stringify(schemas[0])).toContain('"relations"');
    expect(first.decisions.map((d) => d.decision)).toEqual(['add', 'add']);
    const notes = first.failures.map((f) => f.code);
    expect(notes).toEqual(['bad-graph', 'bad-graph', 'bad-graph', 'bad-graph']);
    expect(first.failures.map((f) => f.message).join('\n')).toMatch(/"Globex"/);

    const memories = await stack.knowledge.search(me, { query: 'Lisbon Acme' });
    const claims = Object.fromEntries(memories.map((m) => [m.claim?.attribute, m.claim?.entities]));
    // Names as the extractor wrote them: each resolves to its entity ("lisbon" is Lisbon).
    expect(claims).toEqual({ residence: ['User u7', 'Lisbon'], employer: ['User u7', 'Acme Corp', 'lisbon'] });
    expect((await stack.graph!.openNodes(me, { names: ['lisbon'] })).entities.map((e) => e.name)).toEqual(['Lisbon']);

    const graph = stack.graph!;
    const around = await graph.neighbours(me, { name: 'User u7', hops: 2 });
    expect(around.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort()).toEqual([
      'Acme Corp located_in Lisbon',
      'User u7 lives_in Lisbon',
      'User u7 works_at Acme Corp',
    ]);
    // The user's entity answers to the user's id too.
    expect((await graph.openNodes(me, { names: ['u7'] })).entities.map((e) => e.name)).toEqual(['User u7']);
    const lisbon = await graph.openNodes(me, { names: ['Lisbon'] });
    expect(lisbon.entities[0]?.observations).toEqual([
      'User lives in Lisbon.',
      'User works at Acme Corp, based in Lisbon.',
    ]);

    // A move: the residence memory is superseded and its edge closed; the office stays in Lisbon.
    script.push(
      JSON.stringify({
        memories: [
          fact({
            attribute: 'residence',
            value: 'Porto',
            statement: 'User lives in Porto.',
            kind: 'residence',
            about: 'r1',
            entities: [{ name: 'Porto', type: 'place' }],
            relations: [{ from: 'user', type: 'lives_in', to: 'Porto' }],
          }),
        ],
      }),
    );
    const second = await stack.distill(me, {
      messages: [{ id: 'turn-2', role: 'user', content: 'We moved to Porto now.', at: '2026-05-08T09:00:00.000Z' }],
    });
    expect(second.decisions.map((d) => d.decision)).toEqual(['update']);
    const now = await graph.neighbours(me, { name: 'User u7', hops: 2 });
    expect(now.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort()).toEqual([
      'Acme Corp located_in Lisbon',
      'User u7 lives_in Porto',
      'User u7 works_at Acme Corp',
    ]);
    // World time: Lisbon from the first message's time until the move's, kept in the history.
    const history = await graph.history(me, { name: 'Lisbon' });
    expect(history.relations.find((r) => r.relationType === 'lives_in')).toMatchObject({
      validFrom: '2026-05-01T09:00:00.000Z',
      validTo: '2026-05-08T09:00:00.000Z',
    });
  });
});
