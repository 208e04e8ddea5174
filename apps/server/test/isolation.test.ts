/**
 * Isolation over the network (issue 9, point 6). Data is created as space B ("beta") and as agent B of space A
 * ("bert" in "alpha"); then EVERY operation of the operation table — over HTTP and over MCP — is tried as space A's
 * worker and lead with B's ids, keys, agent names, file names, users, tags and archive ids. The operations and their
 * inputs are derived from the table (path, query and body schemas), so a new operation is covered without editing
 * this file. For each attempt a twin with the same shape names something that does not exist; the two answers must
 * be the same (status, code and message, the names aside) — so A never learns whether B's thing exists — and:
 *   - no answer contains anything of B that A did not send itself (ids, keys, content, names…);
 *   - no 403 where 404 is due (a 403 only for a role refusal that is the same for a missing target);
 *   - B's data is unchanged afterwards (export, versions, notebooks, transcripts, archives, facts, episodes, procedures).
 */
import { newId } from '@mem/core/adapter';
import type { Operation } from '@mem/operations';
import { defaultOperations, toJsonSchema } from '@mem/operations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, mcpClient, type Reply, send, startEnv, tool } from './hostile-kit.js';

type Json = Record<string, any>;

let env: Env;
let ops: Operation[];
const key: Record<'amy' | 'alf' | 'bert' | 'bob' | 'bea', string> = {} as never;

/** What belongs to B. `victim[name]` lists B's values for a field or path parameter of that name. */
const victim: Record<string, string[]> = {};
/** A value of the same shape that names nothing, for each victim value. */
const ghost = new Map<string, string>();
/** Strings of B that A must never see unless it sent them itself: content payloads, generated ids, archive ids. */
const hidden: string[] = [];
/** Values A legitimately made its own (a successful write named something with it): no longer evidence of a leak. */
const adopted = new Set<string>();

const HIDDEN = (what: string) => `hidden-payload-${what}-${Math.random().toString(36).slice(2, 10)}`;

/** Fields that take the role of a search: A searches with B's words. */
const SEARCH_FIELDS = new Set(['query', 'queries', 'task', 'text']);
/** Operations a worker is refused whatever the target (a role refusal, the same for any target): 403 is fine. */
const ROLE_GATED = new Set(['inject-learning', 'consolidate', 'forget']);

/** Values for fields A fills with its own, harmless data (required fields B's values do not cover). */
function ownValue(field: string, schema: Json): unknown {
  const fixed: Record<string, unknown> = {
    content: 'attacker content',
    learning: 'attacker learning',
    summary: 'attacker episode',
    name: 'attacker name',
    intent: 'attack',
    role: 'user',
    category: 'preference',
    useful: true,
    success: true,
    value: 'attacker value',
    steps: [{ toolName: 'attacker-tool' }],
    taskId: 'attacker-task',
    sourcePath: 'docs/attacker.md',
    mode: 'replace',
  };
  if (field in fixed) return fixed[field];
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      return 'attacker';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'attacker';
  }
}

function branches(schema: Json): Json[] {
  const alts = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return alts && alts.length > 0 ? alts : [schema];
}

/**
 * Inputs that aim B's values at an object schema: every field named in `victim` gets B's values (one variant per
 * value, in step), required fields B's values do not cover get A's own. Returns [victimInput, twinInput] pairs.
 */
