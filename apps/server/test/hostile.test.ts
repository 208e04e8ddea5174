/**
 * Hostile input through the HTTP API and MCP (issue 9, point 3): a hand-written corpus plus fast-check generated
 * inputs — wrong types, missing and unknown fields, huge bodies, deep JSON, invalid UTF-8 and NUL bytes, SQL and
 * FTS5 syntax in search text, LIKE wildcards in key prefixes, path traversal in agent, file and archive names,
 * keys at and over 200 characters, negative / huge / fractional / NaN limits. Every refusal is a 4xx (or an MCP
 * tool error) with a clean `{code, message}`; search text is just text; and an export taken before and after the
 * refused batch is byte-identical. The number of inputs tried per door is printed.
 */
import { join } from 'node:path';
import type { Operation } from '@mem/operations';
import { defaultOperations, toJsonSchema } from '@mem/operations';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memProcess } from './helpers.js';
import {
  type Env,
  httpProblem,
  INTERNAL_LEAK,
  mcpClient,
  mcpProblem,
  type Reply,
  SEED,
  send,
  startEnv,
  type ToolReply,
  tool,
} from './hostile-kit.js';

type Json = Record<string, unknown>;
const BODY_LIMIT = 1024 * 1024;

let env: Env;
let lead: string;
let worker: string;
let memId: string;
let procId: string;
let ops: Operation[];
const tried = { http: 0, mcp: 0 };
const problems: string[] = [];

/** The snapshot that must not change under refused input: the export, plus the other stores' views. */
async function snapshot(): Promise<string> {
  const parts = await Promise.all([
    send(env.server.url, lead, 'GET', '/v1/export'),
    send(env.server.url, lead, 'GET', '/v1/agents/coder/notebook'),
    send(env.server.url, lead, 'GET', '/v1/agents/coder/notebook/file'),
    send(env.server.url, lead, 'GET', '/v1/agents/coder/conversation'),
    send(env.server.url, lead, 'GET', '/v1/facts?user=ana'),
    send(env.server.url, lead, 'GET', '/v1/episodes/recent?n=50'),
    send(env.server.url, lead, 'GET', `/v1/procedures/${procId}`),
  ]);
  for (const p of parts) expect(p.status).toBe(200);
  return parts.map((p) => p.text).join('\n=====\n');
}

async function exportText(): Promise<string> {
  return (await send(env.server.url, lead, 'GET', '/v1/export')).text;
}

/** Send one hostile HTTP request and record what is wrong with the answer. */
async function http(
  what: string,
  method: string,
  path: string,
  body?: unknown,
  opts: { expect?: 'refused' | 'ok' | 'any'; key?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  tried.http++;
  const r = await send(env.server.url, opts.key ?? worker, method, path, body, opts.headers);
  const problem =
    opts.expect === 'ok'
      ? r.status >= 200 && r.status < 300
        ? httpProblem(r)
        : `expected success, got ${r.status}: ${r.text.slice(0, 200)}`
      : httpProblem(r, opts.expect === 'any' ? 'any' : 'refused');
  if (problem) problems.push(`HTTP ${what} ${method} ${path.slice(0, 120)}: ${problem}`);
  return r;
}

async function mcp(
  client: Awaited<ReturnType<typeof mcpClient>>,
  what: string,
  name: string,
  args: unknown,
  expectation: 'refused' | 'ok' | 'any' = 'refused',
): Promise<ToolReply> {
  tried.mcp++;
  const r = await tool(client, name, args);
  const problem =
    expectation === 'ok'
      ? r.isError
        ? `expected success, got ${r.content[0]?.text?.slice(0, 200)}`
        : mcpProblem(r)
      : mcpProblem(r, expectation);
  if (problem) problems.push(`MCP ${what} ${name} ${JSON.stringify(args)?.slice(0, 120)}: ${problem}`);
  return r;
}

function takeProblems(): string[] {
  return problems.splice(0);
}

// ---------- the corpus ----------

const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number, leaf = '1') => `${'{"a":'.repeat(n)}${leaf}${'}'.repeat(n)}`;
const deepValue = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};

/** Search text that is SQL or FTS5 syntax: legitimately valid, so it must be answered normally. */
export const FTS_QUERIES = [
  '"',
  '""',
  '"unbalanced quote',
  '*',
  'deploy*',
  '*deploy',
  'NEAR',
  'NEAR(deploy canary)',
  'NEAR(deploy canary, 2)',
  'deploy NEAR canary',
  '-',
  '-deploy',
  'deploy -canary',
  '--',
  ':',
  'content:deploy',
  'name:x OR content:y',
  'AND',
  'OR',
  'NOT',
  'deploy AND',
  'AND deploy',
  'deploy AND NOT canary',
  '(',
  ')',
  '((deploy)',
  'deploy)',
  '^deploy',
  '{deploy canary}',
  '+',
  "'",
  "'; DROP TABLE memories; --",
  "x' OR '1'='1",
  '1; SELECT * FROM sqlite_master',
  '%',
  '_',
  '%deploy%',
  '\\',
  '\\"',
  'deploy\u0000canary',
  '\u0001\u0002\u0003',
  '🚀 deploy',
  'مرحبا deploy',
  '\u200b\u200d',
  '"'.repeat(3999),
  'a '.repeat(1999),
];

const TRAVERSAL_NAMES = [
  '..',
  '.',
  '...',
  '.hidden',
  '%2e%2e',
  '..%2f..%2fetc%2fpasswd',
  '..%5c..%5cwindows',
  'a%2fb',
  'a%5cb',
  '%00',
  'a%00b',
  '%20coder',
  'x'.repeat(81),
  '%0a',
];

