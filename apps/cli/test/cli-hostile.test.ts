/**
 * Hostile input through the `mem` command (issue 9, point 3), in process against a real SQLite file and Markdown
 * workspace with the hashing embedder: a hand-written corpus plus fast-check generated arguments. Every refusal
 * exits 1 (refused) or 2 (bad usage) with a one-line message naming a stable code or the usage — never INTERNAL,
 * a stack trace or a raw driver / file-system error; search text with SQL or FTS5 syntax is just text (exit 0);
 * and an export taken before and after the refused batch is byte-identical. The count of inputs is printed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { run } from '../src/main.js';

const SEED = 20261129;
const LEAK =
  /\bat [^\s]+ \(|\.ts:\d+:\d+|\.js:\d+:\d+|SqliteError|SQLITE_[A-Z]|fts5:|no such column|syntax error near|TypeError|ReferenceError|RangeError|ZodError|node_modules|Cannot read propert|is not a function|undefined is not|\[object Object\]|Maximum call stack|\bINTERNAL\b|ENOENT|EISDIR|EACCES/;

let dir: string;
let tried = 0;
const problems: string[] = [];

async function mem(args: string[], stdin = '') {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    readStdin: async () => stdin,
    env: { MEM_DB: join(dir, 'mem.db'), MEM_WORKSPACE_DIR: join(dir, 'ws'), MEM_EMBEDDER: 'hashing' },
    cwd: dir,
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

/** Run one hostile command line and record what is wrong with the outcome. */
async function hostile(args: string[], expectation: 'refused' | 'ok' | 'any' = 'refused', stdin = '') {
  tried++;
  const r = await mem(args, stdin);
  const shown = JSON.stringify(args).slice(0, 160);
  if (expectation === 'ok' && r.code !== 0)
    problems.push(`${shown}: expected exit 0, got ${r.code}: ${r.stderr.slice(0, 200)}`);
  if (expectation === 'refused' && r.code === 0)
    problems.push(`${shown}: expected a refusal, got exit 0: ${r.stdout.slice(0, 200)}`);
  if (r.code !== 0 && r.code !== 1 && r.code !== 2) problems.push(`${shown}: exit ${r.code}`);
  if (r.code !== 0) {
    const jsonMode = args.includes('--json');
    if (jsonMode) {
      let e: { error?: { code?: string; message?: string } } = {};
      try {
        e = JSON.parse(r.stderr.split('\n')[0] ?? '');
      } catch {
        // usage errors are text even with --json
      }
      if (r.code === 1 && (!e.error?.code || !e.error.message))
        problems.push(`${shown}: --json refusal is not {error:{code,message}}: ${r.stderr}`);
    } else if (!/^(mem( [\w -]+)?|line \d+): .{10,}/.test(r.stderr))
      problems.push(`${shown}: unclear message: ${r.stderr.slice(0, 200)}`);
    // (mem import reports each refused line as "line N: CODE: message")
    if (r.code === 1 && !jsonMode && !/: [A-Z_]{5,}: /.test(r.stderr.split('\n')[0]!))
      problems.push(`${shown}: exit 1 without a stable code: ${r.stderr.slice(0, 200)}`);
  }
  if (LEAK.test(r.stderr) || LEAK.test(r.stdout))
    problems.push(`${shown}: internal detail leaked: ${(r.stderr + r.stdout).slice(0, 300)}`);
  return r;
}

