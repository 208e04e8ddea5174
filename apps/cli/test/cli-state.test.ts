import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-cli-state-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mem = (args: string[], env: Record<string, string> = {}, stdin = '') =>
  runCli(
    args,
    dir,
    { MEM_DB: join(dir, 'mem.db'), MEM_EMBEDDER: 'hashing', MEM_WORKSPACE_DIR: join(dir, 'ws'), ...env },
    stdin,
  );

describe('mem goals / summaries / session-state / phases / tool-events', () => {
  it('goals: set replaces the active one, list, finish; bad input exits 1 or 2 and changes nothing', async () => {
    expect((await mem(['goals', 'set', 'Ship', 'the', 'export', '--user', 'ana', '--json'])).json().goal).toMatchObject(
      {
        goal: 'Ship the export',
        status: 'active',
      },
    );
    const second = await mem(
      ['goals', 'set', '-', '--user', 'ana', '--metadata', '{"prio":2}', '--json'],
      {},
      'Ship v2',
    );
    expect(second.json()).toMatchObject({
      goal: { goal: 'Ship v2', metadata: { prio: 2 } },
      replaced: { status: 'replaced' },
    });
    expect((await mem(['goals', 'get', '--user', 'ana'])).stdout.trim()).toBe('Ship v2');
    const list = await mem(['goals', 'list', '--user', 'ana', '--json']);
    expect(list.json().goals.map((g: { status: string }) => g.status)).toEqual(['active', 'replaced']);
    const done = await mem(['goals', 'finish', '--user', 'ana', '--status', 'completed', '--json']);
    expect(done.json().goal.status).toBe('completed');
    const again = await mem(['goals', 'finish', '--user', 'ana', '--status', 'completed']);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('NOT_FOUND')]);

    expect((await mem(['goals', 'set', 'x'])).code).toBe(2); // --user missing
    const badMeta = await mem(['goals', 'set', 'x', '--user', 'ana', '--metadata', '{oops']);
    expect([badMeta.code, badMeta.stderr]).toEqual([1, expect.stringContaining('--metadata must be JSON')]);
    const secret = await mem(['goals', 'set', 'use AKIAIOSFODNN7EXAMPLE', '--user', 'ana']);
    expect([secret.code, secret.stderr]).toEqual([1, expect.stringContaining('SECRET_DETECTED')]);
    const badStatus = await mem(['goals', 'finish', '--user', 'ana', '--status', 'won']);
    expect([badStatus.code, badStatus.stderr]).toEqual([1, expect.stringContaining('INVALID_INPUT')]);
    expect((await mem(['goals', 'list', '--user', 'ana', '--json'])).json().goals).toHaveLength(2);
  });

  it('sessions: summary versions, state, phases and tool events, each agent apart', async () => {
    const v1 = await mem(['summaries', 'set', 's1', 'Asked', 'for', 'CSV.', '--covered', '3', '--json']);
    expect(v1.json()).toMatchObject({ agent: 'main', sessionId: 's1', version: 1 });
    const stale = await mem(['summaries', 'set', 's1', 'x', '--covered', '4', '--expected-version', '0']);
    expect([stale.code, stale.stderr]).toEqual([1, expect.stringContaining('CONFLICT')]);
    expect((await mem(['summaries', 'get', 's1', '--json'])).json().summary.summary).toBe('Asked for CSV.');
    expect((await mem(['summaries', 'set', 's1', 'x'])).code).toBe(2); // --covered missing

    expect((await mem(['session-state', 'set', 's1', '{"step":1,"plan":["a"]}'])).code).toBe(0);
    expect((await mem(['session-state', 'get', 's1', '--json'])).json().state.state).toEqual({ step: 1, plan: ['a'] });
    const notJson = await mem(['session-state', 'set', 's1', 'step one']);
    expect([notJson.code, notJson.stderr]).toEqual([1, expect.stringContaining('the state must be JSON')]);
    // Another agent has its own session s1.
    expect((await mem(['session-state', 'get', 's1', '--agent', 'other', '--json'])).json()).toEqual({ state: null });

    for (const phase of ['plan', 'act', 'review']) expect((await mem(['phases', 'set', 's1', phase])).code).toBe(0);
    expect((await mem(['phases', 'get', 's1', '--json'])).json().phase.phase).toBe('review');
    const history = await mem(['phases', 'history', 's1', '--limit', '2', '--json']);
    expect(history.json().phases.map((p: { phase: string }) => p.phase)).toEqual(['act', 'review']);

    const rec = await mem([
      'tool-events',
      'record',
      's1',
      '--tool',
      'grep',
      '--latency-ms',
      '12',
      '--input',
      '{"q":"x"}',
      '--json',
    ]);
    expect(rec.json().event).toMatchObject({ tool: 'grep', input: { q: 'x' }, latencyMs: 12, error: null });
    await mem(['tool-events', 'record', 's1', '--tool', 'deploy', '--latency-ms', '900', '--error', 'timeout']);
    const failed = await mem(['tool-events', 'list', 's1', '--failed', 'true', '--json']);
    expect(failed.json()).toMatchObject({ total: 1, events: [{ tool: 'deploy', error: 'timeout' }] });
    expect((await mem(['tool-events', 'list', 's1', '--json'])).json().total).toBe(2);
    expect((await mem(['tool-events', 'record', 's1', '--tool', 'grep'])).code).toBe(2);
    const negative = await mem(['tool-events', 'record', 's1', '--tool', 'grep', '--latency-ms=-5']);
    expect([negative.code, negative.stderr]).toEqual([1, expect.stringContaining('latencyMs must not be negative')]);

    expect((await mem(['summaries', 'delete', 's1'])).code).toBe(0);
    expect((await mem(['summaries', 'delete', 's1'])).code).toBe(1);
    expect((await mem(['session-state', 'delete', 's1'])).code).toBe(0);
    expect((await mem(['session-state', 'get', 's1', '--json'])).json()).toEqual({ state: null });
  });
});

