/**
 * `mem bench qa` end to end on a tiny LoCoMo-format data set, against scripted OpenAI-compatible servers on
 * 127.0.0.1 (`startFakeChatServer`). The answer model answers with the gold answer when every evidence turn of the
 * question is in the context it was sent, else "I do not know."; the judge says CORRECT when the generated answer is
 * the gold answer. Scripted on top, per question: a wrong answer, a judge answering in prose (one readable, one not),
 * HTTP 500 for an answer and for a judgement. The figures the bench reports must be the ones these outcomes make;
 * the tokens must be the usage the servers reported; every connection the bench makes must go to 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createGptTokenizer } from '@mem/core';
import { type ChatRequest, type Send, startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, describe, expect, it } from 'vitest';
import type { StackSummary } from '../src/qa-score.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mem-qa-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BENCH = join(import.meta.dirname, '..');
const MEM = fileURLToPath(new URL('../../cli/bin/mem-dev.js', import.meta.url));

type Script = 'ok' | 'wrong-answer' | 'judge-prose' | 'judge-unreadable' | 'answer-500' | 'judge-500';
interface Q {
  question: string;
  category: number;
  answer: string | number;
  /** The dia ids written into the file (empty: a question without evidence, which the bench still asks). */
  evidence: string[];
  /** The texts the answer model needs to see to answer right. */
  needs: string[];
  script: Script;
}

const conversations = [
  {
    id: 'conv.0',
    speakers: ['Ann', 'Ben'],
    sessions: [
      {
        at: '1:00 pm on 4 May, 2023',
        turns: [
          'I adopted a beagle called Biscuit last week.',
          'I am learning the cello with Mrs Hale.',
          'The weather was grey all day.',
          'Same here, it rained.',
        ],
      },
      {
        at: '3:30 pm on 20 June, 2023',
        turns: [
          'We drove to Lisbon for the marathon.',
          'My sister Priya moved to Oslo.',
          'Nice, talk soon.',
          'Bye for now.',
        ],
      },
    ],
    qa: [
      {
        question: "What is the name of Ann's beagle?",
        category: 4,
        answer: 'Biscuit',
        evidence: ['D1:1'],
        needs: ['called Biscuit'],
        script: 'ok',
      },
      {
        question: 'Which city did Ann drive to, and which instrument does Ben learn?',
        category: 1,
        answer: 'Lisbon; the cello',
        evidence: ['D2:1', 'D1:2'],
        needs: ['drove to Lisbon', 'learning the cello'],
        script: 'ok',
      },
      {
        question: 'In which year did Ann adopt Biscuit?',
        category: 2,
        answer: 2023,
        evidence: ['D1:1'],
        needs: ['called Biscuit'],
        script: 'ok',
      },
      {
        question: "Where does Ben's sister live?",
        category: 3,
        answer: 'Oslo',
        evidence: ['D2:2'],
        needs: ['moved to Oslo'],
        script: 'wrong-answer',
      },
    ] as Q[],
  },
  {
    id: 'conv.1',
    speakers: ['Cara', 'Dev'],
    sessions: [
      {
        at: '10:15 am on 2 July, 2023',
        turns: ['I started a pottery class on Thursdays.', 'I finally bought a red kayak.', 'Nothing much else.'],
      },
      {
        at: '6:00 pm on 9 August, 2023',
        turns: [
          'I sprained my ankle hiking on Ben Nevis.',
          'My brother Tomas is getting married in Porto.',
          'Anyway, talk soon.',
        ],
      },
    ],
    qa: [
      {
        question: 'What class did Cara start?',
        category: 4,
        answer: 'pottery',
        evidence: ['D1:1'],
        needs: ['pottery class'],
        script: 'judge-prose',
      },
      {
        question: "What colour is Dev's kayak?",
        category: 4,
        answer: 'red',
        evidence: ['D1:2'],
        needs: ['red kayak'],
        script: 'judge-unreadable',
      },
      {
        question: 'Who is getting married, and where?',
        category: 1,
        answer: "Dev's brother Tomas, in Porto",
        evidence: ['D2:2'],
        needs: ['married in Porto'],
        script: 'answer-500',
      },
      {
        question: 'When did Cara sprain her ankle?',
        category: 2,
        answer: 'August 2023',
        evidence: ['D2:1'],
        needs: ['sprained my ankle'],
        script: 'judge-500',
      },
      {
        question: 'Where did Cara sprain her ankle?',
        category: 4,
        answer: 'Ben Nevis',
        evidence: [],
        needs: ['hiking on Ben Nevis'],
        script: 'ok',
      },
    ] as Q[],
  },
];
const questions = conversations.flatMap((c) => c.qa);
const byQuestion = new Map(questions.map((q) => [q.question, q]));
/** Asked in the file, never by the bench: category 5 (adversarial), left out as the mem0 paper does. */
const ADVERSARIAL = 'What did Dev say about his pottery class?';