const TRAVERSAL_FILES = [
  '../../etc/passwd',
  '../MEMORY.md',
  '/etc/passwd',
  'C:\\Windows\\win.ini',
  'a\\b.md',
  '.hidden.md',
  'plans/../../../x.md',
  'a/b/c/d.md',
  'plans//x.md',
  'x\u0000.md',
  'x'.repeat(301),
  '%2e%2e/x.md',
  'plans/.git/config',
  '',
];

const BAD_LIMITS: unknown[] = [-1, 0, 51, 1.5, -0.5, 1e9, 2 ** 53, '5', null, true, [5], { n: 5 }, Number.NaN];
const BAD_QUERY_NUMBERS = ['-1', '0', 'NaN', 'Infinity', '1e999', '1.5', 'abc', '', '99999999999999999999999', '0x10'];

/** Values of a type other than the field's, by JSON Schema type. */
function wrongValues(type: unknown): unknown[] {
  switch (type) {
    case 'string':
      return [123, true, null, ['x'], { a: 'x' }];
    case 'number':
    case 'integer':
      return ['5', true, null, [1], {}];
    case 'boolean':
      return ['true', 1, null, []];
    case 'array':
      return ['x', 1, {}, null];
    case 'object':
      return ['x', 1, [], null];
    default:
      return [];
  }
}

function propertiesOf(schema: Json): Record<string, Json> {
  const props: Record<string, Json> = {};
  for (const s of [schema, ...(((schema.anyOf ?? schema.oneOf) as Json[] | undefined) ?? [])])
    Object.assign(props, (s.properties ?? {}) as Record<string, Json>);
  return props;
}

function typeOf(schema: Json): unknown {
  if (schema.type) return Array.isArray(schema.type) ? undefined : schema.type;
  if (schema.enum) return 'string';
  return undefined;
}

function requiredOf(schema: Json): string[] {
  return [
    ...((schema.required as string[] | undefined) ?? []),
    ...(((schema.anyOf as Json[] | undefined) ?? []).flatMap((s) => (s.required as string[] | undefined) ?? []) ?? []),
  ];
}

/** A concrete path for an operation's route, with valid own values for its parameters. */
function pathOf(op: Operation, overrides: Record<string, string> = {}): string {
  const own: Record<string, string> = {
    id: op.http!.path.startsWith('/v1/procedures') ? procId : memId,
    agent: 'coder',
    tag: 'seed',
    archive: 'history_2026-01-01T00-00-00.000Z',
  };
  return op.http!.path.replace(/\{(\w+)\}/g, (_, p: string) => overrides[p] ?? encodeURIComponent(own[p] ?? 'x'));
}

const bodyOps = () =>
  ops.filter(
    (op) =>
      op.http &&
      op.http.bodyType !== 'ndjson' &&
      (op.http.method === 'POST' || op.http.method === 'PUT' || op.http.method === 'PATCH'),
  );
const bodySchemaOf = (op: Operation) => toJsonSchema(op.http!.body ?? op.input);
const toolOps = () => ops.filter((op) => op.tool);
const toolSchemaOf = (op: Operation) => (op.tool!.inputSchema ?? toJsonSchema(op.input)) as Json;

beforeAll(async () => {
  env = await startEnv('mem-hostile-', BODY_LIMIT);
  ops = defaultOperations(env.stack);
  lead = await env.key('h', 'boss', 'lead');
  worker = await env.key('h', 'coder', 'worker');
  const base = env.server.url;
  const seed = async (method: string, path: string, body: unknown, key = worker) => {
    const r = await send(base, key, method, path, body);
    expect(r.status, r.text).toBeLessThan(300);
    return r.body;
  };
  memId = (
    await seed('POST', '/v1/memories', {
      content: 'The deploy pipeline rolls out to one canary region first.',
      name: 'Deploy canary',
      tags: ['seed'],
    })
  ).id;
  for (const key of ['/proj/a_b', '/proj/axb', '/proj/a.b', '/proj/abc', '/proj/a-b'])
    await seed('POST', '/v1/memories', { content: `Project note stored under ${key} for prefix tests.`, key });
  await seed('POST', '/v1/memories', { content: 'Swarm wide: standup is at ten.', scope: 'swarm' }, lead);
  await seed('POST', '/v1/agents/coder/notebook', { content: '- Deploys happen on Tuesdays.' });
  await seed('POST', '/v1/agents/coder/notebook', { content: '# Plan', file: 'plans/q3.md' });
  await seed('POST', '/v1/agents/coder/conversation/messages', { role: 'user', content: 'hello there' });
  await seed('PUT', '/v1/facts', { user: 'ana', key: 'channel', value: 'email' });
  await seed('POST', '/v1/episodes', { summary: 'Deployed the canary with the deploy tool.', tags: ['seed'] });
  procId = (
    await seed('POST', '/v1/procedures', { name: 'Canary deploy', steps: [{ toolName: 'deploy' }], tags: ['seed'] })
  ).id;
});

afterAll(async () => {
  await env?.close();
  console.log(`hostile inputs tried: HTTP ${tried.http}, MCP ${tried.mcp}`);
});

