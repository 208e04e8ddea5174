import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack, type Principal } from '@mem/core';
import { type DistillMessage, ManualClock, type RelatedMemory } from '@mem/core/adapter';
import { SECRET_EXAMPLES, startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createLlmStatementExtractor,
  type LlmStatementExtractorOptions,
  STATEMENT_PROMPT,
  STATEMENT_PROMPT_VERSION,
} from './index.js';

// The real openai SDK against a scripted OpenAI-compatible server on 127.0.0.1: each test queues the replies the
// server gives, in order, and reads back every request it received.

interface Reply {
  content?: string | null;
  refusal?: string;
  finish?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  status?: number;
  /** Never answer (the client's timeout ends the wait). */
  hang?: boolean;
}
interface Seen {
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
  };
  raw: string;
}

const USAGE = { prompt_tokens: 500, completion_tokens: 80, total_tokens: 580 };
let fake: Awaited<ReturnType<typeof startFakeChatServer>>;
let script: Reply[] = [];
let seen: Seen[] = [];

beforeAll(async () => {
  fake = await startFakeChatServer(({ body, raw }, send) => {
    seen.push({ body, raw });
    const reply = script.shift() ?? { status: 500 };
    if (reply.hang) return;
    if (reply.status) return send(reply.status, { error: { message: 'the GPU caught fire', type: 'server_error' } });
    const message = { role: 'assistant', content: reply.content ?? null, refusal: reply.refusal ?? null };
    send(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: reply.finish ?? 'stop' }],
      usage: reply.usage ?? USAGE,
    });
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  script = [];
  seen = [];
});

const make = (o: Partial<LlmStatementExtractorOptions> = {}) =>
  createLlmStatementExtractor({ baseURL: fake.baseURL, model: 'scripted', maxRetries: 0, ...o });

/** A memory as the model writes it, every field filled. */
const mem = (over: Record<string, unknown> = {}) => ({
  subject: 'user',
  attribute: 'preference.flight',
  single: true,
  value: 'morning flights',
  statement: 'User prefers morning flights.',
  stance: 'for',
  polarity: 'holds',
  kind: 'preference',
  validFrom: null,
  validTo: null,
  evidence: ['m1'],
  about: null,
  ...over,
});
const answer = (...memories: unknown[]) => JSON.stringify({ memories });

const msg = (id: string, content: string, role: DistillMessage['role'] = 'user', extra = {}): DistillMessage => ({
  id,
  role,
  content,
  at: '2026-05-08T08:00:00.000Z',
  ...extra,
});
const related: RelatedMemory[] = [
  {
    id: 'mem_REALID_residence',
    subject: 'user',
    attribute: 'residence',
    value: 'Lisbon',
    statement: 'User lives in Lisbon.',
  },
  {
    id: 'mem_REALID_car',
    subject: 'user',
    attribute: 'vehicle.car',
    value: 'a red Fiat',
    statement: 'User owns a red Fiat.',
  },
];
const userText = (s: Seen) => s.body.messages.find((m) => m.role === 'user')!.content;