function writeDataset(): string {
  const data = conversations.map((c) => {
    const conversation: Record<string, unknown> = { speaker_a: c.speakers[0], speaker_b: c.speakers[1] };
    c.sessions.forEach((s, i) => {
      conversation[`session_${i + 1}_date_time`] = s.at;
      conversation[`session_${i + 1}`] = s.turns.map((text, t) => ({
        speaker: c.speakers[t % 2],
        dia_id: `D${i + 1}:${t + 1}`,
        text,
      }));
    });
    return {
      sample_id: c.id,
      conversation,
      qa: [
        ...c.qa.map((q) => ({ question: q.question, answer: q.answer, evidence: q.evidence, category: q.category })),
        ...(c.id === 'conv.1'
          ? [{ question: ADVERSARIAL, adversarial_answer: 'a lot', evidence: ['D1:1'], category: 5 }]
          : []),
      ],
    };
  });
  const file = join(dir, 'tiny-locomo.json');
  writeFileSync(file, JSON.stringify(data));
  return file;
}

const completion = (content: string, prompt: number, output: number) => ({
  id: 'chatcmpl-qa',
  object: 'chat.completion',
  created: 1,
  model: 'scripted',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output },
});

interface Seen {
  kind: 'answer' | 'judge';
  model: string;
  auth: string | undefined;
  question: string;
  /** answer: the context; judge: the gold answer it was shown. */
  context?: string;
  gold?: string;
  generated?: string;
  status: number;
  usage?: { input: number; output: number };
  /** answer: every evidence text was in the context. */
  hadEvidence?: boolean;
}

/** The scripted answer model and judge (one server can play both: they are told apart by the user message). */
function scripted(seen: Seen[], chaos: boolean) {
  return ({ body, headers }: ChatRequest, send: Send) => {
    const user: string = body.messages.at(-1).content;
    const base = { model: body.model as string, auth: headers.authorization };
    if (user.startsWith('Memories:\n')) {
      const question = user.slice(user.lastIndexOf('\n\nQuestion: ') + '\n\nQuestion: '.length);
      const context = user.slice('Memories:\n'.length, user.lastIndexOf('\n\nQuestion: '));
      const q = byQuestion.get(question);
      const hadEvidence = !!q && q.needs.every((n) => context.includes(n));
      if (chaos && q?.script === 'answer-500') {
        seen.push({ ...base, kind: 'answer', question, context, status: 500, hadEvidence });
        return send(500, { error: { message: 'scripted failure' } });
      }
      const answer =
        chaos && q?.script === 'wrong-answer' ? 'Bergen' : hadEvidence ? String(q!.answer) : 'I do not know.';
      const usage = { input: user.length, output: answer.split(' ').length };
      seen.push({ ...base, kind: 'answer', question, context, status: 200, usage, hadEvidence });
      return send(200, completion(answer, usage.input, usage.output));
    }
    const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(user)?.[1] ?? '';
    const question = field('Question');
    const gold = field('Gold answer');
    const generated = field('Generated answer');
    const script = chaos ? byQuestion.get(question)?.script : 'ok';
    const entry = { ...base, kind: 'judge' as const, question, gold, generated };
    if (script === 'judge-500') {
      seen.push({ ...entry, status: 500 });
      return send(500, { error: { message: 'scripted judge failure' } });
    }
    const right = generated.toLowerCase() === gold.toLowerCase();
    const content =
      script === 'judge-prose'
        ? `Comparing the two, the generated answer says what the gold answer says, so I would call it ${right ? 'correct' : 'wrong'}.`
        : script === 'judge-unreadable'
          ? 'Hard to say without more context.'
          : JSON.stringify({ label: right ? 'CORRECT' : 'WRONG' });
    const usage = { input: 40 + gold.length, output: 5 };
    seen.push({ ...entry, status: 200, usage });
    return send(200, completion(content, usage.input, usage.output));
  };
}