describe('mem convo settings and the context flags', () => {
  it('stores the settings per agent, uses them on later commands, and refuses bad values', async () => {
    const env = { MEM_AGENT: 'writer' };
    const defaults = await mem(['convo', 'settings', '--json'], env);
    expect(defaults.json()).toMatchObject({
      settings: { contextLength: 128_000, threshold: 0.9, strategy: 'summarize' },
      stored: {},
    });
    const set = await mem(
      ['convo', 'settings', '--context-length', '300', '--threshold', '0.5', '--strategy', 'sliding-window', '--json'],
      env,
    );
    expect(set.json().stored).toEqual({ contextLength: 300, threshold: 0.5, strategy: 'sliding-window' });
    expect((await mem(['convo', 'settings'], env)).stdout).toContain('compresses at 150 tokens');

    for (let i = 0; i < 10; i++)
      await mem(['convo', 'add', `Message ${i} about the billing export and its CSV columns.`, '--role', 'user'], env);
    // A later command (a fresh process each time) uses the stored strategy.
    const compacted = await mem(['convo', 'compact', '--json'], env);
    expect(compacted.json()).toMatchObject({ status: 'compacted', strategy: 'sliding-window' });
    // Flags on any convo command are stored too.
    await mem(['convo', 'add', 'one more', '--role', 'user', '--strategy', 'drop-tool-results'], env);
    expect((await mem(['convo', 'settings', '--json'], env)).json().stored.strategy).toBe('drop-tool-results');

    const bad = await mem(['convo', 'settings', '--threshold', '1.5'], env);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('threshold must be at most 1')]);
    const badStrategy = await mem(['convo', 'settings', '--strategy', 'yolo'], env);
    expect([badStrategy.code, badStrategy.stderr]).toEqual([1, expect.stringContaining('strategy must be one of')]);
    expect((await mem(['convo', 'settings', '--context-length', 'big'], env)).code).toBe(2);
    expect((await mem(['convo', 'settings', '--json'], env)).json().stored).toEqual({
      contextLength: 300,
      threshold: 0.5,
      strategy: 'drop-tool-results',
    });
    // Another agent keeps the defaults.
    expect((await mem(['convo', 'settings', '--json'], { MEM_AGENT: 'reader' })).json().stored).toEqual({});
  });

  it('search --intent and task-context --task-id are recorded and echoed', async () => {
    await mem(['store', 'The billing export runs nightly at 02:00 UTC.']);
    const search = await mem(['search', 'billing', 'export', '--intent', 'dedup before store', '--json']);
    expect(search.json().intent).toBe('dedup before store');
    expect(search.json().results.length).toBeGreaterThan(0);
    const secret = await mem(['search', 'billing', '--intent', 'AKIAIOSFODNN7EXAMPLE']);
    expect([secret.code, secret.stderr]).toEqual([1, expect.stringContaining('SECRET_DETECTED')]);
    const task = await mem(['task-context', 'Fix the billing export', '--task-id', 't-9', '--json']);
    expect(task.json().taskId).toBe('t-9');
    // The answer of POST /v1/task-context: each memory with its hits and recall score.
    expect(task.json().memories[0]).toMatchObject({ hits: expect.any(Number), recallScore: expect.any(Number) });
    expect(task.json().usage).toBeDefined();
    const printed = await mem(['task-context', 'Fix the billing export', '--task-id', 't-9']);
    expect(printed.stdout).toMatch(/^Task: Fix the billing export \(task id t-9\)\n\n/);
    expect(printed.stdout).toContain('billing export runs nightly');
    // The answer of GET /v1/stats: the space too.
    const stats = await mem(['stats', '--json']);
    expect(stats.json()).toMatchObject({ space: 'default', documents: 1 });
    expect((await mem(['stats'])).stdout).toMatch(/^1 memories \(\d+ chunks\) in space default\n/);
  });
});