describe('hostile input over HTTP', () => {
  it('refuses malformed, mistyped, oversized and traversing requests with a clean 4xx; the export is unchanged', async () => {
    const before = await snapshot();
    const exportBefore = await exportText();

    // Raw bodies that are not a JSON object, for every route that takes one.
    const raws: (string | Uint8Array)[] = [
      '{',
      '{"content": "x",}',
      "{'content': 'x'}",
      '[]',
      '[1,2]',
      '"content"',
      '123',
      'null',
      'true',
      'NaN',
      '\u0000',
      '{"content": "x"}\u0000',
      deepArray(50_000),
      deepObject(5_000),
      Buffer.from([0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    ];
    let turn = 0;
    for (const op of bodyOps()) {
      // Every raw body to the main write routes; two of them, in turn, to each other route.
      const all = ['memory-store', 'fact-set'].includes(op.name);
      for (const raw of all ? raws : [raws[turn++ % raws.length]!, raws[turn++ % raws.length]!])
        await http(`raw body to ${op.name}`, op.http!.method, pathOf(op), raw, {
          headers: { 'content-type': 'application/json' },
        });
      const schema = bodySchemaOf(op);
      const props = propertiesOf(schema);
      // Missing required fields (when the operation has any).
      if (requiredOf(schema).length > 0) await http(`missing fields of ${op.name}`, op.http!.method, pathOf(op), {});
      // Unknown fields, including prototype pollution attempts.
      await http(`unknown field to ${op.name}`, op.http!.method, pathOf(op), { zzz: 1 });
      await http(
        `__proto__ to ${op.name}`,
        op.http!.method,
        pathOf(op),
        '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
        { headers: { 'content-type': 'application/json' } },
      );
      // Every field with a value of the wrong type (the kinds of wrong value in turn; fast-check adds more below).
      for (const [field, sub] of Object.entries(props)) {
        const wrong = wrongValues(typeOf(sub));
        if (wrong.length === 0) continue;
        const value = wrong[turn++ % wrong.length];
        await http(`${field}=${JSON.stringify(value)} to ${op.name}`, op.http!.method, pathOf(op), { [field]: value });
      }
    }
    expect(({} as Json).polluted).toBeUndefined();

    // Too large: over the body limit (declared and streamed), and the connection still answers afterwards.
    const huge = JSON.stringify({ content: 'x'.repeat(BODY_LIMIT + 10) });
    const tooLarge = await http('body over the limit', 'POST', '/v1/memories', huge);
    expect([tooLarge.status, tooLarge.body.code]).toEqual([413, 'TOO_LARGE']);
    await http('import over the limit', 'POST', '/v1/import', huge, { key: lead });
    await http('notebook over the limit', 'POST', '/v1/agents/coder/notebook', huge);

    // Invalid UTF-8 and NUL bytes.
    await http('NUL in content', 'POST', '/v1/memories', { content: 'a\u0000b' });
    await http('NUL in name', 'POST', '/v1/memories', { content: 'fine', name: 'a\u0000b' });
    await http('NUL in tag', 'POST', '/v1/memories', { content: 'fine', tags: ['a\u0000'] });
    await http('NUL in key', 'POST', '/v1/memories', { content: 'fine', key: '/proj/a\u0000' });
    await http('control char in name', 'POST', '/v1/memories', { content: 'fine', name: 'a\u0007b' });
    await http('lone surrogate in content', 'POST', '/v1/memories', '{"content": "half \\ud800 pair"}', {
      headers: { 'content-type': 'application/json' },
    });
    await http(
      'invalid UTF-8 content',
      'POST',
      '/v1/memories',
      Buffer.from('{"content":"caf\xe9 \xc3\x28"}', 'latin1'),
      {
        headers: { 'content-type': 'application/json' },
      },
    );
    await http(
      'invalid UTF-8 notebook',
      'POST',
      '/v1/agents/coder/notebook',
      Buffer.from('{"content":"\xff"}', 'latin1'),
      {
        headers: { 'content-type': 'application/json' },
      },
    );
    await http('invalid UTF-8 import', 'POST', '/v1/import', Buffer.from('{"content":"\xff\xfe"}\n', 'latin1'), {
      key: lead,
    });
    await http('NUL in notebook content', 'POST', '/v1/agents/coder/notebook', { content: 'a\u0000' });
    await http('NUL in fact user', 'PUT', '/v1/facts', { user: 'a\u0000', key: 'k', value: 1 });
    await http('NUL in fact key', 'PUT', '/v1/facts', { user: 'ana', key: 'k\u0000', value: 1 });
    await http('NUL in episode', 'POST', '/v1/episodes', { summary: 'a\u0000b' });
    await http('NUL in procedure', 'POST', '/v1/procedures', { name: 'a\u0000', steps: [{ toolName: 'x' }] });

    // Deep JSON inside fields that take any JSON value.
    await http('deep fact value', 'PUT', '/v1/facts', `{"user":"ana","key":"deep","value":${deepObject(20_000)}}`, {
      headers: { 'content-type': 'application/json' },
    });
    await http(
      'deep fact value array',
      'PUT',
      '/v1/facts',
      `{"user":"ana","key":"deep","value":${deepArray(50_000)}}`,
      {
        headers: { 'content-type': 'application/json' },
      },
    );
    await http('deep episode metadata', 'POST', '/v1/episodes', `{"summary":"deep","metadata":${deepObject(20_000)}}`, {
      headers: { 'content-type': 'application/json' },
    });
    await http(
      'deep procedure args',
      'POST',
      '/v1/procedures',
      `{"name":"deep","steps":[{"toolName":"x","argsTemplate":${deepObject(20_000)}}]}`,
      { headers: { 'content-type': 'application/json' } },
    );
    await http('fact value nested 65 deep', 'PUT', '/v1/facts', {
      user: 'ana',
      key: 'deep',
      value: deepValue(65) as Json,
    });

    // Keys: over 200 characters, malformed, traversing, and lead-only for a worker.
    const key201 = `/proj/${'k'.repeat(195)}`;
    expect(key201.length).toBe(201);
    for (const key of [
      key201,
      `/longterm/facts/x/${'k'.repeat(400)}`,
      'relative/key',
      '/UPPER/case',
      '/a//b',
      '/a/',
      '/',
      '',
      '/a/../b',
      '/../../etc/passwd',
      '/a/b c',
      '/a/%2e%2e',
      '/longterm/unknown-root/x',
      '/longterm/entities/robots/r2',
      '/longterm/company-story',
    ]) {
      await http(`key ${key.slice(0, 40)}`, 'POST', '/v1/memories', { content: `key test ${key}`, key });
      await http(`newKey ${key.slice(0, 40)}`, 'PATCH', `/v1/memories/${memId}`, { intent: 'move', newKey: key });
      if (key !== '') await http(`get by key ${key.slice(0, 40)}`, 'GET', `/v1/memories/${encodeURIComponent(key)}`);
    }
    await http('name as invalid longterm key', 'POST', '/v1/memories', {
      content: 'x',
      name: '/longterm/facts/UPPER',
    });
    await http('index path traversal', 'POST', '/v1/index', { sourcePath: '/longterm/../x', content: 'y' });

    // Limits: negative, zero, over the maximum, fractional, NaN, Infinity, wrong types.
    for (const limit of BAD_LIMITS) {
      await http(`search limit ${limit}`, 'POST', '/v1/memories/search', { query: 'deploy', limit });
      await http(`smart-recall limit ${limit}`, 'POST', '/v1/smart-recall', { queries: ['deploy'], limit });
      await http(`dedup limit ${limit}`, 'POST', '/v1/memories/dedup-check', { text: 'deploy', limit });
      await http(`recall limit ${limit}`, 'POST', '/v1/recall', { task: 'deploy', limit });
      await http(`episode topK ${limit}`, 'POST', '/v1/episodes/recall', { query: 'deploy', topK: limit });
      await http(`notebook search limit ${limit}`, 'POST', '/v1/agents/coder/notebook/search', {
        query: 'deploy',
        limit,
      });
    }
    for (const t of [-0.1, 1.1, 'high', null])
      await http(`threshold ${t}`, 'POST', '/v1/memories/dedup-check', { text: 'deploy', threshold: t });
    await http('Infinity limit', 'POST', '/v1/memories/search', '{"query":"deploy","limit":1e400}', {
      headers: { 'content-type': 'application/json' },
    });
    await http('negative offset', 'GET', '/v1/agents/coder/notebook/file?offset=-1');
    for (const n of BAD_QUERY_NUMBERS) {
      await http(`list limit ${n}`, 'GET', `/v1/memories?limit=${encodeURIComponent(n)}`);
      await http(`recent n ${n}`, 'GET', `/v1/episodes/recent?n=${encodeURIComponent(n)}`);
      await http(`by-tag limit ${n}`, 'GET', `/v1/episodes/by-tag/seed?limit=${encodeURIComponent(n)}`);
      if (n !== '0') await http(`offset ${n}`, 'GET', `/v1/agents/coder/notebook/file?offset=${encodeURIComponent(n)}`);
    }
    await http('unknown query parameter', 'GET', '/v1/memories?zzz=1');
    await http('peek=maybe', 'GET', `/v1/memories/${memId}?peek=maybe`);

    // Path traversal in agent names (path parameter), file names and archive ids.
    for (const name of TRAVERSAL_NAMES) {
      for (const suffix of ['notebook/file', 'conversation'])
        await http(`agent ${name} ${suffix}`, 'GET', `/v1/agents/${name}/${suffix}`, undefined, { key: lead });
      await http(`agent ${name} write`, 'POST', `/v1/agents/${name}/notebook`, { content: 'x' }, { key: lead });
      await http(`agent ${name} add`, 'POST', `/v1/agents/${name}/conversation/messages`, {
        role: 'user',
        content: 'x',
      });
      // (inject-learning trims the agent name: " coder" is a legitimate way to write "coder", so not sent here)
      if (name !== '%20coder')
        await http(
          `learning for ${name}`,
          'POST',
          '/v1/learnings',
          { agentId: decodeURIComponent(name), learning: `lesson for ${name}`, category: 'preference' },
          { key: lead },
        );
      await http(`forget ${name}`, 'POST', '/v1/forget', { agentId: decodeURIComponent(name) }, { key: lead });
      await http(`list owner ${name}`, 'GET', `/v1/memories?agentId=${name}`, undefined, { expect: 'any' });
      await http(`facts user ${name}`, 'GET', `/v1/facts?user=${name}`);
      // (fetch resolves "." and ".." segments, %2e%2e included, before sending: those reach another route)
      await http(`archive ${name}`, 'GET', `/v1/agents/coder/conversation/archives/${name}`, undefined, {
        key: lead,
        expect: ['.', '..', '%2e%2e'].includes(name) ? 'any' : 'refused',
      });
    }
    for (const file of TRAVERSAL_FILES) {
      const q = `?file=${encodeURIComponent(file)}`;
      await http(`file ${file.slice(0, 30)} write`, 'POST', '/v1/agents/coder/notebook', { content: 'x', file });
      await http(`file ${file.slice(0, 30)} read`, 'GET', `/v1/agents/coder/notebook/file${q}`);
      await http(`file ${file.slice(0, 30)} delete`, 'DELETE', `/v1/agents/coder/notebook/file${q}`);
    }
    await http('delete MEMORY.md', 'DELETE', '/v1/agents/coder/notebook/file?file=MEMORY.md');

    // Ids that do not exist or are not ids.
    for (const id of ['nope', '%00', '..', '%2e%2e%2fx', 'x'.repeat(300), "1' OR '1'='1", '%ZZ', '*', '%25'])
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['DELETE', '', undefined],
        ['PATCH', '', { intent: 'x', content: 'y' }],
        ['GET', '/versions', undefined],
        ['POST', '/ratings', { useful: true, taskId: 't' }],
      ] as const)
        await http(`id ${id.slice(0, 20)}${suffix}`, method, `/v1/memories/${id}${suffix}`, body);
    await http('procedure id', 'GET', '/v1/procedures/nope');
    await http('procedure outcome', 'POST', '/v1/procedures/nope/outcomes', { success: true });

    // Imports whose every line is refused: reported per line (200), nothing written.
    const badLines = [
      '{',
      '[]',
      '{"content":123}',
      '{"content":"a\\u0000b"}',
      '{"content":"x","key":"/bad key"}',
      '{"content":"x","createdAt":"yesterday"}',
      '{"content":"x","agentId":"../etc"}',
      '{"content":"x","scope":"everyone"}',
      deepObject(3000),
    ].join('\n');
    const imported = await http('bad import lines', 'POST', '/v1/import', badLines, { key: lead, expect: 'any' });
    expect(imported.body).toMatchObject({ imported: 0, duplicates: 0 });
    for (const { code, message } of imported.body.errors as { code: string; message: string }[])
      expect(httpProblem({ status: 400, text: JSON.stringify({ code, message }), body: { code, message } })).toBeNull();

    // Auth and transport abuse.
    await http('bad bearer', 'GET', '/v1/whoami', undefined, { key: 'mem_0000000000000000_xxx' });
    await http('no scheme', 'GET', '/v1/whoami', undefined, { headers: { authorization: 'Basic abc' } });
    await http('unknown route', 'GET', '/v1/../../etc/passwd');
    await http('wrong method', 'PUT', '/v1/memories/search', { query: 'x' });
    await http('raw /mcp garbage', 'POST', '/mcp', '{not json', {
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    });

    // Search text that is SQL or FTS5 syntax is just text (read-only: part of this batch).
    // Every query goes to memory search and episode recall (both full-text indexes); the other text routes take
    // them in turn.
    const textRoutes: [string, (q: string) => Json][] = [
      ['/v1/smart-recall', (q) => ({ queries: [q] })],
      ['/v1/task-context', (q) => ({ task: q })],
      ['/v1/recall', (q) => ({ task: q })],
      ['/v1/memories/dedup-check', (q) => ({ text: q })],
      ['/v1/procedures/suggest', (q) => ({ query: q })],
      ['/v1/agents/coder/notebook/search', (q) => ({ query: q.slice(0, 1000) })],
    ];
    for (const [i, q] of FTS_QUERIES.entries()) {
      // A NUL in search text may be refused or searched for; either way it is answered cleanly.
      const exp = q.includes('\u0000') ? 'any' : q.trim().length > 0 ? 'ok' : 'refused';
      await http(`fts search ${q.slice(0, 20)}`, 'POST', '/v1/memories/search', { query: q }, { expect: exp });
      await http(`fts episodes ${q.slice(0, 20)}`, 'POST', '/v1/episodes/recall', { query: q }, { expect: exp });
      const [path, body] = textRoutes[i % textRoutes.length]!;
      await http(`fts ${path} ${q.slice(0, 20)}`, 'POST', path, body(q), { expect: exp });
      if (i % 4 === 0)
        await http(
          `fts tag ${q.slice(0, 20)}`,
          'GET',
          `/v1/episodes/by-tag/${encodeURIComponent(q.slice(0, 60))}`,
          undefined,
          {
            expect: 'any',
          },
        );
    }

    // LIKE wildcards in key prefixes are literal.
    const prefixCases: [string, string[]][] = [
      ['/proj/a_', ['/proj/a_b']],
      ['/proj/a%', []],
      ['/proj/a%b', []],
      ['/proj/%', []],
      ['/proj/_', []],
      ['%', []],
      ['_', []],
      ['/proj/a', ['/proj/a_b', '/proj/axb', '/proj/a.b', '/proj/abc', '/proj/a-b']],
      ['/PROJ/', []],
      ['/proj/a.', ['/proj/a.b']],
      ['/proj/a-', ['/proj/a-b']],
      ['/proj/a\\', []],
      ['/proj/[a]', []],
    ];
    for (const [keyPrefix, keys] of prefixCases) {
      const s = await http(
        `keyPrefix ${keyPrefix}`,
        'POST',
        '/v1/memories/search',
        {
          query: 'project note prefix tests',
          keyPrefix,
          limit: 50,
        },
        { expect: 'ok' },
      );
      expect(s.body.results.map((r: { key: string }) => r.key).sort(), keyPrefix).toEqual([...keys].sort());
      const l = await http(
        `list keyPrefix ${keyPrefix}`,
        'GET',
        `/v1/memories?keyPrefix=${encodeURIComponent(keyPrefix)}`,
        undefined,
        {
          expect: 'ok',
        },
      );
      expect(l.body.memories.map((r: { key: string }) => r.key).sort(), keyPrefix).toEqual([...keys].sort());
    }
    for (const prefix of ['%', '_', '%/', 'p_ans/', '../'])
      await http(
        `notebook prefix ${prefix}`,
        'GET',
        `/v1/agents/coder/notebook?prefix=${encodeURIComponent(prefix)}`,
        undefined,
        {
          expect: 'ok',
        },
      );

    expect(takeProblems()).toEqual([]);
    expect(await exportText()).toBe(exportBefore);
    expect(await snapshot()).toBe(before);
  });

  it('fast-check: mistyped fields, bad ids and bad limits are refused; search text and key prefixes are just text', async () => {
    const exportBefore = await exportText();
    const before = await snapshot();
    const anyJson = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.string(),
      fc.array(fc.jsonValue(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    );
    const isType = (type: unknown, v: unknown) =>
      type === 'string'
        ? typeof v === 'string'
        : type === 'number'
          ? typeof v === 'number'
          : type === 'integer'
            ? typeof v === 'number'
            : type === 'boolean'
              ? typeof v === 'boolean'
              : type === 'array'
                ? Array.isArray(v)
                : type === 'object'
                  ? typeof v === 'object' && v !== null && !Array.isArray(v)
                  : true;
    const fields = bodyOps().flatMap((op) =>
      Object.entries(propertiesOf(bodySchemaOf(op)))
        .filter(([, s]) => typeOf(s) !== undefined)
        .map(([field, s]) => ({ op, field, type: typeOf(s) })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fields),
        anyJson,
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
        async ({ op, field, type }, value, extra) => {
          if (isType(type, value)) return;
          const r = await http(
            `fc ${field} to ${op.name}`,
            op.http!.method,
            pathOf(op),
            { ...extra, [field]: value },
            {
              key: lead,
            },
          );
          if (r.body?.code === 'INVALID_INPUT' && !r.body.message.includes(field) && Object.keys(extra).length === 0)
            problems.push(`HTTP fc ${op.name}: message does not name ${field}: ${r.body.message}`);
        },
      ),
      { numRuns: 60, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }), async (id) => {
        const path = `/v1/memories/${encodeURIComponent(id)}`;
        const r = await http('fc id', 'GET', path);
        if (r.status === 200) problems.push(`HTTP fc id ${JSON.stringify(id)} found a memory`);
        if (id.length % 2) await http('fc id delete', 'DELETE', path);
        else await http('fc procedure id', 'GET', `/v1/procedures/${encodeURIComponent(id)}`);
      }),
      { numRuns: 30, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.double(), fc.string({ maxLength: 4 })),
        async (limit) => {
          const valid = typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= 50;
          await http(
            `fc limit ${limit}`,
            'POST',
            '/v1/memories/search',
            { query: 'deploy', limit },
            {
              expect: valid ? 'ok' : 'refused',
            },
          );
        },
      ),
      { numRuns: 30, seed: SEED },
    );
    const ftsToken = fc.constantFrom(
      '"',
      '*',
      'NEAR',
      'NEAR(',
      '-',
      ':',
      'AND',
      'OR',
      'NOT',
      '(',
      ')',
      '^',
      '{',
      '}',
      '+',
      "'",
      ';',
      '%',
      '_',
      '\\',
      'deploy',
      'canary',
      'content',
      'name',
      ' ',
      ' ',
      '\u0000',
      '🚀',
      'SELECT',
      '--',
      '/*',
      '*/',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(ftsToken, { minLength: 1, maxLength: 12 }), async (tokens) => {
        const q = tokens.join(tokens.length % 2 ? '' : ' ');
        const valid = q.trim().length > 0 && !q.includes('\u0000');
        const path = tokens.length % 2 ? '/v1/memories/search' : '/v1/episodes/recall';
        await http(`fc fts ${path}`, 'POST', path, { query: q }, { expect: valid ? 'ok' : 'any' });
      }),
      { numRuns: 60, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('%', '_', '/', 'proj', 'a', 'b', '.', '-', '\\', '*', '[', ']', '^'), {
          minLength: 1,
          maxLength: 8,
        }),
        async (parts) => {
          const keyPrefix = parts.join('');
          const r = await http(
            'fc keyPrefix',
            'POST',
            '/v1/memories/search',
            {
              query: 'project note prefix tests',
              keyPrefix,
              limit: 50,
            },
            { expect: 'ok' },
          );
          for (const res of (r.body?.results ?? []) as { key: string }[])
            if (!res.key.startsWith(keyPrefix)) problems.push(`keyPrefix ${keyPrefix} matched ${res.key}`);
        },
      ),
      { numRuns: 30, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }), async (agent) => {
        if (agent.length % 2)
          await http('fc agent', 'GET', `/v1/agents/${encodeURIComponent(agent)}/notebook`, undefined, {
            key: lead,
            expect: 'any',
          });
        else
          await http('fc file', 'GET', `/v1/agents/coder/notebook/file?file=${encodeURIComponent(agent)}`, undefined, {
            expect: 'any',
          });
      }),
      { numRuns: 30, seed: SEED },
    );
    expect(takeProblems()).toEqual([]);
    expect(await exportText()).toBe(exportBefore);
    expect(await snapshot()).toBe(before);
  });

  it('accepts what is legitimately valid (keys of exactly 200 characters, Unicode, large content) without crashing', async () => {
    const key200 = `/proj/${'k'.repeat(194)}`;
    expect(key200.length).toBe(200);
    const stored = await http(
      'key of 200',
      'POST',
      '/v1/memories',
      { content: 'at the limit', key: key200 },
      {
        expect: 'ok',
      },
    );
    const got = await http('get by key', 'GET', `/v1/memories/${stored.body.id}`, undefined, { expect: 'ok' });
    expect(got.body.key).toBe(key200);
    await http(
      'unicode',
      'POST',
      '/v1/memories',
      { content: '🚀 مرحبا 你好 \u200b Ω', name: 'Ünïcödé ✓' },
      { expect: 'ok' },
    );
    await http(
      'large content',
      'POST',
      '/v1/memories',
      { content: 'Large section.\n\n'.repeat(20_000) },
      {
        expect: 'ok',
      },
    );
    await http(
      'fts-like content',
      'POST',
      '/v1/memories',
      { content: 'NEAR("x" * y) AND -z: col:1 %_ \'; DROP TABLE x; --' },
      {
        expect: 'ok',
      },
    );
    const found = await http(
      'fts-like search',
      'POST',
      '/v1/memories/search',
      { query: 'NEAR("x" * y) AND -z:' },
      {
        expect: 'ok',
      },
    );
    expect(found.body.results.some((r: { content: string }) => r.content.includes('DROP TABLE'))).toBe(true);
    await http(
      'fact deep but fine',
      'PUT',
      '/v1/facts',
      { user: 'ana', key: 'nested', value: deepValue(20) as Json },
      {
        expect: 'ok',
      },
    );
    const nul = await http(
      'NUL in transcript (stripped, as the conversation service does)',
      'POST',
      '/v1/agents/coder/conversation/messages',
      {
        role: 'user',
        content: 'a\u0000b',
      },
      { expect: 'ok' },
    );
    expect(nul.body.message.content).toBe('ab');
    await http(
      'notebook file unicode',
      'POST',
      '/v1/agents/coder/notebook',
      { content: 'ünïcode', file: 'notes-2' },
      {
        expect: 'ok',
      },
    );
    expect(takeProblems()).toEqual([]);
  });
});