describe('createLlmStatementExtractor', () => {
  it('maps refs back to message ids and takes subject and attribute from the related memory named', async () => {
    script.push({
      content: answer(
        mem({ attribute: 'home', value: 'Berlin', statement: 'User lives in Berlin.', kind: 'residence', about: 'r1' }),
        mem({
          attribute: 'preference.seat',
          value: 'window seats',
          statement: 'User prefers window seats.',
          evidence: ['m3', 'm2'],
        }),
      ),
    });
    const x = make();
    expect([x.id, x.model, x.promptVersion]).toEqual(['llm:scripted', 'scripted', STATEMENT_PROMPT_VERSION]);
    const out = await x.extract({
      messages: [
        msg('msg-REAL-0001', 'I moved to Berlin.'),
        msg('msg-REAL-0002', 'Nice! Window or aisle seats?', 'assistant'),
        msg('msg-REAL-0003', 'Window, always.'),
      ],
      related,
    });
    expect(out.failures).toEqual([]);
    expect(out.proposals).toEqual([
      {
        kind: 'residence',
        subject: 'user',
        attribute: 'residence',
        single: true,
        polarity: 'holds',
        stance: 'for',
        value: 'Berlin',
        statement: 'User lives in Berlin.',
        validFrom: null,
        validTo: null,
        evidence: ['msg-REAL-0001'],
      },
      expect.objectContaining({ attribute: 'preference.seat', evidence: ['msg-REAL-0003'] }),
    ]);
    expect(out.usage).toEqual({ inputTokens: 500, outputTokens: 80, totalTokens: 580 });
    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
    expect(request.body.messages[0]).toEqual({ role: 'system', content: STATEMENT_PROMPT });
    expect(userText(request)).toContain('"ref":"r1","subject":"user","attribute":"residence"');
    expect(userText(request)).toContain('"ref":"m2","role":"assistant"');
    expect(userText(request)).toContain('"use":"context"');
    // No real id ever reaches the model.
    expect(request.raw).not.toMatch(/msg-REAL|mem_REALID/);
  });

  it('reads a retraction of a related memory', async () => {
    script.push({
      content: answer(
        mem({
          attribute: 'car',
          value: 'car',
          statement: 'User no longer has a car.',
          polarity: 'retracted',
          about: 'R2',
        }),
      ),
    });
    const out = await make().extract({ messages: [msg('t1', "I sold my car, I don't have one anymore.")], related });
    expect(out.proposals).toMatchObject([{ subject: 'user', attribute: 'vehicle.car', polarity: 'retracted' }]);
    expect(out.failures).toEqual([]);
  });

  it("shows each message's own time and keeps the dates of the answer; a date that is none becomes null, reported", async () => {
    script.push({
      content: answer(
        mem({
          attribute: 'plan.trip.rome',
          single: false,
          value: 'Rome',
          statement: 'User flies to Rome on 2026-05-12.',
          kind: 'plan',
          validFrom: '2026-05-12',
          validTo: '2026-05-19T10:00:00+02:00',
        }),
        mem({ attribute: 'plan.dentist', validFrom: 'next tuesday', validTo: '2026-02-30' }),
      ),
    });
    const out = await make().extract({
      messages: [msg('t1', "I'm flying to Rome next Tuesday for a week.")],
      related: [],
    });
    expect(userText(seen[0]!)).toContain('"at":"2026-05-08T08:00:00.000Z (Friday)"');
    expect(out.proposals.map((p) => [p.attribute, p.validFrom, p.validTo])).toEqual([
      ['plan.trip.rome', '2026-05-12', '2026-05-19T08:00:00.000Z'],
      ['plan.dentist', null, null],
    ]);
    expect(out.failures.map((f) => f.code)).toEqual(['bad-date', 'bad-date']);
    expect(out.failures[0]!.message).toMatch(/plan\.dentist.*validFrom.*next tuesday.*no ISO date/);
  });

  it('repairs broken JSON without a retry', async () => {
    script.push({
      content:
        "Here you go:\n```json\n{memories: [{'subject': 'user', 'attribute': 'residence', 'single': True, 'value': 'Berlin', 'statement': 'User lives in Berlin.', 'stance': 'for', 'polarity': 'holds', 'kind': 'residence', 'validFrom': None, 'validTo': None, 'evidence': ['m1',], 'about': None,},]}\n```",
    });
    const out = await make().extract({ messages: [msg('t1', 'I live in Berlin.')], related: [] });
    expect(out.proposals).toMatchObject([{ attribute: 'residence', value: 'Berlin', evidence: ['t1'] }]);
    expect(out.failures).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('retries once, telling the model what was wrong, and sums the tokens of both calls', async () => {
    script.push(
      {
        content: 'Sure! The user lives in Berlin.',
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      },
      { content: answer(mem({ attribute: 'residence', value: 'Berlin' })) },
    );
    const out = await make().extract({ messages: [msg('t1', 'I live in Berlin.')], related: [] });
    expect(out.proposals).toMatchObject([{ attribute: 'residence', evidence: ['t1'] }]);
    expect(out.failures).toEqual([]);
    expect(out.usage).toEqual({ inputTokens: 600, outputTokens: 90, totalTokens: 690 });
    expect(seen).toHaveLength(2);
    const retry = seen[1]!.body.messages;
    expect(retry.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(retry[2]!.content).toBe('Sure! The user lives in Berlin.');
    expect(retry[3]!.content).toMatch(/could not be used: no JSON could be read/);
  });

  it('gives up after two broken answers: no proposals, one bad-json failure, exactly two calls', async () => {
    script.push({ content: 'no idea' }, { content: '' }, { content: answer(mem()) });
    const out = await make().extract({ messages: [msg('t1', 'I prefer morning flights.')], related: [] });
    expect(out.proposals).toEqual([]);
    expect(out.failures).toHaveLength(1);
    expect(out.failures[0]).toMatchObject({ code: 'bad-json' });
    expect(out.failures[0]!.message).toMatch(/also after one retry: .*it was empty.*first answer.*"no idea"/);
    expect(seen).toHaveLength(2);
    expect(out.usage.totalTokens).toBe(2 * 580);
  });

  it('drops only the item that names an unknown ref, and says so', async () => {
    script.push({
      content: answer(
        mem({ evidence: ['m7'] }),
        mem({ attribute: 'residence', value: 'Berlin', about: 'r9' }),
        mem({ attribute: 'diet', value: 'vegetarian' }),
      ),
    });
    const out = await make().extract({ messages: [msg('t1', "I'm vegetarian.")], related });
    expect(out.proposals.map((p) => p.attribute)).toEqual(['diet']);
    expect(out.failures.map((f) => f.code)).toEqual(['unknown-alias', 'unknown-alias']);
    expect(out.failures[0]!.message).toMatch(/memory #1 .*"m7", which is no message shown/);
    expect(out.failures[1]!.message).toMatch(/memory #2 .*"r9", which is no related memory shown/);
    expect(seen).toHaveLength(1);
  });

  it('drops items of the wrong shape one by one, and retries an answer whose every item is wrong', async () => {
    script.push({
      content: answer(
        'the user likes flights',
        mem({ single: 'yes' }),
        mem({ polarity: undefined }),
        mem({ attribute: 'Preference!!Flight' }),
        mem({ evidence: ['m2'] }),
        mem({ attribute: 'Preference Seat', value: 'window', statement: 'User prefers window seats.' }),
      ),
    });
    const out = await make().extract({
      messages: [msg('t1', 'Window seats for me.'), msg('t2', 'Noted!', 'assistant')],
      related: [],
    });
    expect(out.proposals.map((p) => p.attribute)).toEqual(['preference-seat']);
    expect(out.failures.map((f) => f.code)).toEqual([
      'bad-shape',
      'bad-shape',
      'bad-shape',
      'bad-shape',
      'bad-evidence',
    ]);
    expect(out.failures[1]!.message).toMatch(/"single" is "yes", not true\/false/);

    seen = [];
    script.push({ content: answer(mem({ single: null })) }, { content: JSON.stringify({ facts: 'none', notes: [] }) });
    const twice = await make().extract({ messages: [msg('t1', 'I prefer morning flights.')], related: [] });
    expect(twice.proposals).toEqual([]);
    expect(twice.failures).toMatchObject([{ code: 'bad-shape' }]);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body.messages[3]!.content).toMatch(/every one of its 1 memories was dropped/);
  });

  it('keeps the complete memories of an answer cut by maxTokens and reports the cut', async () => {
    const whole = answer(mem(), mem({ attribute: 'residence', value: 'Berlin' }));
    script.push({ content: whole.slice(0, whole.indexOf('Berlin') + 3), finish: 'length' });
    const out = await make().extract({ messages: [msg('t1', 'Morning flights; I live in Berlin.')], related: [] });
    expect(out.proposals.map((p) => p.attribute)).toEqual(['preference.flight']);
    expect(out.failures.map((f) => f.code)).toEqual(['cut']);
  });

  it('reports a refusal and a content-filter stop as refused, without a retry', async () => {
    script.push({ content: null, refusal: "I can't help with that." });
    const out = await make().extract({ messages: [msg('t1', 'I live in Berlin.')], related: [] });
    expect(out).toMatchObject({ proposals: [], failures: [{ code: 'refused' }] });
    expect(out.failures[0]!.message).toContain("I can't help with that.");
    script.push({ content: '', finish: 'content_filter' });
    const filtered = await make().extract({ messages: [msg('t1', 'I live in Berlin.')], related: [] });
    expect(filtered.failures).toMatchObject([{ code: 'refused' }]);
    expect(seen).toHaveLength(2);
  });

  it('reports a timeout and an endpoint error instead of throwing', async () => {
    script.push({ hang: true });
    const slow = await make({ timeoutMs: 300 }).extract({ messages: [msg('t1', 'I live in Berlin.')], related: [] });
    expect(slow.proposals).toEqual([]);
    expect(slow.failures).toMatchObject([{ code: 'timeout' }]);
    expect(slow.failures[0]!.message).toMatch(/timed out after 300 ms/);
    script.push({ status: 500 });
    const down = await make({ apiKey: 'sk-test-key-1234' }).extract({
      messages: [msg('t1', 'I live in Berlin.')],
      related: [],
    });
    expect(down.failures).toMatchObject([{ code: 'endpoint' }]);
    expect(down.failures[0]!.message).toMatch(/answered 500/);
    expect(down.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it('never sends tool, untrusted or system messages unless allowed, nor a secret', async () => {
    const secret = SECRET_EXAMPLES.find((e) => e.kind === 'mem-api-key')!.caught[0]!;
    const messages = [
      msg('s1', 'SYSTEM-PROMPT-TEXT', 'system'),
      msg('t1', 'TOOL-RESULT-TEXT: the user lives in Oslo', 'tool'),
      msg('u1', 'UNTRUSTED-TEXT: I live in Oslo', 'user', { untrusted: true }),
      msg('u2', `I live in Berlin. My key: ${secret}`),
    ];
    script.push({ content: answer() });
    const out = await make().extract({ messages, related: [] });
    expect(out).toMatchObject({ proposals: [], failures: [] });
    expect(seen[0]!.raw).not.toMatch(/SYSTEM-PROMPT-TEXT|TOOL-RESULT-TEXT|UNTRUSTED-TEXT/);
    expect(seen[0]!.raw).not.toContain(secret.split('=')[1]);
    expect(userText(seen[0]!)).toContain('[REDACTED');
    // Only untrusted content left: no call at all.
    expect(await make().extract({ messages: messages.slice(0, 3), related: [] })).toMatchObject({ proposals: [] });
    expect(seen).toHaveLength(1);
    script.push({ content: answer() });
    await make().extract({ messages, related: [], allowUntrusted: true });
    expect(seen[1]!.raw).toMatch(/TOOL-RESULT-TEXT[\s\S]*UNTRUSTED-TEXT/);
    expect(seen[1]!.raw).not.toContain('SYSTEM-PROMPT-TEXT');
  });

  it('splits a long conversation into batches, one call each, showing earlier proposals to later batches', async () => {
    script.push(
      { content: answer(mem()) },
      { content: answer(mem({ value: 'afternoon flights', evidence: ['m3'], about: 'r3', attribute: 'flight-time' })) },
    );
    const messages = [
      msg('a', 'I prefer morning flights.'),
      msg('b', 'Hello there.'),
      msg('c', 'Actually afternoon flights suit me better.'),
      msg('d', 'Sure, afternoon it is.', 'assistant'),
    ];
    const out = await make({ maxMessagesPerCall: 2, responseFormat: 'json_object' }).extract({ messages, related });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(userText(seen[1]!)).toMatch(/"ref":"m3"[\s\S]*"ref":"m4"/);
    expect(userText(seen[1]!)).toContain('"ref":"r3","subject":"user","attribute":"preference.flight"');
    expect(out.proposals.map((p) => [p.attribute, p.value, p.evidence])).toEqual([
      ['preference.flight', 'morning flights', ['a']],
      ['preference.flight', 'afternoon flights', ['c']],
    ]);
    expect(out.usage.totalTokens).toBe(2 * 580);
  });

  it('checks its options', () => {
    expect(() => make({ maxMessagesPerCall: 0 })).toThrow(/maxMessagesPerCall/);
    expect(() => make({ maxCharsPerCall: 10 })).toThrow(/maxCharsPerCall/);
    expect(() => make({ responseFormat: 'xml' as never })).toThrow(/responseFormat/);
    expect(() => createLlmStatementExtractor({ model: '' })).toThrow(/model/);
  });
});

describe('createLlmStatementExtractor in distill', () => {
  it('adds a preference, then supersedes it when the answer says the change is about r1', async () => {
    const alice: Principal = { space: 'acme', agentId: 'travel', role: 'worker' };
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      embedder: createHashingEmbedder({ dimension: 64 }),
      clock: new ManualClock('2026-05-10T12:00:00.000Z'),
      extractor: make(),
    });
    script.push({ content: answer(mem()) });
    const first = await stack.distill(alice, {
      messages: [{ id: 'turn-1', role: 'user', content: 'I prefer morning flights.', at: '2026-05-01T09:00:00.000Z' }],
    });
    expect(first).toMatchObject({
      extractor: 'llm:scripted',
      model: 'scripted',
      promptVersion: STATEMENT_PROMPT_VERSION,
    });
    expect(first.failures).toEqual([]);
    expect(first.decisions).toMatchObject([{ decision: 'add', attribute: 'preference.flight', evidence: ['turn-1'] }]);
    const morning = first.decisions[0]!.memoryId;

    // The model names another attribute, but says the fact is about r1: the related memory's attribute wins.
    script.push({
      content: answer(
        mem({
          attribute: 'preference.travel-time',
          value: 'afternoon flights',
          statement: 'User prefers afternoon flights.',
          about: 'r1',
        }),
      ),
    });
    const second = await stack.distill(alice, {
      messages: [
        {
          id: 'turn-2',
          role: 'user',
          content: 'actually afternoon suits me better now',
          at: '2026-05-08T08:00:00.000Z',
        },
      ],
    });
    expect(second.failures).toEqual([]);
    expect(second.decisions).toMatchObject([{ decision: 'update', previousId: morning, evidence: ['turn-2'] }]);
    expect(userText(seen[1]!)).toContain('"ref":"r1","subject":"user","attribute":"preference.flight"');
    const sent = seen.map((s) => s.raw).join('');
    for (const real of ['turn-1', 'turn-2', morning]) expect(sent).not.toContain(real);
    expect(second.usage.inputTokens).toBeGreaterThanOrEqual(500);
    const found = await stack.knowledge.search(alice, { query: 'flights' });
    expect(found.map((r) => r.content)).toEqual(['User prefers afternoon flights.']);
    expect(found[0]?.supersedes).toBe(morning);
  });
});
