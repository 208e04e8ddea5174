/**
 * The agent end to end: each run is a new process (`node src/main.ts`) against a fake OpenAI-compatible server in
 * this test, over one folder (SQLite file + Markdown transcripts and notebooks), with a 4,000-token window (the tool definitions count toward it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatRequest, startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');
const tsx = createRequire(import.meta.url).resolve('tsx');
const dir = mkdtempSync(join(tmpdir(), 'mem-agent-'));
const SUMMARY = 'SUMMARY-7: the user said their favourite colour is teal and shared long notes about their garden.';

/** What the fake model was asked, agent calls only (summaries apart). */
const agentCalls: any[] = [];
let summaryCalls = 0;
const summaryRequests: string[] = [];
let server: Awaited<ReturnType<typeof startFakeChatServer>>;

function answer(request: ChatRequest) {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
  const reply = (message: Record<string, unknown>, finish = 'stop') => ({
    id: `c-${agentCalls.length}`,
    object: 'chat.completion',
    created: 1,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  });
  if (system.includes("You compress an AI agent's conversation")) {
    summaryCalls += 1;
    summaryRequests.push(sent(request.body));
    return reply({ content: SUMMARY });
  }
  agentCalls.push(request.body);
  const last = messages.at(-1)!;
  if (last.role === 'tool') return reply({ content: 'Saved it to your notebook.' });
  if (JSON.stringify(last.content).includes('remember my cat')) {
    return reply(
      {
        content: null,
        tool_calls: [
          {
            id: 'call-cat',
            type: 'function',
            function: {
              name: 'write_memory',
              arguments: JSON.stringify({ content: "The user's cat is called Miso." }),
            },
          },
        ],
      },
      'tool_calls',
    );
  }
  return reply({ content: 'ok' });
}

/** One run of the agent: a new process, lines on stdin, then end of input. */
function run(
  lines: string[],
  flags: string[] = ['--no-session-summary'],
  lead: string[] = [],
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=dev-source',
      '--import',
      tsx,
      MAIN,
      ...lead,
      ...['--base-url', server.baseURL, '--model', 'fake-model', '--dir', dir, '--embedder', 'hashing'],
      ...['--context-window', '4000', '--report'],
      ...flags,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, OPENAI_API_KEY: '' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(`${lines.join('\n')}\n`);
  return new Promise((done, failed) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      failed(new Error(`the agent did not finish in 60 s\n${stdout}\n${stderr}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ stdout, stderr, code });
    });
  });
}

/** Everything the model was sent in one call, as text. */
const sent = (body: any): string => JSON.stringify(body.messages);

beforeAll(async () => {
  server = await startFakeChatServer((request, send) => send(200, answer(request)));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('apps/agent against an OpenAI-compatible server', () => {
  it("takes its flags after the '--' that 'pnpm start -- …' passes (the README's command)", async () => {
    const { code, stdout, stderr } = await run(['hello'], ['--no-session-summary'], ['--']);
    expect(stderr).not.toMatch(/ERR_PARSE_ARGS/);
    expect(code).toBe(0);
    expect(stdout).toContain('ok');
  });

  it('a fact stated in run 1 is in run 3’s prompt after two restarts', async () => {
    const first = await run(['My favourite colour is teal.']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('assistant: ok');
    await run(['How are you today?']);
    const before = agentCalls.length;
    await run(['What is my favourite colour?']);
    const third = agentCalls.slice(before);
    expect(third).toHaveLength(1);
    const system = third[0].messages
      .filter((m: { role: string }) => m.role === 'system')
      .map((m: { content: string }) => m.content);
    expect(system.join('\n')).toContain('My favourite colour is teal.');
    expect(third[0].messages.at(-1)).toEqual({ role: 'user', content: 'What is my favourite colour?' });
  });

  it('compacts when the 4,000-token window fills: archive written, the summary in the next prompt', async () => {
    const notes = Array.from(
      { length: 24 },
      (_, i) => `Garden note ${i}: ${'tomatoes basil compost watering '.repeat(25)}`,
    );
    const before = agentCalls.length;
    const { stderr, code } = await run(notes);
    expect(code, stderr).toBe(0);
    expect(summaryCalls).toBeGreaterThanOrEqual(1);
    expect(stderr).toMatch(/report tokens=\d+\/4000 tools=\d+ recalled=\d+ compaction=compacted usage=\d+/);
    const archives = join(dir, 'spaces', 'local', 'agents', 'assistant', 'archive');
    const files = existsSync(archives) ? readdirSync(archives) : [];
    expect(files.filter((f) => /^history_.+\.md$/.test(f)).length).toBeGreaterThanOrEqual(1);
    expect(readFileSync(join(dir, 'spaces', 'local', 'agents', 'assistant', 'MEMORY.md'), 'utf8')).toContain(
      'SUMMARY-7',
    );
    const after = agentCalls.slice(before).findIndex((b) => sent(b).includes('SUMMARY-7'));
    expect(after).toBeGreaterThan(0);
    // Every prompt stayed inside the window the fake model has.
    for (const line of stderr.split('\n').filter((l) => l.startsWith('report'))) {
      const [, tokens, tools] = /tokens=(\d+)\/\d+ tools=(\d+)/.exec(line)!;
      expect(Number(tokens) + Number(tools)).toBeLessThanOrEqual(4_000);
    }
  });

  it('a task-completion memory is recalled by the next task', async () => {
    const done = await run([
      '/task fix the login bug',
      'The login fails after the session cookie expires.',
      '/done Fixed the login bug by refreshing the session cookie before it expires.',
    ]);
    expect(done.stdout).toMatch(/task T-\w+ done; memory \w+/);
    const before = agentCalls.length;
    await run(['/task fix the login bug on mobile', 'Where should I start?']);
    const call = agentCalls.slice(before)[0];
    const recall = call.messages.find(
      (m: { role: string; content: string }) => m.role === 'user' && m.content.includes('### Relevant Past Knowledge'),
    );
    expect(recall?.content).toContain('Fixed the login bug by refreshing the session cookie');
  });

  it('a tool call from the model writes the notebook, and the next prompt shows it', async () => {
    const { stdout } = await run(['Please remember my cat is Miso.', 'Thanks!']);
    expect(stdout).toContain('assistant: Saved it to your notebook.');
    const notebook = readFileSync(join(dir, 'notebooks', 'local', 'assistant', 'MEMORY.md'), 'utf8');
    expect(notebook).toContain("The user's cat is called Miso.");
    expect(sent(agentCalls.at(-1))).toContain("The user's cat is called Miso.");
  });

  it('the end of a session stores a session summary of that run’s messages only', async () => {
    const before = summaryRequests.length;
    const { stdout, code, stderr } = await run(['I moved to Porto last week.', '/quit'], []);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/session summary stored \w+/);
    const asked = summaryRequests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('I moved to Porto last week.');
    expect(asked[0]).not.toContain('favourite colour is teal'); // an earlier run's message
  });

  it('refuses bad flags with a clear message', async () => {
    const child = spawn(process.execPath, ['--conditions=dev-source', '--import', tsx, MAIN, '--model', 'm'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OPENAI_BASE_URL: '', MEM_AGENT_BASE_URL: '' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((done) => child.on('exit', done));
    expect(code).toBe(2);
    expect(stderr).toContain('give the endpoint: --base-url');
  });
});
