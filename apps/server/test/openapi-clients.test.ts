/**
 * The OpenAPI document works with the tools users feed it: a maintained linter (Redocly, recommended rules)
 * finds no error (unresolved `$ref`s included), openapi-typescript generates types that a strict `tsc` accepts
 * in a small openapi-fetch client (and a wrongly typed body fails it), and an openapi-fetch client talks to a
 * real server (SQLite file, API key) on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';
import { type Env, startEnv } from './hostile-kit.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let env: Env;
let key: string;
let source: string;
let dir: string;
beforeAll(async () => {
  env = await startEnv('mem-openapi-clients-');
  key = await env.key('acme', 'coder', 'worker');
  const res = await fetch(`${env.server.url}/openapi.json`);
  expect(res.status).toBe(200);
  source = await res.text();
  dir = mkdtempSync(join(tmpdir(), 'mem-openapi-ts-'));
});
afterAll(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function lint(text: string): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({ source: text, absoluteRef: `${env.server.url}/openapi.json`, config });
}

const describeProblem = (p: NormalizedProblem) =>
  `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`;

describe('the OpenAPI document with maintained tools', () => {
  it('passes the Redocly linter (recommended rules) with no error, and the OpenAPI 3.1 schema validator', async () => {
    const problems = await lint(source);
    expect(problems.filter((p) => p.severity === 'error').map(describeProblem)).toEqual([]);
    expect(problems.filter((p) => p.ruleId.includes('unresolved')).map(describeProblem)).toEqual([]);
    const doc = JSON.parse(source);
    expect(Object.keys(doc.paths).length).toBeGreaterThanOrEqual(42);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    // The check can fail: a reference to the document root's `$defs` (what zod writes) is an error.
    const broken = JSON.parse(source);
    broken.components.schemas['fact-set.body'].properties.value = { $ref: '#/$defs/__schema0' };
    const found = await lint(JSON.stringify(broken));
    expect(found.filter((p) => p.severity === 'error').map((p) => p.ruleId)).toContain('no-unresolved-refs');
  });

  it('generates TypeScript types (openapi-typescript) that type-check a strict openapi-fetch client', async () => {
    const types = astToString(await openapiTS(source));
    expect(types).toContain('"/v1/memories/search"');
    // tsc resolves openapi-fetch (and its helpers, next to its real path) through a link to the installed package.
    const fetchPackage = dirname(dirname(realpathSync(require.resolve('openapi-fetch'))));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(fetchPackage, join(dir, 'node_modules', 'openapi-fetch'), 'dir');

    const client = (storeBody: string) => `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Fact = components['schemas']['fact-set.result']['fact'];

export async function roundTrip(baseUrl: string, key: string): Promise<Fact> {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });
  const stored = await api.POST('/v1/memories', { body: ${storeBody} });
  if (!stored.data) throw new Error(stored.error?.message ?? 'no data');
  const id: string = stored.data.id;
  const chunks: number = stored.data.chunkCount;
  // The responses are typed too (an \`any\` would leave these directives unused, which fails).
  // @ts-expect-error the id is a string
  const wrongId: number = stored.data.id;
  // @ts-expect-error a fact's source is one of four names
  const wrongSource: 'system' = (await api.GET('/v1/facts', { params: { query: { user: 'ana' } } })).data!.facts[0]!.source;
  const found = await api.POST('/v1/memories/search', { body: { query: 'deploy window', limit: 5, scope: 'swarm' } });
  const first: string | undefined = found.data?.results[0]?.id;
  const score: number | undefined = found.data?.results[0]?.score;
  const got = await api.GET('/v1/memories/{id}', { params: { path: { id }, query: { peek: 'true' } } });
  const content: string | undefined = got.data?.content;
  const set = await api.PUT('/v1/facts', {
    body: { user: 'ana', key: 'deploy.window', value: { days: ['tue', 'thu'], hours: 2, remote: null }, source: 'user' },
  });
  if (!set.data) throw new Error(\`\${set.error?.code}: \${set.error?.message}\`);
  const status: 'created' | 'updated' | 'kept' = set.data.status;
  const facts = await api.GET('/v1/facts', { params: { query: { user: 'ana' } } });
  const keys: string[] = (facts.data?.facts ?? []).map((f) => f.key);
  console.log(chunks, wrongId, wrongSource, first, score, content, status, keys);
  return set.data.fact;
}
`;
    const check = async (name: string, storeBody: string) => {
      const folder = join(dir, name);
      mkdirSync(folder);
      writeFileSync(join(folder, 'api.d.ts'), types);
      writeFileSync(join(folder, 'client.ts'), client(storeBody));
      writeFileSync(
        join(folder, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noUncheckedIndexedAccess: true,
            exactOptionalPropertyTypes: true,
            noEmit: true,
            target: 'ES2022',
            lib: ['ES2022', 'DOM'],
            module: 'ESNext',
            moduleResolution: 'Bundler',
            types: [],
            skipLibCheck: false,
          },
          files: ['client.ts'],
        }),
      );
      try {
        await run(process.execPath, [TSC, '-p', join(folder, 'tsconfig.json')], { cwd: folder });
        return '';
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? error);
      }
    };
    const [good, bad] = await Promise.all([
      check('good', `{ content: 'Deploys happen on Tuesday and Thursday.', name: 'Deploy window', scope: 'swarm' }`),
      check('bad', `{ content: 42, name: 'Deploy window', scope: 'swarm' }`),
    ]);
    expect(good).toBe('');
    // A wrongly typed body is refused by the generated types.
    expect(bad).toMatch(/client\.ts\(\d+,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
  }, 120_000);

  it('serves an openapi-fetch client: store, search, get, set a fact', async () => {
    const api = createClient<any>({ baseUrl: env.server.url, headers: { Authorization: `Bearer ${key}` } });
    const stored = await api.POST('/v1/memories', {
      body: { content: 'Deploys happen on Tuesday and Thursday afternoons.', name: 'Deploy window', scope: 'swarm' },
    });
    expect(stored.response.status).toBe(201);
    expect(stored.data).toMatchObject({ key: expect.any(String), chunkCount: 1, deduplicated: false });
    const id = stored.data.id as string;

    const found = await api.POST('/v1/memories/search', { body: { query: 'deploy days', limit: 5 } });
    expect(found.response.status).toBe(200);
    expect(found.data.results[0]).toMatchObject({ id, name: 'Deploy window', agentId: 'coder', scope: 'swarm' });

    const got = await api.GET('/v1/memories/{id}', { params: { path: { id } } });
    expect(got.data).toMatchObject({
      id,
      content: 'Deploys happen on Tuesday and Thursday afternoons.',
      accessCount: 1,
      agentId: 'coder',
    });
    const missing = await api.GET('/v1/memories/{id}', { params: { path: { id: 'nope' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'NOT_FOUND' });

    const set = await api.PUT('/v1/facts', {
      body: { user: 'ana', key: 'deploy.window', value: { days: ['tue', 'thu'], hours: 2, remote: null } },
    });
    expect(set.response.status).toBe(200);
    expect(set.data).toMatchObject({
      status: 'created',
      fact: { user: 'ana', key: 'deploy.window', value: { days: ['tue', 'thu'], hours: 2, remote: null } },
    });
    const facts = await api.GET('/v1/facts', { params: { query: { user: 'ana' } } });
    expect(facts.data.facts.map((f: { key: string }) => f.key)).toEqual(['deploy.window']);
    const refused = await api.POST('/v1/memories', { body: { content: 42 } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'INVALID_INPUT' });
  });
});
