import type { IncomingHttpHeaders } from 'node:http';
import { type Episode, MemError } from '@mem/core';
import type { EpisodeCluster, Logger } from '@mem/core/adapter';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createLlmFactExtractor,
  DEFAULT_FACT_PROMPT,
  type LlmFactExtractorOptions,
  MAX_EXTRACTION_EPISODES,
} from './index.js';

// A real OpenAI-compatible server on 127.0.0.1 (node:http), POST /v1/chat/completions, recording every request body.
// The model name picks the answer, so the tests share one server:
//   'clean'     → a strict JSON array
//   'fenced'    → the array in a ```json fence, with prose before and after
//   'wrapped'   → {"facts": [...]}
//   'broken'    → trailing commas, single quotes, unquoted keys, Python True
//   'mixed'     → valid items among invalid ones (bad kind, no value, a string, a repeated key, a count in a key…)
//   'cut'       → an answer cut by the token limit (finish_reason "length") in the middle of the third fact
//   'none'      → []
//   'garbage'   → prose, no JSON
//   'all-bad'   → a list whose every item is invalid
//   'down'      → 500
//   'locked'    → 401 echoing the Authorization header it got

interface Seen {
  body: {
    model: string;
    temperature?: number;
    max_tokens?: number;
    messages: { role: string; content: string }[];
  };
  raw: string;
  headers: IncomingHttpHeaders;
}

const USAGE = { prompt_tokens: 900, completion_tokens: 120, total_tokens: 1020 };
const FACT_A = {
  key: 'tool.deploy-tool.success-usage',
  value: { statement: 'deploy_tool is used in most successful deploys.' },
  evidence: ['e1', 'e2', 'e-unknown'],
};
const FACT_B = {
  key: 'pitfall.friday-deploys.rollback-needed',
  value: 'Friday deploys needed rollbacks.',
  evidence: 'e3',
};
const FACT_C = { key: 'preference.code-review.small-pull-requests', value: 'The team prefers small pull requests.' };

const ANSWERS: Record<string, string> = {
  clean: JSON.stringify([FACT_A, FACT_B]),
  fenced: `Sure — here are the durable facts I found [2 of them]:\n\n\`\`\`json\n${JSON.stringify([FACT_A, FACT_B], null, 2)}\n\`\`\`\n\nLet me know if you need more.`,
  wrapped: JSON.stringify({ facts: [FACT_A, FACT_B] }),
  broken: `[
  {key: 'tool.deploy-tool.success-usage', value: {statement: 'deploy_tool is used in most successful deploys.',}, evidence: ['e1', 'e2',],},
  {'key': 'pitfall.friday-deploys.rollback-needed', 'value': "Friday deploys needed rollbacks.", 'evidence': 'e3', 'confirmed': True},
]`,
  mixed: JSON.stringify([
    FACT_A,
    { key: 'weather.today.sunny', value: 'It was sunny.' },
    { key: 'practice.deploy.canary-first' },
    'tool.deploy.something',
    { key: 'tool.deploy-tool.success-usage', value: 'again' },
    { key: 'Tools.DeployTool.used_5_times', value: 'Used five times.', source: 'user', topic: 'ops' },
    { key: 'practice.releases.tag-before-deploy', value: '   ' },
    { key: 'tag.deploy.2026-03-01', value: 'A deploy happened.' },
    { key: 'practice.deploy.canary-first', value: 'Canary first.', topic: '../etc' },
    FACT_C,
  ]),
  cut: `[${JSON.stringify(FACT_A)}, ${JSON.stringify(FACT_B)}, {"key": "preference.code-review.small-pull-requests", "value": "The team pref`,
  none: '[]',
  garbage: "I'm sorry, but I can't find any durable facts in these episodes. Maybe try again later!",
  'all-bad': JSON.stringify([{ key: 'nonsense' }, { value: 'no key' }]),
};

let fake: Awaited<ReturnType<typeof startFakeChatServer>>;
let baseURL: string;
let seen: Seen[] = [];

beforeAll(async () => {
  fake = await startFakeChatServer(async ({ body, raw, headers }, send) => {
    seen.push({ body, raw, headers });
    if (body.model === 'down') return send(500, { error: { message: 'the GPU caught fire', type: 'server_error' } });
    if (body.model === 'locked')
      return send(401, { error: { message: `Incorrect API key provided: ${headers.authorization}` } });
    const content = ANSWERS[body.model];
    if (content === undefined) return send(404, { error: { message: `model ${body.model} not found` } });
    return send(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [
        { index: 0, message: { role: 'assistant', content }, finish_reason: body.model === 'cut' ? 'length' : 'stop' },
      ],
      usage: USAGE,
    });
  });
  baseURL = fake.baseURL;
});

