/**
 * `mem bench formation` at a tiny size through the mem command: three dialogues of the set (one that changes its
 * mind twice, one with credentials said in passing, one of small talk) on both stores, the scores read from the
 * runs; then the `--llm-url` path against a scripted OpenAI-compatible server on 127.0.0.1 answering in the LLM
 * statement extractor's JSON shape, its row and tokens counted; bad flags refused. A smoke test of the command:
 * nothing here bounds a speed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, describe, expect, it } from 'vitest';
import type { Dialogue } from '../src/formation-data.js';
import { type Observed, scoreDialogue, summarise } from '../src/formation-score.js';

const MEM = fileURLToPath(new URL('../../cli/bin/mem-dev.js', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'mem-bench-formation-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  promisify(execFile)(process.execPath, [MEM, 'bench', 'formation', ...args, '--out', out], {
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, ...env },
  });

interface Summary {
  dialogues: number;
  probes: number;
  current_accuracy: number | null;
  stale: { probes: number; formed: number; count: number };
  duplicates: { count: number };
  false_memories: { count: number };
  secrets_stored: number;
  as_of: { probes: number; accuracy: number | null };
  messages: number;
  messages_per_s: number | null;
  tokens: { input: number; output: number };
}
interface Run {
  extractor: string;
  store: string;
  sets: { all: Summary; chat: Summary; prose: Summary };
  dialogues: { id: string; formed: number; current: number; missed: unknown[]; stale: unknown[] }[];
}

describe('mem bench formation', () => {
  it('scores a supersede chain, a secret said in passing and small talk on both stores, and writes its report', async () => {
    const ids = ['prose-edinburgh-glasgow-back', 'chat-api-key-in-passing', 'chat-small-talk'];
    const { stdout } = await run(['--only', ids.join(','), '--stores', 'in-memory,sqlite', '--json']);
    const r = JSON.parse(stdout) as { dialogues: number; runs: Run[] };
    expect(r.dialogues).toBe(3);
    expect(r.runs.map((x) => `${x.extractor}/${x.store}`)).toEqual(['offline/in-memory', 'offline/sqlite']);
    for (const x of r.runs) {
      expect(x.sets.all.dialogues).toBe(3);
      expect([x.sets.chat.dialogues, x.sets.prose.dialogues]).toEqual([2, 1]);
      // Edinburgh → Glasgow → Edinburgh: three versions formed, one current, the probe right, nothing stale.
      const chain = x.dialogues.find((d) => d.id === 'prose-edinburgh-glasgow-back')!;
      expect([chain.formed, chain.current]).toEqual([3, 1]);
      expect(chain.missed).toEqual([]);
      expect(x.sets.prose).toMatchObject({ probes: 1, current_accuracy: 1, stale: { probes: 1, formed: 1, count: 0 } });
      expect(x.sets.prose.as_of).toEqual({ probes: 2, accuracy: 1 });
      expect(x.sets.all.secrets_stored).toBe(0);
      expect(x.sets.all.false_memories.count).toBe(0);
      expect(x.sets.all.messages).toBe(4 + 8 + 6);
      expect(x.sets.all.messages_per_s).toBeGreaterThan(0);
      expect(x.sets.all.tokens).toEqual({ input: 0, output: 0 });
    }
    expect(readdirSync(out).some((f) => f.startsWith('formation-') && f.endsWith('.md'))).toBe(true);
  }, 120_000);

  it('adds the LLM extractor with --llm-url, on the scripted answers of a fake endpoint, and counts its tokens', async () => {
    const requests: { model: string; auth: string | undefined; prompt: string }[] = [];
    const memory = (ref: string, value: string, statement: string, validFrom: string | null) => ({
      subject: 'user',
      attribute: 'residence',
      single: true,
      value,
      statement,
      stance: 'for',
      polarity: 'holds',
      kind: 'residence',
      validFrom,
      validTo: null,
      evidence: [ref],
      about: null,
    });
    const fake = await startFakeChatServer(({ body, headers }, send) => {
      const prompt: string = body.messages.at(-1).content;
      requests.push({ model: body.model, auth: headers.authorization, prompt });
      // The batch's messages are JSON lines with a ref; a scripted reading of the two that say where the user lives.
      const lines = prompt.split('\n').filter((l) => l.startsWith('{"ref":"m'));
      const memories = lines.flatMap((l) => {
        const m = JSON.parse(l) as { ref: string; use: string; text: string };
        if (m.use !== 'facts') return [];
        if (/i live in manchester/.test(m.text))
          return [memory(m.ref, 'Manchester', 'User lives in Manchester.', null)];
        if (/moved to leeds/.test(m.text))
          return [memory(m.ref, 'Leeds', 'User moved to Leeds in February 2026.', '2026-02-01')];
        return [];
      });
      send(200, {
        id: 'chatcmpl-formation',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: JSON.stringify({ memories }) }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 },
      });
    });
    try {
      const { stdout } = await run(
        [
          '--only',
          'chat-manchester-leeds',
          '--stores',
          'in-memory',
          '--llm-url',
          fake.baseURL,
          '--llm-model',
          'scripted-model',
          '--json',
        ],
        { MEM_LLM_API_KEY: 'test-key-formation' },
      );
      const r = JSON.parse(stdout) as { runs: Run[] };
      expect(r.runs.map((x) => `${x.extractor}/${x.store}`)).toEqual([
        'offline/in-memory',
        'llm:scripted-model/in-memory',
      ]);
      const llm = r.runs[1]!;
      // One call per session, each counted.
      expect(requests).toHaveLength(2);
      expect(requests.every((q) => q.model === 'scripted-model' && q.auth === 'Bearer test-key-formation')).toBe(true);
      expect(llm.sets.all.tokens).toEqual({ input: 600, output: 80 });
      expect(r.runs[0]!.sets.all.tokens).toEqual({ input: 0, output: 0 });
      // Manchester superseded by Leeds: the probe right, nothing stale, the as-of probes answered by the chain.
      expect(llm.sets.all).toMatchObject({ probes: 1, current_accuracy: 1, stale: { probes: 1, formed: 1, count: 0 } });
      expect(llm.sets.all.as_of).toEqual({ probes: 2, accuracy: 1 });
      expect(llm.dialogues[0]).toMatchObject({ formed: 2, current: 1 });
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('judges by the definitions: stale, duplicates, retractions, false memories, secrets, as-of', () => {
    const d: Dialogue = {
      id: 'd',
      style: 'chat',
      covers: [],
      sessions: [{ at: '2026-01-01T00:00:00Z', turns: [] }],
      probes: [
        { kind: 'change', query: 'home', expect: ['leeds'], stale: ['manchester'] },
        { kind: 'retraction', query: 'smoke', stale: ['smok'] },
        { kind: 'retraction', query: 'band', stale: ['band'] },
      ],
      asOf: [{ query: 'home', asOf: '2025-06-01', expect: ['manchester'], not: ['leeds'] }],
      forbidden: [{ class: 'tool', pattern: 'zurich' }],
      secrets: ['sk-proj-abcdefghijklmnop1234'],
    };
    const m = (content: string, validTo: string | null = null) => ({ id: content, content, validFrom: null, validTo });
    const current = [
      m('User lives in Leeds.'),
      m('User moved to Leeds from Manchester.'),
      m('User lives in Manchester.'),
      m('User no longer smokes.'),
      m('User lives in Zurich.'),
      m('Key ends in op1234 — no: ijklmnop1234.'),
    ];
    const o: Observed = {
      all: [...current, m('User smokes.', '2026-01-01T00:00:00.000Z')],
      current,
      retrieved: [['User lives in Leeds.'], [], []],
      asOf: [['User lives in Manchester.', 'User no longer lives in Leeds.']],
      messages: 3,
      distillMs: 30,
      decisions: { add: 3 },
      failures: {},
      tokens: { input: 0, output: 0 },
    };
    const s = summarise([scoreDialogue(d, o)]);
    // Leeds retrieved; Manchester still held by a current memory that does not say Leeds: stale. "Moved to Leeds from
    // Manchester" matches the new value, so Leeds has two current memories: one duplicate. Smoking was formed and is
    // closed (the current memory negates it): right. The band was never formed: not right.
    expect(s).toMatchObject({
      probes: 3,
      current_accuracy: 0.667,
      stale: { probes: 3, formed: 2, count: 1 },
      duplicates: { count: 1, extra: 1 },
      false_memories: { count: 1, by_class: { tool: 1 } },
      secrets_stored: 1,
      as_of: { probes: 1, accuracy: 1 },
      messages_per_s: 100,
    });
  });

  it('refuses bad flags with INVALID_INPUT and exit code 2', async () => {
    for (const args of [
      ['--only', 'no-such-dialogue'],
      ['--llm-url', 'http://127.0.0.1:9/v1'],
      ['--stores', 'paper'],
    ]) {
      const failed = await run(args).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toContain('INVALID_INPUT: ');
    }
  }, 60_000);
});