async function exportText(): Promise<string> {
  const r = await mem(['export', '--role', 'lead']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

async function world(): Promise<string> {
  const parts: string[] = [await exportText()];
  for (const args of [
    ['notes', 'list', '--json'],
    ['notes', 'read', '--json'],
    ['notes', 'read', 'plans/q3.md', '--json'],
    ['convo', 'show', '--agent', 'main', '--json'],
    ['facts', 'get', '--user', 'ana', '--json'],
    ['episodes', 'recent', '--n', '50', '--json'],
  ]) {
    const r = await mem(args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    parts.push(r.stdout);
  }
  return parts.join('\n=====\n');
}

const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

let memId = '';
let procId = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-cli-hostile-'));
  const seed = async (args: string[], stdin = '') => {
    const r = await mem([...args, '--json'], stdin);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout ? JSON.parse(r.stdout) : null;
  };
  memId = (
    await seed(['store', 'The deploy pipeline rolls out to one canary region first.', '--name', 'Deploy canary'])
  ).id;
  for (const key of ['/proj/a_b', '/proj/axb', '/proj/a.b', '/proj/abc'])
    await seed(['store', `Project note stored under ${key} for prefix tests.`, '--key', key]);
  await seed(['notes', 'write', 'Deploys happen on Tuesdays.']);
  await seed(['notes', 'write', '# Plan', '--file', 'plans/q3.md']);
  await seed(['convo', 'add', 'hello there', '--role', 'user']);
  await seed(['facts', 'set', 'channel', '"email"', '--user', 'ana']);
  await seed(['episodes', 'add', 'Deployed the canary with the deploy tool.', '--tags', 'seed']);
  procId = (
    await seed(['procedures', 'add', '-'], JSON.stringify({ name: 'Canary deploy', steps: [{ toolName: 'deploy' }] }))
  ).id;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  console.log(`hostile inputs tried: CLI ${tried}`);
});

const FTS = [
  '"',
  '"unbalanced',
  '*',
  'deploy*',
  'NEAR',
  'NEAR(deploy canary)',
  '-deploy',
  'deploy -canary',
  ':',
  'content:deploy',
  'AND',
  'OR',
  'NOT',
  'deploy AND',
  '(',
  ')',
  '((deploy)',
  '^deploy',
  '{deploy}',
  '+',
  "'",
  "'; DROP TABLE memories; --",
  "x' OR '1'='1",
  '%',
  '_',
  '%deploy%',
  '\\',
  '🚀',
  '"'.repeat(500),
];

describe('hostile input through the mem command', () => {
  it('refuses bad arguments with exit 1 or 2 and a clean message; search text is text; the export is unchanged', async () => {
    const before = await world();
    const key201 = `/proj/${'k'.repeat(195)}`;
    const missing = join(dir, 'no-such-file.json');
    const folder = join(dir, 'a-folder');
    mkdirSync(folder, { recursive: true });
    const badUtf8 = join(dir, 'bad.jsonl');
    writeFileSync(badUtf8, Buffer.from('{"content":"caf\xe9"}\n', 'latin1'));
    const badLines = join(dir, 'bad-lines.jsonl');
    writeFileSync(
      badLines,
      [
        '{',
        '[]',
        '{"content":123}',
        '{"content":"a\\u0000b"}',
        '{"content":"x","key":"/Bad Key"}',
        '{"content":"x","agentId":"../etc"}',
        deep(3000),
      ].join('\n'),
    );

    const corpus: string[][] = [
      // store: NUL, empty, bad keys, scopes, sources, tags, names
      ['store', 'a\u0000b'],
      ['store', ''],
      ['store', '   '],
      ['store'],
      ['store', 'x', '--key', key201],
      ['store', 'x', '--key', '../etc/passwd'],
      ['store', 'x', '--key', '/UPPER'],
      ['store', 'x', '--key', '/a//b'],
      ['store', 'x', '--key', '/a/'],
      ['store', 'x', '--key', '/longterm/nope/x'],
      ['store', 'x', '--key', '/longterm/company-story'],
      ['store', 'x', '--scope', 'global'],
      ['store', 'x', '--source', 'web'],
      ['store', 'x', '--tags', 'a\u0000'],
      ['store', 'x', '--name', 'a\u0000b'],
      ['store', 'half \ud800 pair'],
      ['store', 'x', '--json', '--key', key201],
      ['store', 'x', '--bogus-flag'],
      // search: limits, scopes, empty
      ['search', ''],
      ['search'],
      ...['-1', '0', '51', '1.5', 'NaN', 'abc', '1e9', '99999999999999999999', '', '0x10', 'Infinity'].map((l) => [
        'search',
        'deploy',
        '--limit',
        l,
      ]),
      ['search', 'deploy', '--scope', 'everyone'],
      ['search', 'deploy', '--source', 'web'],
      ['search', 'x'.repeat(4001)],
      // ids and keys that do not exist or are not ids
      ...['nope', '..', '../../etc/passwd', 'x'.repeat(300), "1' OR '1'='1", '*', '%', 'a\u0000'].flatMap((id) => [
        ['get', id],
        ['delete', id],
        ['edit', id, '--intent', 'x', '--content', 'y'],
        ['rate', id, '--useful', 'true', '--task-id', 't'],
        ['history', id],
        ['procedures', 'show', id],
        ['procedures', 'outcome', id, '--success', 'true'],
      ]),
      ['get'],
      ['get', '--key', '/nope'],
      ['get', '--key', key201],
      ['get', memId, '--key', '/proj/a_b'],
      ['edit', memId],
      ['edit', memId, '--intent', 'x'],
      ['edit', memId, '--intent', 'move', '--new-key', key201],
      ['edit', memId, '--intent', 'x', '--mode', 'sideways', '--content', 'y'],
      ['rate', memId, '--useful', 'maybe', '--task-id', 't'],
      ['rate', memId, '--useful', 'true'],
      ['rate', memId, '--useful', 'true', '--task-id', 't', '--note', 'n'.repeat(281)],
      ...['-1', '2', 'NaN', 'abc', ''].map((t) => ['dedup-check', 'deploy', '--threshold', t]),
      ['dedup-check', ''],
      ['recall', 'deploy', '--limit', '-5'],
      ['recall', 'deploy', '--threshold', 'high'],
      ['recall', ''],
      ['smart-recall'],
      ['smart-recall', 'deploy', '--limit', '0'],
      ['learn', 'x', '--for', 'bob', '--category', 'preference'],
      ['learn', 'x', '--for', '../etc', '--category', 'preference', '--role', 'lead'],
      ['learn', 'x', '--for', 'bob', '--category', 'nonsense', '--role', 'lead'],
      ['learn', 'x', '--category', 'preference', '--role', 'lead'],
      // files named on the command line
      ['index', missing],
      ['index', folder],
      ['import', missing],
      ['import', folder],
      ['import', badUtf8],
      ['import', badLines, '--role', 'lead'],
      ['procedures', 'add', missing],
      ['procedures', 'add', folder],
      ['export', '--out', join(dir, 'no-such-folder', 'x.jsonl')],
      ['export', '--out', folder],
      // global flags
      ['search', 'deploy', '--space', '../etc'],
      ['search', 'deploy', '--space', '.hidden'],
      ['search', 'deploy', '--agent', 'a/b'],
      ['search', 'deploy', '--agent', 'x'.repeat(81)],
      ['search', 'deploy', '--agent', 'a\u0000'],
      ['search', 'deploy', '--role', 'admin'],
      ['search', 'deploy', '--store', 'oracle'],
      ['search', 'deploy', '--embedder', 'magic'],
      ['search', 'deploy', '--transcripts', 'nowhere'],
      // structured
      ['facts', 'set', 'k', deep(5000), '--user', 'ana'],
      ['facts', 'set', 'k', `[${'['.repeat(20000)}${']'.repeat(20000)}]`, '--user', 'ana'],
      ['facts', 'set', 'k', '1', '--user', '../x'],
      ['facts', 'set', 'k', '1', '--user', 'a\u0000'],
      ['facts', 'set', 'k\u0000', '1', '--user', 'ana'],
      ['facts', 'set', 'k', '1', '--user', 'ana', '--source', 'god'],
      ['facts', 'set', 'k', '1', '--user', 'ana', '--topic', '..'],
      ['facts', 'set', 'k', '1'],
      ['facts', 'get', '--user', '..'],
      ['facts', 'get'],
      ['facts', 'delete', 'nope', '--user', 'ana'],
      ['episodes', 'add', 'x\u0000'],
      ['episodes', 'add', ''],
      ['episodes', 'add', 'x', '--outcome', 'great'],
      ['episodes', 'add', 'x', '--tags', 'a\u0000'],
      ...['-1', '0', 'NaN', '1.5', 'abc'].flatMap((n) => [
        ['episodes', 'recent', '--n', n],
        ['episodes', 'recall', 'deploy', '--limit', n],
        ['procedures', 'suggest', 'deploy', '--limit', n],
        ['consolidate', '--min', n, '--role', 'lead'],
      ]),
      ['procedures', 'add', '-'],
      ['procedures', 'outcome', procId, '--success', 'maybe'],
      ['forget', '--agent', 'bob'],
      ['forget', '--agent', '../x', '--role', 'lead'],
      ['forget', '--user', 'a/b', '--role', 'lead'],
      ['forget'],
      // conversations and notebooks: traversal in agent, file and archive names
      ...['..', '.hidden', 'a/b', 'a\\b', 'x'.repeat(81), 'a\u0000', ' main', '../../etc'].flatMap((agent) => [
        ['convo', 'add', 'x', '--agent', agent, '--role', 'user'],
        ['convo', 'show', '--agent', agent],
        ['convo', 'archives', '--agent', agent],
      ]),
      ['convo', 'add', 'x', '--role', 'god'],
      ['convo', 'add', '', '--role', 'user'],
      ['convo', 'compact', '--summary', ''],
      ...['../../etc/passwd', 'history_../../x', 'history_2026-01-01T00-00-00.000Z', '..'].map((a) => [
        'convo',
        'archives',
        '--read',
        a,
      ]),
      ...[
        '../../etc/passwd',
        '/etc/passwd',
        'a\\b.md',
        '.hidden.md',
        'a/b/c/d.md',
        'plans//x.md',
        'x'.repeat(301),
        'x\u0000.md',
      ].flatMap((file) => [
        ['notes', 'write', 'x', '--file', file],
        ['notes', 'read', file],
        ['notes', 'delete', file],
      ]),
      ['notes', 'delete', 'MEMORY.md'],
      ['notes', 'write', ''],
      ['notes', 'write', 'x', '--old-text', 'not there'],
      ['notes', 'read', 'MEMORY.md', '--offset', '-1'],
      ['notes', 'read', 'MEMORY.md', '--offset', 'abc'],
      ['notes', 'write', 'x', '--user', '../u'],
      ['notes', 'write', 'x', '--topic', 'a/b'],
      ['notes', 'search', ''],
      // usage
      ['frobnicate'],
      ['facts'],
      ['facts', 'frobnicate'],
    ];
    for (const args of corpus) await hostile(args);
    await hostile(['procedures', 'add', '-'], 'refused', '{');
    await hostile(['procedures', 'add', '-'], 'refused', '[]');
    await hostile(['procedures', 'add', '-'], 'refused', deep(5000));
    await hostile(['procedures', 'add', '-'], 'refused', '{"name":"x","steps":[{"toolName":"a\\u0000"}]}');
    await hostile(['import', '-', '--role', 'lead'], 'refused', '{"content":"a\\u0000"}\n{\n');
    await hostile(['store', '-'], 'refused', '');

    // Search text that is SQL or FTS5 syntax is just text (read-only, so part of this batch).
    // (text that starts with "-" reads as a flag: it is a usage error, exit 2, unless it follows "--")
    for (const q of FTS) {
      const arg = q.startsWith('-') ? ['--', q] : [q];
      if (q.startsWith('-')) await hostile(['search', q], 'refused');
      await hostile(['search', ...arg], 'ok');
      await hostile(['episodes', 'recall', ...arg], 'ok');
    }
    for (const q of FTS.slice(0, 8)) {
      const arg = q.startsWith('-') ? ['--', q] : [q];
      await hostile(['procedures', 'suggest', ...arg], 'ok');
      await hostile(['notes', 'search', ...arg], 'ok');
      await hostile(['dedup-check', ...arg], 'ok');
      await hostile(['smart-recall', '--json', ...arg], 'ok');
    }
    // LIKE wildcards in key prefixes are literal.
    for (const [prefix, keys] of [
      ['/proj/a_', ['/proj/a_b']],
      ['/proj/a%', []],
      ['/proj/%', []],
      ['%', []],
      ['_', []],
      ['/proj/a.', ['/proj/a.b']],
    ] as [string, string[]][]) {
      const r = await hostile(
        ['search', 'project note prefix tests', '--key-prefix', prefix, '--limit', '50', '--json'],
        'ok',
      );
      expect(
        JSON.parse(r.stdout)
          .results.map((x: { key: string }) => x.key)
          .sort(),
        prefix,
      ).toEqual(keys);
    }

    expect(problems.splice(0)).toEqual([]);
    expect(await world()).toBe(before);
  });

  it('fast-check: generated queries, limits, ids, agent and file names are answered cleanly', async () => {
    const before = await exportText();
    const token = fc.constantFrom(
      '"',
      '*',
      'NEAR',
      '-',
      ':',
      'AND',
      'OR',
      'NOT',
      '(',
      ')',
      '%',
      '_',
      "'",
      ';',
      'deploy',
      ' ',
      '🚀',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { minLength: 1, maxLength: 10 }), async (tokens) => {
        const q = tokens.join('');
        await hostile(['search', '--', q], q.trim() ? 'ok' : 'refused');
      }),
      { numRuns: 40, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: -100, max: 100 }).map(String), fc.string({ maxLength: 6 })),
        async (limit) => {
          const valid = /^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 50;
          await hostile(['search', 'deploy', '--limit', limit], valid ? 'ok' : 'refused');
        },
      ),
      { numRuns: 40, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 120 }), async (id) => {
        await hostile(['get', id], 'refused');
      }),
      { numRuns: 30, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 90 }), async (name) => {
        await hostile(['convo', 'show', '--agent', name], 'any');
        await hostile(['notes', 'read', name], 'any');
      }),
      { numRuns: 30, seed: SEED },
    );
    expect(problems.splice(0)).toEqual([]);
    expect(await exportText()).toBe(before);
  });
});