afterAll(() => fake.close());

beforeEach(() => {
  seen = [];
});

const at = (i: number) => new Date(Date.UTC(2026, 2, 10 - i, 12)).toISOString();
const episode = (id: string, i: number, over: Partial<Episode> = {}): Episode => ({
  id,
  summary: `Deployed the web app (${id}).`,
  keyDecisions: ['Use the canary first.'],
  toolsUsed: ['deploy_tool'],
  outcome: 'success',
  sessionId: null,
  timestamp: at(i),
  tags: ['deploy'],
  metadata: { note: 'metadata stays home' },
  ...over,
});
/** Newest first, as the pipeline gives them. */
const episodes: Episode[] = [
  episode('e1', 0),
  episode('e2', 1),
  episode('e3', 2, { outcome: 'failure', summary: 'Friday deploy broke checkout; rolled back.' }),
];
const clusters: EpisodeCluster[] = [
  { id: 'tag:deploy', label: 'episodes tagged "deploy"', tag: 'deploy', episodeIds: ['e1', 'e2', 'e3'] },
];
const input = { space: 'acme', episodes, clusters };

const make = (o: Partial<LlmFactExtractorOptions> & { model: string }) =>
  createLlmFactExtractor({ baseURL, maxRetries: 0, ...o });

async function failure(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(MemError.is(error), `expected a MemError, got ${String(error)}`).toBe(true);
  return error as MemError;
}

const expectedA = {
  key: FACT_A.key,
  value: FACT_A.value,
  evidence: ['e1', 'e2'], // the unknown id is dropped
};
const expectedB = { key: FACT_B.key, value: FACT_B.value, evidence: ['e3'] };