describe('hostile input over MCP (streamable HTTP, the real SDK client)', () => {
  it('answers every hostile tool call with isError {code, message}; search text is text; the export is unchanged', async () => {
    const client = await mcpClient(env.server, lead);
    let turn = 0;
    try {
      const exportBefore = await exportText();
      const before = await snapshot();
      for (const op of toolOps()) {
        const name = op.tool!.name;
        const schema = toolSchemaOf(op);
        if (requiredOf(schema).length > 0) await mcp(client, 'missing fields', name, {});
        await mcp(client, 'unknown field', name, { zzz: 1 });
        // The SDK drops a "__proto__" key while parsing arguments: refused or ignored, never polluting.
        await mcp(client, '__proto__', name, JSON.parse('{"__proto__": {"polluted": true}}'), 'any');
        await mcp(client, 'non-object arguments', name, [[], 'x', 1, null][turn++ % 4]);
        for (const [field, sub] of Object.entries(propertiesOf(schema))) {
          const wrong = wrongValues(typeOf(sub));
          if (wrong.length > 0)
            await mcp(client, `${field} wrong type`, name, { [field]: wrong[turn++ % wrong.length] });
        }
      }
      expect(({} as Json).polluted).toBeUndefined();
      await mcp(client, 'unknown tool', 'drop-tables', {});
      await mcp(client, 'NUL content', 'memory-store', { content: 'a\u0000b' });
      await mcp(client, 'NUL name', 'memory-store', { content: 'fine', name: 'a\u0000b' });
      await mcp(client, 'lone surrogate', 'memory-store', { content: 'half \ud800 pair' });
      await mcp(client, 'huge content', 'memory-store', { content: 'x'.repeat(BODY_LIMIT + 10) });
      await mcp(client, 'deep fact', 'fact-set', { user: 'ana', key: 'deep', value: deepValue(1_000) });
      await mcp(client, 'deep metadata', 'episode-store', { summary: 'deep', metadata: deepValue(1_000) });
      // Deeper than any client would serialise: raw JSON-RPC straight to the endpoint.
      for (const args of [deepObject(20_000), `{"user":"ana","key":"deep","value":${deepArray(50_000)}}`]) {
        tried.mcp++;
        const r = await send(
          env.server.url,
          lead,
          'POST',
          '/mcp',
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fact-set","arguments":${args}}}`,
          { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        );
        const problem = r.status >= 500 || /INTERNAL|Maximum call stack/.test(r.text) ? r.text.slice(0, 300) : null;
        if (problem) problems.push(`MCP raw deep arguments: ${r.status} ${problem}`);
        else if (r.status === 200 && !r.body?.result?.isError && !r.body?.error)
          problems.push(`MCP raw deep arguments accepted: ${r.text.slice(0, 200)}`);
      }
      for (const key of [`/proj/${'k'.repeat(195)}`, 'relative', '/a//b', '/../x', '/longterm/nope/x'])
        await mcp(client, `key ${key.slice(0, 20)}`, 'memory-store', { content: `k ${key}`, key });
      await mcp(client, 'newKey 201', 'memory-edit', { id: memId, intent: 'move', newKey: `/proj/${'k'.repeat(195)}` });
      for (const limit of BAD_LIMITS) {
        await mcp(client, `limit ${limit}`, 'memory-search', { query: 'deploy', limit });
        await mcp(client, `limit ${limit}`, 'smart-recall', { queries: ['deploy'], limit });
        await mcp(client, `topK ${limit}`, 'procedure-suggest', { query: 'deploy', topK: limit });
        await mcp(client, `limit ${limit}`, 'search_memory', { query: 'deploy', limit });
      }
      await mcp(client, 'negative offset', 'read_memory', { offset: -1 });
      for (const file of TRAVERSAL_FILES) {
        await mcp(client, 'file write', 'write_memory', { content: 'x', file });
        await mcp(client, 'file read', 'read_memory', { file });
        await mcp(client, 'file delete', 'delete_memory', { file });
      }
      await mcp(client, 'delete MEMORY.md', 'delete_memory', { file: 'MEMORY.md' });
      for (const name of TRAVERSAL_NAMES.map(decodeURIComponent)) {
        if (name !== ' coder')
          await mcp(client, 'learning for', 'inject-learning', {
            agentId: name,
            learning: `lesson for ${name}`,
            category: 'preference',
          });
        await mcp(client, 'forget', 'forget', { agentId: name });
        await mcp(client, 'fact user', 'fact-get', { user: name });
      }
      for (const id of ['nope', '..', 'x'.repeat(300), "1' OR '1'='1", '*', '\u0000']) {
        await mcp(client, 'get id', 'memory-get', { id });
        await mcp(client, 'delete id', 'memory-delete', { id });
        await mcp(client, 'edit id', 'memory-edit', { id, intent: 'x', content: 'y' });
        await mcp(client, 'rate id', 'memory_rate', { id, useful: true, taskId: 't' });
        await mcp(client, 'procedure id', 'procedure-get', { id });
        await mcp(client, 'outcome id', 'procedure-outcome', { id, success: true });
      }
      await mcp(client, 'both ref kinds', 'memory-get', { id: memId, key: '/proj/a_b' });
      await mcp(client, 'peek over mcp', 'memory-get', { id: memId, peek: true });
      const textTools: [string, (q: string) => Json][] = [
        ['smart-recall', (q) => ({ queries: [q] })],
        ['task-context-gathering', (q) => ({ task: q })],
        ['memory-dedup-check', (q) => ({ text: q })],
        ['episode-recall', (q) => ({ query: q })],
        ['procedure-suggest', (q) => ({ query: q })],
        ['search_memory', (q) => ({ query: q.slice(0, 1000) })],
        ['episode-by-tag', (q) => ({ tag: q.slice(0, 60) })],
      ];
      for (const [i, q] of FTS_QUERIES.entries()) {
        const exp = q.includes('\u0000') ? 'any' : q.trim().length > 0 ? 'ok' : 'refused';
        if (i % 2 === 0) await mcp(client, 'fts', 'memory-search', { query: q }, exp);
        const [name, args] = textTools[i % textTools.length]!;
        await mcp(client, 'fts', name, args(q), name === 'episode-by-tag' ? 'any' : exp);
      }
      for (const keyPrefix of ['/proj/a_', '/proj/a%', '%', '_']) {
        const r = await mcp(client, 'keyPrefix', 'memory-search', { query: 'project note prefix', keyPrefix }, 'ok');
        for (const res of r.structuredContent.results as { key: string }[])
          if (!res.key.startsWith(keyPrefix)) problems.push(`MCP keyPrefix ${keyPrefix} matched ${res.key}`);
      }

      // fast-check: mistyped fields for every tool, random ids, FTS-ish text.
      const fields = toolOps().flatMap((op) =>
        Object.entries(propertiesOf(toolSchemaOf(op)))
          .filter(([, s]) => typeOf(s) !== undefined)
          .map(([field, s]) => ({ name: op.tool!.name, field, type: typeOf(s) })),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...fields),
          fc.oneof(
            fc.integer(),
            fc.boolean(),
            fc.constant(null),
            fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }),
          ),
          async ({ name, field, type }, value) => {
            if (type === 'array' && Array.isArray(value)) return;
            if ((type === 'number' || type === 'integer') && typeof value === 'number') return;
            if (type === 'boolean' && typeof value === 'boolean') return;
            await mcp(client, `fc ${field}`, name, { [field]: value });
          },
        ),
        { numRuns: 50, seed: SEED },
      );
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 250 }), async (id) => {
          await mcp(client, 'fc id', 'memory-get', { id });
          await mcp(client, 'fc id', 'procedure-get', { id });
        }),
        { numRuns: 30, seed: SEED },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom('"', '*', 'NEAR', '-', ':', 'AND', 'OR', '(', ')', '%', '_', 'deploy', ' '), {
            minLength: 1,
            maxLength: 10,
          }),
          async (tokens) => {
            const q = tokens.join('');
            await mcp(client, 'fc fts', 'memory-search', { query: q }, q.trim() ? 'ok' : 'refused');
          },
        ),
        { numRuns: 30, seed: SEED },
      );
      expect(takeProblems()).toEqual([]);
      expect(await exportText()).toBe(exportBefore);
      expect(await snapshot()).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe('hostile input over MCP stdio (mem mcp)', () => {
  it('answers hostile tool calls on stdin with tool errors and keeps serving', async () => {
    const p = memProcess(['mcp', '--db', join(env.dir, 'stdio.db'), '--workspace', join(env.dir, 'stdio-ws')]);
    const transport = new StdioClientTransport({
      command: p.command,
      args: p.args,
      env: { ...(process.env as Record<string, string>), MEM_EMBEDDER: 'hashing' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c) => (stderr += String(c)));
    const client = new Client({ name: 'mem-hostile-stdio', version: '1.0.0' });
    await client.connect(transport);
    try {
      const calls: [string, unknown, 'refused' | 'ok' | 'any'][] = [
        ['memory-store', { content: 'a\u0000b' }, 'refused'],
        ['memory-store', { content: 'half \ud800 pair' }, 'refused'],
        ['memory-store', { content: 'x', key: `/proj/${'k'.repeat(195)}` }, 'refused'],
        ['memory-store', { content: 123 }, 'refused'],
        ['memory-store', [], 'refused'],
        ['memory-search', { query: 'deploy', limit: -1 }, 'refused'],
        ['memory-search', { query: 'NEAR("x" * -y) AND :' }, 'ok'],
        ['memory-search', { query: "'; DROP TABLE memories; --", keyPrefix: '/a_%' }, 'ok'],
        ['memory-get', { id: '../../etc/passwd' }, 'refused'],
        ['fact-set', { user: 'ana', key: 'deep', value: deepValue(1_000) }, 'refused'],
        ['episode-store', { summary: 'deep', metadata: deepValue(1_000) }, 'refused'],
        ['write_memory', { content: 'x', file: '../../etc/passwd' }, 'refused'],
        ['read_memory', { file: '/etc/passwd' }, 'refused'],
        ['forget', { agentId: '..' }, 'refused'],
        ['drop-tables', {}, 'refused'],
        ['memory-store', { content: 'Still serving after the hostile calls.' }, 'ok'],
      ];
      for (const [name, args, expectation] of calls) await mcp(client, 'stdio', name, args, expectation);
      expect(takeProblems()).toEqual([]);
      expect(stderr).not.toMatch(INTERNAL_LEAK);
    } finally {
      await client.close();
    }
  });
});