/** A stack's row of the report (a skipped stack says why). */
type Row = StackSummary & { skipped?: string };
interface Report {
  questions: number;
  k: number;
  answer_model: { model: string; host: string };
  judge_model: { model: string; host: string };
  stacks: Row[];
}

/** Runs the bench through `node --import tsx src/qa.ts` with the connection log preloaded. */
async function bench(args: string[], env: Record<string, string>): Promise<{ report: Report; net: string[] }> {
  const netLog = join(dir, `net-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(netLog, '');
  const { stdout } = await exec(
    process.execPath,
    [
      '--conditions=dev-source',
      '--import',
      'tsx',
      '--import',
      './test/net-log.ts',
      'src/qa.ts',
      '--dataset',
      writeDataset(),
      '--json',
      '--out',
      join(dir, 'out'),
      ...args,
    ],
    { cwd: BENCH, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env, MEM_BENCH_NET_LOG: netLog } },
  );
  const net = readFileSync(netLog, 'utf8').split('\n').filter(Boolean);
  return { report: JSON.parse(stdout) as Report, net };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const port = (baseURL: string) => new URL(baseURL).port;
const noKeys = { MEM_LLM_API_KEY: '', MEM_JUDGE_API_KEY: '' };

describe('mem bench qa', () => {
  it('scores full context from the scripted outcomes: right, wrong, prose judges, HTTP 500s counted, tokens summed', async () => {
    const seen: Seen[] = [];
    const answerServer = await startFakeChatServer(scripted(seen, true));
    const judgeServer = await startFakeChatServer(scripted(seen, true));
    try {
      const { report, net } = await bench(
        [
          '--stacks',
          'full-context',
          '--llm-url',
          answerServer.baseURL,
          '--llm-model',
          'answerer',
          '--judge-url',
          judgeServer.baseURL,
          '--judge-model',
          'judge',
        ],
        { MEM_LLM_API_KEY: 'key-answer', MEM_JUDGE_API_KEY: 'key-judge' },
      );
      expect(report.questions).toBe(9);
      expect(report.answer_model).toEqual({ model: 'answerer', host: `127.0.0.1:${port(answerServer.baseURL)}` });
      expect(report.judge_model).toEqual({ model: 'judge', host: `127.0.0.1:${port(judgeServer.baseURL)}` });
      const [full] = report.stacks;
      expect(report.stacks).toHaveLength(1);
      // Right: 3 of conv.0 (the 4th answered "Bergen"), and of conv.1 the prose CORRECT and the question without
      // evidence ids; failed: the unreadable judge, the answer 500 and the judge 500.
      expect(full!.name).toBe('full-context');
      expect([full!.questions, full!.correct]).toEqual([9, 5]);
      expect(full!.j).toBeCloseTo(5 / 9, 3);
      expect(full!.by_category).toEqual({
        'multi-hop': { questions: 2, correct: 1, j: 0.5 },
        temporal: { questions: 2, correct: 1, j: 0.5 },
        'open-domain': { questions: 1, correct: 0, j: 0 },
        'single-hop': { questions: 4, correct: 3, j: 0.75 },
      });
      expect(full!.failures).toEqual({
        count: 3,
        by_kind: { 'judge-unreadable': 1, 'answer-endpoint': 1, 'judge-endpoint': 1 },
      });
      expect(full!.judge_lenient).toBe(1);
      const record = (q: string) => full!.records.find((r) => r.question === q)!;
      expect(record("Where does Ben's sister live?")).toMatchObject({ answer: 'Bergen', label: 'WRONG' });
      expect(record('Who is getting married, and where?').failure?.reason).toContain('500');
      expect(record("What colour is Dev's kayak?")).toMatchObject({
        answer: 'red',
        label: 'WRONG',
        failure: { kind: 'judge-unreadable' },
      });
      expect(record('When did Cara sprain her ankle?').failure?.kind).toBe('judge-endpoint');

      // Every answer request had the whole conversation, each session under its time; category 5 never asked.
      const answers = seen.filter((s) => s.kind === 'answer');
      expect(answers.every((s) => s.hadEvidence)).toBe(true);
      expect(
        answers.some((s) => s.context!.includes('Session 2, 15:30 on 20 June 2023:\nAnn: We drove to Lisbon')),
      ).toBe(true);
      expect(seen.some((s) => s.question === ADVERSARIAL)).toBe(false);
      // Each endpoint got its own model and key.
      expect(answers.every((s) => s.model === 'answerer' && s.auth === 'Bearer key-answer')).toBe(true);
      const judgements = seen.filter((s) => s.kind === 'judge');
      expect(judgements.every((s) => s.model === 'judge' && s.auth === 'Bearer key-judge')).toBe(true);
      // The judge saw the gold answer of the question it judged (a number in the file as its text).
      expect(new Set(judgements.map((s) => s.question)).size).toBe(8);
      for (const s of judgements) expect(s.gold).toBe(String(byQuestion.get(s.question)!.answer));
      // Tokens: what the servers reported in their 200 answers (a 500 reports none), and the context counted as sent.
      const usage = (kind: Seen['kind'], part: 'input' | 'output') =>
        sum(seen.filter((s) => s.kind === kind && s.usage).map((s) => s.usage![part]));
      expect(full!.tokens.total).toMatchObject({
        answer_input: usage('answer', 'input'),
        answer_output: usage('answer', 'output'),
        judge_input: usage('judge', 'input'),
        judge_output: usage('judge', 'output'),
      });
      expect(usage('answer', 'input')).toBeGreaterThan(0);
      const tokenizer = createGptTokenizer();
      for (const r of full!.records) {
        const sent = answers.find((s) => s.question === r.question)!;
        expect(r.tokens.context).toBe(tokenizer.count(sent.context!));
      }
      expect(full!.tokens.total.context).toBe(sum(full!.records.map((r) => r.tokens.context)));
      expect(full!.tokens.per_question.judge_output).toBeCloseTo(usage('judge', 'output') / 9, 1);
      expect(full!.answer_ms.p50).toBeGreaterThan(0);
      expect(full!.answer_ms.p95).toBeGreaterThanOrEqual(full!.answer_ms.p50);
      // Only the two servers on 127.0.0.1 were reached.
      expect(net.length).toBeGreaterThan(0);
      expect(net.filter((l) => !l.startsWith('connect 127.0.0.1 '))).toEqual([]);
      const ports = new Set(net.map((l) => l.split(' ')[2]));
      expect(ports).toEqual(new Set([port(answerServer.baseURL), port(judgeServer.baseURL)]));
      expect(readdirSync(join(dir, 'out')).some((f) => f.startsWith('qa-') && f.endsWith('.md'))).toBe(true);
    } finally {
      await answerServer.close();
      await judgeServer.close();
    }
  }, 120_000);

  it('answers from mem’s top k (with times) and mem0’s, WRONG where the context lacks the evidence; the judge defaults to the answer model', async () => {
    const seen: Seen[] = [];
    const server = await startFakeChatServer(scripted(seen, false));
    try {
      const { report, net } = await bench(
        ['--stacks', 'mem,mem0', '--k', '1', '--llm-url', server.baseURL, '--llm-model', 'one-model'],
        { ...noKeys, MEM_LLM_API_KEY: 'key-one' },
      );
      expect(report.k).toBe(1);
      expect(report.judge_model.model).toBe('one-model');
      expect(report.stacks.map((s) => s.name)).toEqual(['mem', 'mem0']);
      // The stacks run one after the other, each asking the 9 questions in order (no failures, so no retries).
      const answers = seen.filter((s) => s.kind === 'answer');
      const ran = report.stacks.filter((s) => !s.skipped);
      expect(answers).toHaveLength(9 * ran.length);
      expect(seen.every((s) => s.model === 'one-model' && s.auth === 'Bearer key-one')).toBe(true);
      ran.forEach((row, i) => {
        const mine = answers.slice(9 * i, 9 * (i + 1));
        expect(mine.map((s) => s.question)).toEqual(questions.map((q) => q.question));
        // One memory with its time per context.
        for (const s of mine)
          expect(s.context).toMatch(/^\[\d\d:\d\d on \d{1,2} [A-Z][a-z]+ 2023\] [A-Z][a-z]+: [^\n]+$/);
        expect(row.records.every((r) => r.items === 1)).toBe(true);
        // Right exactly where the one memory held every evidence turn; two evidence turns never fit in k = 1.
        expect(row.correct).toBe(mine.filter((s) => s.hadEvidence).length);
        expect(row.j).toBeCloseTo(row.correct / 9, 3);
        const twoTurns = row.records.find((r) => r.question.startsWith('Which city did Ann drive to'))!;
        expect(twoTurns).toMatchObject({ answer: 'I do not know.', label: 'WRONG' });
        expect(row.failures.count).toBe(0);
        expect(row.retrieval_ms.p95).toBeGreaterThanOrEqual(row.retrieval_ms.p50);
      });
      expect(ran.map((r) => r.name)).toContain('mem');
      const mem0 = report.stacks.find((s) => s.name === 'mem0')!;
      if (mem0.skipped) expect(mem0.skipped).toContain('mem0ai');
      // The bench reached the chat server and, for mem0, its own embedding server: 127.0.0.1 only.
      expect(net.some((l) => l === `connect 127.0.0.1 ${port(server.baseURL)}`)).toBe(true);
      expect(net.filter((l) => !l.startsWith('connect 127.0.0.1 '))).toEqual([]);
    } finally {
      await server.close();
    }
  }, 300_000);

  it('refuses bad input through `mem bench qa` with INVALID_INPUT and exit code 2', async () => {
    const cases: [string[], string][] = [
      [[], '--llm-url URL --llm-model M'],
      [['--llm-url', 'http://127.0.0.1:1/v1'], '--llm-url URL --llm-model M'],
      [['--llm-url', 'http://127.0.0.1:1/v1', '--llm-model', 'm', '--stacks', 'mem,zep'], 'unknown --stacks zep'],
      [['--llm-url', 'http://127.0.0.1:1/v1', '--llm-model', 'm', '--k', '0'], '--k takes a positive whole number'],
      [
        ['--llm-url', 'http://127.0.0.1:1/v1', '--llm-model', 'm', '--limit-questions', 'two'],
        '--limit-questions takes a positive whole number',
      ],
      [['--llm-url', 'not a url', '--llm-model', 'm'], 'is not a URL'],
    ];
    for (const [args, message] of cases) {
      const failed = await exec(process.execPath, [MEM, 'bench', 'qa', '--dataset', writeDataset(), ...args], {
        env: { ...process.env, ...noKeys },
      }).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code, args.join(' ')).toBe(2);
      expect(failed?.stderr).toContain(`INVALID_INPUT: `);
      expect(failed?.stderr).toContain(message);
    }
  }, 120_000);
});
