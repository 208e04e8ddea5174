/**
 * LangGraph's official checkpointer suite (`@langchain/langgraph-checkpoint-validation`) against MemCheckpointSaver
 * on a real SQLite file.
 *
 * The suite is written for vitest 4 (its own dependency) and this repository runs vitest 5, so it runs in a child
 * process: vitest 4's own binary with conformance/vitest.config.mjs, whose only spec calls the suite's `specTest`
 * with conformance/initializer.ts. (The package's `validate-checkpointer` CLI cannot be used: in 1.1.1 its
 * dist/types.js does not export the `checkpointerTestInitializerSchema` that its runner imports, so every run stops
 * with "Cannot read properties of undefined (reading 'parse')" before a test starts.) The JSON report gives the
 * counts: every test must pass and none may be skipped.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
/** The suite's package root, and the vitest it depends on (4.x), resolved from there. */
const suiteRoot = dirname(require.resolve('@langchain/langgraph-checkpoint-validation/package.json'));
const vitest4 = createRequire(join(suiteRoot, 'package.json')).resolve('vitest/package.json');
const vitestBin = join(dirname(vitest4), 'vitest.mjs');
const config = fileURLToPath(new URL('./conformance/vitest.config.mjs', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'mem-lg-official-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Report {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: {
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

function runSuite(
  name: string,
  env: Record<string, string> = {},
): Promise<{ code: number; report: Report; output: string }> {
  const out = join(dir, `${name}.json`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [vitestBin, 'run', '--config', config, '--reporter=json', `--outputFile=${out}`],
      {
        cwd: dirname(config),
        env: { ...process.env, MEM_LG_CONFORMANCE_DB: join(dir, `${name}.db`), ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let report: Report;
        try {
          report = JSON.parse(readFileSync(out, 'utf8')) as Report;
        } catch {
          report = {
            numTotalTests: 0,
            numPassedTests: 0,
            numFailedTests: 0,
            numPendingTests: 0,
            numTodoTests: 0,
            testResults: [],
          };
        }
        resolve({ code, report, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

const failures = (r: Report): string[] =>
  r.testResults.flatMap((f) => [
    ...(f.message ? [f.message.slice(0, 500)] : []),
    ...f.assertionResults
      .filter((t) => t.status !== 'passed')
      .map((t) => `${t.status}: ${t.fullName}\n${(t.failureMessages ?? []).join('\n').slice(0, 500)}`),
  ]);

describe("LangGraph's official checkpointer suite on MemCheckpointSaver over SQLite", () => {
  it('vitest 4 is the one the suite depends on', () => {
    expect(JSON.parse(readFileSync(vitest4, 'utf8')).version).toMatch(/^4\./);
  });

  it.each([
    ['whole documents', {}],
    ['every document in 1 KiB pieces', { MEM_LG_CONFORMANCE_CHUNK: '1024' }],
  ])('passes every test, none skipped (%s)', async (label, env) => {
    const { code, report, output } = await runSuite(label.replace(/\W+/g, '-'), env);
    expect(failures(report), output.slice(-3000)).toEqual([]);
    expect(code).toBe(0);
    // 718 in 1.1.1: put, putWrites, getTuple (carried-over channels, pending-send migration), list (every
    // combination of thread, namespace, limit, before and filter) and deleteThread.
    expect(report.numTotalTests).toBeGreaterThanOrEqual(700);
    expect(report.numPassedTests).toBe(report.numTotalTests);
    expect(report.numFailedTests + report.numPendingTests + report.numTodoTests).toBe(0);
    const names = report.testResults.flatMap((f) => f.assertionResults.map((t) => t.fullName));
    for (const part of [
      '#put',
      '#putWrites',
      '#getTuple',
      '#list',
      '#deleteThread',
      'should only store channel_values that have changed',
    ]) {
      expect(
        names.some((n) => n.includes(part)),
        part,
      ).toBe(true);
    }
  });
});