function attackInputs(schema: Json, extraParams: string[] = []): { input: Json; params: Json }[] {
  const out: { input: Json; params: Json }[] = [];
  for (const branch of branches(schema)) {
    const props = (branch.properties ?? {}) as Record<string, Json>;
    const required = (branch.required ?? []) as string[];
    const aimed = [...Object.keys(props), ...extraParams].filter((f) => victim[f] || SEARCH_FIELDS.has(f));
    const variants = Math.max(1, ...aimed.map((f) => (victim[f] ?? victim.query!).length));
    for (let i = 0; i < variants; i++) {
      const input: Json = {};
      const params: Json = {};
      for (const f of aimed) {
        const values = victim[f] ?? victim.query!;
        const v = values[i % values.length]!;
        const target = extraParams.includes(f) ? params : input;
        target[f] = f === 'queries' || (props[f]?.type === 'array' && f !== 'queries') ? [v] : v;
      }
      for (const f of required) if (!(f in input)) input[f] = ownValue(f, props[f] ?? {});
      // A's own text names the B values of this attempt (never an id), so that its twin is not a duplicate of it.
      const named = aimed
        .filter((f) => f !== 'id')
        .map((f) => (victim[f] ?? victim.query!)[i % (victim[f] ?? victim.query!).length]);
      for (const f of ['content', 'learning', 'summary'])
        if (typeof input[f] === 'string' && named.length > 0) input[f] = `${input[f]} ${named.join(' ')}`;
      out.push({ input, params });
    }
  }
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** One pass over the text, longest names first, so that a replaced name is never replaced again. */
function replaceAll(text: string, names: string[], to: (name: string) => string): string {
  const sorted = [...names].sort((a, b) => b.length - a.length);
  return text.replace(new RegExp(sorted.map(escapeRe).join('|'), 'g'), to);
}

/** The same input with every victim value replaced by its ghost. */
function twin<T>(value: T): T {
  return JSON.parse(replaceAll(JSON.stringify(value), [...ghost.keys()], (v) => ghost.get(v)!)) as T;
}

/** A message with B's values and their ghosts blanked, to compare an answer with its twin's. */
function normal(text: string): string {
  const t = replaceAll(text, [...ghost.keys(), ...ghost.values()], () => '<name>');
  return t.replace(/[0-9a-z]{26}/g, '<id>').replace(/\d{4}-\d{2}-\d{2}T[\d:.-]+Z/g, '<time>');
}

/** Strings of space A's other agents (bert): a lead of space A may see them, a worker may not. */
const hiddenInA: string[] = [];

function leaks(as: string, request: string, response: string): string[] {
  return hidden.filter(
    (s) => !adopted.has(s) && !(as === 'alf' && hiddenInA.includes(s)) && response.includes(s) && !request.includes(s),
  );
}

interface Attempt {
  door: 'http' | 'mcp';
  op: string;
  as: string;
  status: number;
  code: string | null;
  message: string;
  text: string;
  request: string;
}

const findings: string[] = [];
const covered = { http: new Set<string>(), mcp: new Set<string>() };
let attempts = 0;

function judge(op: Operation, a: Attempt, t: Attempt): void {
  attempts += 2;
  const where = `${a.door} ${op.name} as ${a.as} ${a.request.slice(0, 160)}`;
  if (a.status >= 500) findings.push(`${where}: status ${a.status} ${a.text.slice(0, 200)}`);
  // A successful write made something of A's own under B's names or ids (e.g. a procedure with the same id).
  if (op.write && a.status < 300) for (const h of hidden) if (a.request.includes(h)) adopted.add(h);
  for (const leak of leaks(a.as, a.request, a.text))
    findings.push(`${where}: answer reveals "${leak}": ${a.text.slice(0, 300)}`);
  if (a.status !== t.status || a.code !== t.code)
    findings.push(
      `${where}: answers ${a.status} ${a.code} for B's data but ${t.status} ${t.code} for a missing one: ${a.message.slice(0, 200)} | ${t.message.slice(0, 200)}`,
    );
  else if (a.status >= 400 && normal(a.message) !== normal(t.message))
    findings.push(`${where}: the message differs from a missing one's: ${a.message} | ${t.message}`);
  if (a.status === 403 && !ROLE_GATED.has(op.name))
    findings.push(`${where}: 403 where 404 is due: ${a.message.slice(0, 200)}`);
}

async function httpAttempt(op: Operation, as: keyof typeof key, params: Json, input: Json): Promise<Attempt> {
  const http = op.http!;
  let path = http.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(String(params[p] ?? 'x')));
  const queryProps = http.query ? ((toJsonSchema(http.query).properties ?? {}) as Json) : {};
  const query = Object.entries(input).filter(([k]) => k in queryProps);
  if (query.length > 0)
    path += `?${new URLSearchParams(query.map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(',') : String(v)])).toString()}`;
  let body: unknown;
  if (http.bodyType === 'ndjson') body = `${JSON.stringify({ content: 'attacker import line', ...input })}\n`;
  else if (http.method !== 'GET' && (http.method !== 'DELETE' || http.body))
    body = Object.fromEntries(Object.entries(input).filter(([k]) => !(k in queryProps) && !(k in params)));
  const r: Reply = await send(env.server.url, key[as], http.method, path, body);
  return {
    door: 'http',
    op: op.name,
    as,
    status: r.status,
    code: r.status >= 400 ? (r.body?.code ?? null) : null,
    message: r.status >= 400 ? String(r.body?.message ?? r.text) : '',
    text: r.text,
    request: `${http.method} ${path} ${JSON.stringify(body ?? '')}`,
  };
}