describe('LLM fact extractor', () => {
  it('sends the episodes newest first and the clusters, compactly, and reads clean JSON with usage', async () => {
    const x = make({ model: 'clean', apiKey: 'sk-test' });
    expect(x.id).toBe('llm:clean');
    const r = await x.extract(input);
    expect(r.facts).toEqual([expectedA, expectedB]);
    expect(r.skipped).toEqual([]);
    expect(r.renamed).toEqual([]);
    expect(r.repairs).toEqual([]);
    expect(r.usage).toEqual({ inputTokens: 900, outputTokens: 120, totalTokens: 1020 });

    expect(seen).toHaveLength(1);
    const { body, headers } = seen[0]!;
    expect(headers.authorization).toBe('Bearer sk-test');
    expect(body).toMatchObject({ model: 'clean', temperature: 0, max_tokens: 2048 });
    expect(body.messages[0]).toEqual({ role: 'system', content: DEFAULT_FACT_PROMPT });
    expect(DEFAULT_FACT_PROMPT).toContain('<kind>.<subject>.<aspect>');
    const lines = body.messages[1]!.content.split('\n');
    expect(lines[0]).toBe('Episodes, newest first (3), one JSON object per line:');
    expect(JSON.parse(lines[1]!)).toEqual({
      id: 'e1',
      at: '2026-03-10',
      outcome: 'success',
      summary: 'Deployed the web app (e1).',
      decisions: ['Use the canary first.'],
      tools: ['deploy_tool'],
      tags: ['deploy'],
    });
    expect(lines.slice(1, 4).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['e1', 'e2', 'e3']);
    expect(body.messages[1]!.content).toContain(
      '{"id":"tag:deploy","label":"episodes tagged \\"deploy\\"","tag":"deploy","episodes":["e1","e2","e3"]}',
    );
    expect(body.messages[1]!.content).not.toContain('metadata stays home');
  });

  it('reads JSON in a code fence with prose around it, and an object wrapper', async () => {
    const fenced = await make({ model: 'fenced' }).extract(input);
    expect(fenced.facts).toEqual([expectedA, expectedB]);
    expect(fenced.repairs).toContain('took the JSON out of a code fence');
    const wrapped = await make({ model: 'wrapped' }).extract(input);
    expect(wrapped.facts).toEqual([expectedA, expectedB]);
    expect(wrapped.skipped).toEqual([]);
  });

  it('repairs broken JSON: trailing commas, single quotes, unquoted keys, Python literals', async () => {
    const r = await make({ model: 'broken' }).extract(input);
    expect(r.facts).toEqual([expectedA, expectedB]);
    expect(r.repairs).toEqual(
      expect.arrayContaining([
        'removed a trailing comma',
        'turned single or typographic quotes into double quotes',
        'quoted unquoted keys',
      ]),
    );
  });

  it('keeps the valid items, normalises keys it can and skips the others with a reason, and logs them', async () => {
    const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const logger: Logger = {
      info: (message, fields) => logged.push({ level: 'info', message, fields }),
      warn: (message, fields) => logged.push({ level: 'warn', message, fields }),
      error: (message, fields) => logged.push({ level: 'error', message, fields }),
    };
    const r = await make({ model: 'mixed', logger }).extract(input);
    expect(r.facts).toEqual([
      expectedA,
      { key: 'tool.deploy-tool.used-times', value: 'Used five times.', topic: 'ops' }, // no `source`: never the model's
      { key: FACT_C.key, value: FACT_C.value },
    ]);
    expect(r.renamed).toEqual([{ index: 5, from: 'Tools.DeployTool.used_5_times', to: 'tool.deploy-tool.used-times' }]);
    expect(r.skipped.map((s) => s.index)).toEqual([1, 2, 3, 4, 6, 7, 8]);
    const reason = (i: number) => r.skipped.find((s) => s.index === i)!.reason;
    expect(reason(1)).toMatch(/kind "weather", which is not one of tool/);
    expect(reason(2)).toMatch(/"practice.deploy.canary-first" has no value/);
    expect(reason(3)).toMatch(/item is a string, not an object/);
    expect(reason(4)).toMatch(/repeats the key of item 0/);
    expect(reason(6)).toMatch(/has an empty value/);
    expect(reason(7)).toMatch(/2 usable segments/);
    expect(reason(8)).toMatch(/Invalid topic name "..\/etc"/);
    const warn = logged.find((l) => l.level === 'warn')!;
    expect(warn.message).toBe('summarizer-llm: fact extractor "llm:mixed" skipped 7 of 10 proposed facts');
    expect(warn.fields).toEqual({ extractor: 'llm:mixed', skipped: r.skipped });
    expect(logged.some((l) => l.level === 'info' && /normalised 1 keys/.test(l.message))).toBe(true);
  });

  it('keeps the complete facts of an answer cut by the token limit', async () => {
    const r = await make({ model: 'cut' }).extract(input);
    expect(r.facts).toEqual([expectedA, expectedB]);
    expect(r.repairs).toContain('dropped a truncated last element');
  });

  it('takes [] as "no facts" without throwing, and sends nothing for no episodes', async () => {
    const r = await make({ model: 'none' }).extract(input);
    expect(r.facts).toEqual([]);
    expect(r.skipped).toEqual([]);
    expect(seen).toHaveLength(1);
    const empty = await make({ model: 'none' }).extract({ space: 'acme', episodes: [], clusters: [] });
    expect(empty).toMatchObject({ facts: [], usage: { totalTokens: 0 } });
    expect(seen).toHaveLength(1);
  });

  it('throws a non-retryable INTERNAL MemError on garbage or when every item is invalid, so the pipeline falls back', async () => {
    const garbage = await failure(make({ model: 'garbage' }).extract(input));
    expect(garbage.code).toBe('INTERNAL');
    expect(garbage.retryable).toBe(false);
    expect(garbage.message).toMatch(
      /^summarizer-llm: fact extractor "llm:garbage": model "garbage" gave no JSON list of facts; the answer began "I'm sorry/,
    );
    expect(garbage.details).toMatchObject({
      extractor: 'llm:garbage',
      failure: 'unparseable',
      usage: { totalTokens: 1020 },
    });

    const allBad = await failure(make({ model: 'all-bad' }).extract(input));
    expect(allBad.code).toBe('INTERNAL');
    expect(allBad.message).toMatch(/every one of the 2 facts model "all-bad" proposed failed validation/);
    expect(allBad.message).toMatch(
      /\(#0: the key "nonsense" has 1 usable segment; keys are <kind>\.<subject>\.<aspect>; #1: the key is missing\)\.$/,
    );
    expect(allBad.details).toMatchObject({ failure: 'no-valid-facts' });
  });

  it('throws a retryable INTERNAL MemError on a 500 (after the SDK retries) and on an unreachable server', async () => {
    const down = await failure(make({ model: 'down', maxRetries: 1 }).extract(input));
    expect(down.code).toBe('INTERNAL');
    expect(down.retryable).toBe(true);
    expect(down.message).toMatch(/model "down" failed: the server answered 500/);
    expect(down.details).toMatchObject({ failure: 'http', status: 500 });
    expect(seen).toHaveLength(2); // one retry

    const nowhere = await failure(
      createLlmFactExtractor({ baseURL: 'http://127.0.0.1:9/v1', model: 'clean', maxRetries: 0 }).extract(input),
    );
    expect(nowhere.retryable).toBe(true);
    expect(nowhere.message).toMatch(/could not be reached/);
  });

  it('never sends a secret found in the episodes, and never puts the API key in an error', async () => {
    const secrets = {
      openai: `sk-proj-${'A1b2C3d4E5'.repeat(4)}`,
      github: `ghp_${'x1Y2z3W4v5'.repeat(4)}`,
      aws: 'AKIAIOSFODNN7EXAMPLE',
      password: 'hunter2-Sup3r',
      url: 'postgres://admin:s3cr3t-pw@db.internal:5432/app',
    };
    const leaky: Episode[] = [
      episode('e1', 0, {
        summary: `Rotated the key ${secrets.openai} and pushed with ${secrets.github}. ${'x'.repeat(990)}`,
        keyDecisions: [`Set password=${secrets.password} on staging`],
        toolsUsed: ['deploy_tool'],
      }),
      // A secret that straddles the cut at 1,000 characters is redacted before the cut, so no part of it leaks.
      episode('e2', 1, { summary: `${'y'.repeat(985)} ${secrets.aws} then ${secrets.url}` }),
      episode('e3', 2, { tags: [`deploy`, secrets.github] }),
    ];
    await make({ model: 'clean' }).extract({ space: 'acme', episodes: leaky, clusters });
    const sent = seen[0]!.raw;
    for (const [name, secret] of Object.entries(secrets)) expect(sent, name).not.toContain(secret);
    expect(sent).not.toContain('AKIAIOSF');
    expect(sent).not.toContain(secrets.openai.slice(0, 20));
    expect(sent).toContain('[REDACTED:openai-api-key]');
    expect(sent).toContain('[REDACTED:github-token]');
    expect(sent).toContain('[REDACTED:password-assignment]');

    const wrongKey = 'wrong-key-0123456789';
    const locked = await failure(make({ model: 'locked', apiKey: wrongKey }).extract(input));
    expect(locked.message).toMatch(/401/);
    expect(locked.retryable).toBe(false);
    expect(JSON.stringify(locked)).not.toContain(wrongKey);
    expect(locked.message).not.toContain(wrongKey);
    expect(locked.cause).toBeUndefined();
  });

  it(`sends at most ${MAX_EXTRACTION_EPISODES} episodes, and only the clusters among them`, async () => {
    const many = Array.from({ length: 60 }, (_, i) => episode(`e${i}`, i % 9));
    const r = await make({ model: 'none' }).extract({
      space: 'acme',
      episodes: many,
      clusters: [
        { id: 'tag:old', label: 'old', tag: 'old', episodeIds: ['e55', 'e59'] },
        { id: 'tag:deploy', label: 'deploy', tag: 'deploy', episodeIds: many.map((e) => e.id) },
      ],
    });
    expect(r.facts).toEqual([]);
    const content = seen[0]!.body.messages[1]!.content;
    expect(content.split('\n')[0]).toBe('Episodes, newest first (50), one JSON object per line:');
    expect(content).toContain('"id":"e49"');
    expect(content).not.toContain('"id":"e50"');
    expect(content).not.toContain('tag:old');
    expect(content).not.toContain('"e50"');

    await make({ model: 'none', maxEpisodes: 2 }).extract(input);
    expect(seen[1]!.body.messages[1]!.content.split('\n')[0]).toBe(
      'Episodes, newest first (2), one JSON object per line:',
    );
  });

  it('refuses bad options with a message that says how to fix them', () => {
    expect(() => createLlmFactExtractor({ model: '' })).toThrow(/give the chat model name/);
    expect(() => createLlmFactExtractor({ model: 'm', baseURL: 'nope' })).toThrow(/is not a URL/);
    expect(() => createLlmFactExtractor({ model: 'm', maxEpisodes: 51 })).toThrow(/maxEpisodes/);
    expect(() => createLlmFactExtractor({ model: 'm', kinds: ['Tool'] })).toThrow(/kinds/);
    expect(() => createLlmFactExtractor({ model: 'm', maxRetries: -1 })).toThrow(/maxRetries/);
    expect(createLlmFactExtractor({ model: 'm', id: 'llm:custom' }).id).toBe('llm:custom');
  });
});
