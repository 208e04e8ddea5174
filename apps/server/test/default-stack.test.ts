import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, until } from './helpers.js';

const START = join(import.meta.dirname, '..', 'src', 'start.ts');
const tsx = createRequire(import.meta.url).resolve('tsx');
const dir = mkdtempSync(join(tmpdir(), 'mem-server-start-'));
let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('pnpm start (the default stack: SQLite + local embedder)', () => {
  it('starts, prints the inspector and MCP URLs, serves hybrid search, and stops cleanly on SIGTERM', async () => {
    child = spawn(process.execPath, ['--conditions=dev-source', '--import', tsx, START], {
      cwd: dir,
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MEM_'))), MEM_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((ok) => child!.once('exit', (code) => ok(code)));
    const base = await until(
      () =>
        /Inspector:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1] ??
        (child!.exitCode !== null ? 'exited' : undefined),
      60_000,
      'the start-up lines',
    );
    expect(base, stderr).not.toBe('exited');
    expect(stdout).toMatch(/MCP endpoint:\s+http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(stdout).toContain('without API keys');

    for (const body of [
      {
        content: 'The deploy pipeline rolls out to one canary region first, then to every region after thirty minutes.',
        name: 'Deploy rollout order',
      },
      {
        content: 'Customer Acme prefers email over phone calls for incident updates.',
        name: 'Acme contact preference',
      },
    ]) {
      expect((await call(base, 'POST', '/v1/memories', { body })).status).toBe(201);
    }
    const r = await call(base, 'POST', '/v1/memories/search', { body: { query: 'canary deploy rollout' } });
    expect(r.body.results[0]).toMatchObject({ name: 'Deploy rollout order' });
    expect(typeof r.body.results[0].similarity).toBe('number');
    const doc = await call(base, 'GET', `/v1/memories/${r.body.results[0].id}`);
    expect(doc.body.embeddingModel).toMatch(/use/);
    expect((await call(base, 'GET', '/readyz')).status).toBe(200);
    // Structured memory lives in the same SQLite file.
    const fact = await call(base, 'PUT', '/v1/facts', { body: { user: 'ana', key: 'channel', value: 'email' } });
    expect(fact.body).toMatchObject({ status: 'created', fact: { source: 'user' } });
    expect((await call(base, 'GET', '/v1/facts?user=ana')).body.facts).toHaveLength(1);
    expect((await call(base, 'GET', '/')).text).toContain('mem inspector');

    // Notebooks live as Markdown files in the workspace.
    const note = await call(base, 'POST', '/v1/agents/main/notebook', {
      body: { content: '- Started from pnpm start.' },
    });
    expect(note.status).toBe(201);
    expect((await call(base, 'GET', '/v1/agents/main/notebook/file')).body.content).toContain(
      'Started from pnpm start.',
    );
    expect(execSync(`grep -rl "Started from pnpm start" ${join(dir, '.mem')}`).toString()).toMatch(/\.md/);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('SIGTERM: finishing in-flight requests');
    expect(stderr).toContain('"msg":"server stopped"');
    expect(existsSync(join(dir, '.mem', 'mem.db'))).toBe(true);
  });
});