async function mcpAttempt(
  client: Awaited<ReturnType<typeof mcpClient>>,
  op: Operation,
  as: string,
  input: Json,
): Promise<Attempt> {
  const r = await tool(client, op.tool!.name, input);
  const text = r.content.map((c) => c.text ?? '').join('\n');
  const err = r.isError ? (r.structuredContent?.error as { code?: string; message?: string } | undefined) : undefined;
  const status = !r.isError ? 200 : err?.code === 'NOT_FOUND' ? 404 : err?.code?.startsWith('FORBIDDEN') ? 403 : 400;
  return {
    door: 'mcp',
    op: op.name,
    as,
    status,
    code: err?.code ?? null,
    message: err?.message ?? '',
    text,
    request: JSON.stringify(input),
  };
}

/** Everything of B, as B sees it: compared before and after the attack. */
async function stateOfB(): Promise<string> {
  const get = async (k: string, path: string) => {
    const r = await send(env.server.url, k, 'GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.text;
  };
  const parts: string[] = [];
  parts.push(await get(key.bea, '/v1/export'));
  for (const [i, id] of victim.memoryId!.entries()) {
    const owner = [key.bob, key.bob, key.bea, key.bert, key.bob][i]!;
    parts.push(await get(owner, `/v1/memories/${id}?peek=true`), await get(owner, `/v1/memories/${id}/versions`));
  }
  parts.push(
    (await get(key.bert, '/v1/export'))
      .split('\n')
      .filter((l) => l.includes('"agentId":"bert"'))
      .join('\n'),
  );
  for (const [k, agent] of [
    [key.bob, 'bob'],
    [key.bert, 'bert'],
  ] as const) {
    parts.push(await get(k, `/v1/agents/${agent}/notebook`));
    for (const file of ['MEMORY.md', `plans/${agent}-plan.md`])
      parts.push(await get(k, `/v1/agents/${agent}/notebook/file?file=${encodeURIComponent(file)}`));
    parts.push(await get(k, `/v1/agents/${agent}/conversation`));
    parts.push(await get(k, `/v1/agents/${agent}/conversation/archives`));
  }
  for (const archive of victim.archive!) {
    const [k, agent] = archive === victim.bertArchive![0] ? [key.bert, 'bert'] : [key.bob, 'bob'];
    parts.push(await get(k, `/v1/agents/${agent}/conversation/archives/${archive}`));
  }
  parts.push(
    await get(key.bob, '/v1/facts?user=beta-user'),
    await get(key.bob, '/v1/facts?user=beta-user&topic=beta-topic'),
  );
  parts.push(await get(key.bob, '/v1/episodes/recent?n=100'), await get(key.bob, '/v1/episodes/by-tag/beta-tag'));
  for (const id of victim.procedureId!) parts.push(await get(key.bob, `/v1/procedures/${id}`));
  return parts.join('\n=====\n');
}

beforeAll(async () => {
  env = await startEnv('mem-isolation-');
  ops = defaultOperations(env.stack);
  key.amy = await env.key('alpha', 'amy', 'worker');
  key.alf = await env.key('alpha', 'alf', 'lead');
  key.bert = await env.key('alpha', 'bert', 'worker');
  key.bob = await env.key('beta', 'bob', 'worker');
  key.bea = await env.key('beta', 'bea', 'lead');
  const base = env.server.url;
  const make = async (k: string, method: string, path: string, body?: unknown) => {
    const r = await send(base, k, method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
    return r.body;
  };
  const payload = {
    bobAgent: HIDDEN('bob-agent'),
    bobSwarm: HIDDEN('bob-swarm'),
    beaLongterm: HIDDEN('bea-longterm'),
    bertAgent: HIDDEN('bert-agent'),
    notes: HIDDEN('notes'),
    convo: HIDDEN('convo'),
    bertNotes: HIDDEN('bert-notes'),
    bertConvo: HIDDEN('bert-convo'),
    fact: HIDDEN('fact'),
    episode: HIDDEN('episode'),
    procedure: HIDDEN('procedure'),
    index: HIDDEN('index'),
  };
  hidden.push(...Object.values(payload));
  // Space B.
  const m1 = await make(key.bob, 'POST', '/v1/memories', {
    content: `Zebracorn rollout plan for beta: ${payload.bobAgent}`,
    name: 'Beta private zebracorn plan',
    key: '/notes/bob-private',
    tags: ['beta-tag'],
  });
  const m2 = await make(key.bob, 'POST', '/v1/memories', {
    content: `Zebracorn shared team note of beta: ${payload.bobSwarm}`,
    key: '/team/beta-shared',
    scope: 'swarm',
    tags: ['beta-tag'],
  });
  const m4 = await make(key.bea, 'POST', '/v1/memories', {
    content: `Zebracorn long-term fact of beta: ${payload.beaLongterm}`,
    key: '/longterm/facts/beta/zebracorn-plan',
    scope: 'swarm',
  });
  const m5 = await make(key.bob, 'POST', '/v1/index', {
    sourcePath: 'docs/beta-runbook.md',
    content: `# Beta runbook\nZebracorn runbook. ${payload.index}`,
  });
  await make(key.bob, 'PATCH', `/v1/memories/${m1.id}`, {
    intent: 'more detail',
    mode: 'replace',
    content: `Zebracorn rollout plan for beta, revised: ${payload.bobAgent}`,
  });
  await make(key.bob, 'POST', `/v1/memories/${m1.id}/ratings`, { useful: true, taskId: 'beta-task' });
  await make(key.bob, 'POST', '/v1/agents/bob/notebook', { content: `- zebracorn notes ${payload.notes}` });
  await make(key.bob, 'POST', '/v1/agents/bob/notebook', {
    content: `# Plan ${payload.notes}`,
    file: 'plans/bob-plan.md',
  });
  await make(key.bob, 'POST', '/v1/agents/bob/conversation/messages', {
    role: 'user',
    content: `zebracorn ${payload.convo}`,
  });
  const bobCompact = await make(key.bob, 'POST', '/v1/agents/bob/conversation/compact', {
    summary: `summary ${payload.convo}`,
  });
  await make(key.bob, 'POST', '/v1/agents/bob/conversation/messages', {
    role: 'user',
    content: `after ${payload.convo}`,
  });
  await make(key.bob, 'PUT', '/v1/facts', { user: 'beta-user', key: 'beta-key', value: `zebracorn ${payload.fact}` });
  await make(key.bob, 'PUT', '/v1/facts', {
    user: 'beta-user',
    key: 'beta-key',
    value: `topic ${payload.fact}`,
    topic: 'beta-topic',
  });
  const ep = await make(key.bob, 'POST', '/v1/episodes', {
    id: 'beta-episode-1',
    summary: `Zebracorn episode of beta ${payload.episode}`,
    tags: ['beta-tag'],
    toolsUsed: ['beta-tool'],
    outcome: 'success',
  });
  const p1: { id: string } = await make(key.bob, 'POST', '/v1/procedures', {
    id: 'beta-proc-1',
    name: `Zebracorn procedure ${payload.procedure}`,
    trigger: 'zebracorn',
    steps: [{ toolName: 'beta-tool', expectedOutcome: payload.procedure }],
    tags: ['beta-tag'],
  });
  const p2 = await make(key.bob, 'POST', '/v1/procedures', {
    name: 'Zebracorn auto-id procedure',
    steps: [{ toolName: 'beta-tool' }],
  });
  // Agent B of space A.
  const m3 = await make(key.bert, 'POST', '/v1/memories', {
    content: `Zebracorn private note of bert: ${payload.bertAgent}`,
    name: 'Bert private zebracorn',
    key: '/notes/bert-private',
    tags: ['bert-tag'],
  });
  await make(key.bert, 'POST', '/v1/agents/bert/notebook', { content: `- zebracorn ${payload.bertNotes}` });
  await make(key.bert, 'POST', '/v1/agents/bert/notebook', {
    content: `# Plan ${payload.bertNotes}`,
    file: 'plans/bert-plan.md',
  });
  await make(key.bert, 'POST', '/v1/agents/bert/conversation/messages', {
    role: 'user',
    content: `zebracorn ${payload.bertConvo}`,
  });
  const bertCompact = await make(key.bert, 'POST', '/v1/agents/bert/conversation/compact', {
    summary: `bert ${payload.bertConvo}`,
  });

  const archiveOf = (r: Json) => String(r.archive?.id ?? r.archiveId ?? r.archive ?? '');
  const bobArchive = archiveOf(bobCompact);
  const bertArchive = archiveOf(bertCompact);
  expect(bobArchive, JSON.stringify(bobCompact)).toMatch(/^history_/);
  const memoryIds = [m1.id, m2.id, m4.id, m3.id, m5.id];
  Object.assign(victim, {
    id: [m1.id, m3.id, 'beta-proc-1', p2.id],
    memoryId: memoryIds,
    bertMemory: [m3.id],
    procedureId: ['beta-proc-1', p2.id],
    key: ['/notes/bob-private', '/notes/bert-private', '/longterm/facts/beta/zebracorn-plan'],
    newKey: ['/notes/bob-private', '/notes/bert-private'],
    keyPrefix: ['/notes/', '/longterm/facts/beta/'],
    agent: ['bob', 'bert', 'bea'],
    agentId: ['bob', 'bert', 'bea'],
    file: ['plans/bob-plan.md', 'plans/bert-plan.md'],
    prefix: ['plans/'],
    user: ['beta-user'],
    userId: ['beta-user'],
    topic: ['beta-topic'],
    archive: [bobArchive, bertArchive],
    bertArchive: [bertArchive],
    tag: ['beta-tag', 'bert-tag'],
    tags: ['beta-tag', 'bert-tag'],
    sourcePath: ['docs/beta-runbook.md'],
    query: ['zebracorn rollout plan', 'beta-tool runbook'],
  });
  const ghosts: Record<string, string> = {
    'beta-proc-1': 'ghst-proc-1',
    'beta-episode-1': 'ghst-episode-1',
    '/notes/bob-private': '/notes/gho-private',
    '/notes/bert-private': '/notes/ghos-private',
    '/team/beta-shared': '/team/ghos-shared',
    '/longterm/facts/beta/zebracorn-plan': '/longterm/facts/ghst/ghostcorn-plan',
    '/notes/': '/nots/',
    '/team/': '/tem/',
    '/longterm/facts/beta/': '/longterm/facts/ghst/',
    'docs/': 'dcs/',
    bob: 'gob',
    bert: 'gert',
    bea: 'gea',
    'plans/bob-plan.md': 'plans/gob-plan.md',
    'plans/bert-plan.md': 'plans/gert-plan.md',
    'plans/': 'plns/',
    'beta-user': 'ghst-user',
    'beta-topic': 'ghst-topic',
    'beta-tag': 'ghst-tag',
    'bert-tag': 'gert-tag',
    'docs/beta-runbook.md': 'docs/ghst-runbook.md',
    'zebracorn rollout plan': 'ghostcorn rollout plan',
    'beta-tool runbook': 'ghst-tool runbook',
  };
  for (const [v, g] of Object.entries(ghosts)) ghost.set(v, g);
  for (const id of [...memoryIds, p2.id, ep.id]) if (!ghost.has(id)) ghost.set(id, newId());
  for (const a of [bobArchive, bertArchive]) ghost.set(a, a.replace(/^history_\d{4}/, 'history_2001'));
  expect(p1.id).toBe('beta-proc-1');
  hidden.push(...memoryIds, p2.id, bobArchive, bertArchive);
  hiddenInA.push(payload.bertAgent, payload.bertNotes, payload.bertConvo, m3.id, bertArchive);
  expect(ep.id).toBe('beta-episode-1');
});

afterAll(async () => {
  await env?.close();
  console.log(
    `isolation: ${attempts} attempts; HTTP operations covered: ${covered.http.size} (${[...covered.http].join(', ')}); MCP tools covered: ${covered.mcp.size} (${[...covered.mcp].join(', ')})`,
  );
});

describe('isolation over the network: every operation, as space A and as agent A, against B', () => {
  it('never reads, changes or reveals the existence of B’s data over HTTP or MCP', async () => {
    const before = await stateOfB();
    // Agent A (a worker of the same space) aims at everything of B; space A's lead aims at space B only.
    const attackers: { as: 'amy' | 'alf'; skip: (input: unknown) => boolean }[] = [
      { as: 'amy', skip: () => false },
      {
        as: 'alf',
        // A lead may legitimately read and change its own space's agents (bert): only space B is aimed at.
        skip: (input) =>
          /bert|\/notes\/bert/.test(JSON.stringify(input)) || JSON.stringify(input).includes(victim.bertMemory![0]!),
      },
    ];
    const clients = {
      amy: await mcpClient(env.server, key.amy),
      alf: await mcpClient(env.server, key.alf),
    };
    try {
      for (const op of ops) {
        for (const { as, skip } of attackers) {
          if (op.http) {
            const params = [...op.http.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
            const schema = toJsonSchema(op.http.body ?? op.input) as Json;
            const querySchema = op.http.query ? (toJsonSchema(op.http.query) as Json) : { properties: {} };
            const merged = {
              ...schema,
              properties: { ...(schema.properties ?? {}), ...(querySchema.properties ?? {}) },
              ...(schema.anyOf
                ? {
                    anyOf: (schema.anyOf as Json[]).map((b) => ({
                      ...b,
                      properties: { ...(b.properties ?? {}), ...(querySchema.properties ?? {}) },
                    })),
                  }
                : {}),
            };
            const inputs =
              op.http.bodyType === 'ndjson'
                ? attackInputs(
                    { type: 'object', properties: { agentId: {}, key: {}, tags: { type: 'array' } } },
                    params,
                  )
                : attackInputs(
                    op.http.method === 'GET' && !op.http.query && params.length > 0 ? { properties: {} } : merged,
                    params,
                  );
            for (const { input, params: p } of inputs) {
              if (params.some((name) => p[name] === undefined)) for (const name of params) p[name] ??= 'attacker';
              if (skip({ input, p })) continue;
              const a = await httpAttempt(op, as, p, input);
              const t = await httpAttempt(op, as, twin(p), twin(input));
              judge(op, a, t);
              covered.http.add(op.name);
            }
          }
          if (op.tool) {
            for (const { input } of attackInputs(toJsonSchema(op.input) as Json)) {
              if (skip(input)) continue;
              const a = await mcpAttempt(clients[as], op, as, input);
              const t = await mcpAttempt(clients[as], op, as, twin(input));
              judge(op, a, t);
              covered.mcp.add(op.tool.name);
            }
          }
        }
      }
    } finally {
      await clients.amy.close();
      await clients.alf.close();
    }
    expect(findings).toEqual([]);
    // Every operation of the table was tried through every door it has.
    expect([...covered.http].sort()).toEqual(
      ops
        .filter((o) => o.http)
        .map((o) => o.name)
        .sort(),
    );
    expect([...covered.mcp].sort()).toEqual(
      ops
        .filter((o) => o.tool)
        .map((o) => o.tool!.name)
        .sort(),
    );
    expect(await stateOfB()).toBe(before);
  });

  it('storing B’s exact content or key as A makes A’s own memory, never B’s id', async () => {
    for (const [as, space] of [
      ['amy', 'alpha'],
      ['alf', 'alpha'],
    ] as const) {
      const r = await send(env.server.url, key[as], 'POST', '/v1/memories', {
        content: `Zebracorn private note of bert: copy by ${as}`,
        key: '/notes/bert-private',
      });
      expect(r.status, r.text).toBe(201);
      expect(victim.id).not.toContain(r.body.id);
      expect(space).toBe('alpha');
    }
  });
});
