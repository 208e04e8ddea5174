/**
 * The secret corpus of issue 9 §4: one realistic credential of every kind the detector knows, refused through the
 * three write paths that must never hold one (knowledge memories, notebooks, facts), and a false-positive check over
 * every turn of the LoCoMo data set in the repository's shared data (none may be refused).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { createInMemoryNotebookStore } from '../src/adapters/in-memory-notebook.js';
import { createInMemoryStructuredStores } from '../src/adapters/in-memory-structured-stores.js';
import { assertNoSecrets, findSecrets, SECRET_RULES } from '../src/domain/secrets.js';
import { MemError } from '../src/errors.js';
import { ManualClock } from '../src/ports/clock.js';
import { createStack, type Stack } from '../src/stack.js';
import type { Principal } from '../src/types.js';

/** Deterministic filler: `n` characters drawn from `alphabet` (no two samples share a value). */
function fill(seed: number, n: number, alphabet = 'aB3dE5gH7jK9mN2pQ4sT6vW8yZ'): string {
  let x = seed * 2_654_435_761;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1_103_515_245 + 12_345) >>> 0;
    out += alphabet[(x >>> 16) % alphabet.length];
  }
  return out;
}
const HEX = '0123456789abcdef';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

interface Sample {
  kind: string;
  category: 'cloud' | 'vcs' | 'chat' | 'llm' | 'saas' | 'jwt' | 'private-key' | 'url' | 'password';
  /** The credential itself: never echoed in an error. */
  secret: string;
  /** The text around it, as a user would paste it. */
  text: (secret: string) => string;
}

const S = (
  kind: string,
  category: Sample['category'],
  secret: string,
  text: (s: string) => string = (s) => `use ${s} for it`,
) => ({ kind, category, secret, text });

const jwtPart = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

const CORPUS: Sample[] = [
  S('aws-access-key-id', 'cloud', `AKIA${fill(1, 16, UPPER)}`, (s) => `The deploy user is ${s}.`),
  S('aws-secret-access-key', 'cloud', fill(2, 40), (s) => `aws_secret_access_key = ${s}`),
  S('google-api-key', 'cloud', `AIza${fill(3, 35)}`, (s) => `maps key: ${s}`),
  S('google-oauth-token', 'cloud', `ya29.${fill(4, 60)}`, (s) => `curl -H "x-token ${s}"`),
  S(
    'azure-storage-key',
    'cloud',
    `${fill(5, 86)}==`,
    (s) => `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${s};`,
  ),
  S('digitalocean-token', 'cloud', `dop_v1_${fill(6, 64, HEX)}`),
  S('databricks-token', 'cloud', `dapi${fill(7, 32, HEX)}`),
  S('vault-token', 'cloud', `hvs.${fill(8, 40)}`, (s) => `VAULT_TOKEN is ${s}`),
  S('github-token', 'vcs', `ghp_${fill(9, 36)}`, (s) => `git clone https://github.com/acme/app with token ${s}`),
  S('github-fine-grained-token', 'vcs', `github_pat_${fill(10, 82)}`),
  S('gitlab-token', 'vcs', `glpat-${fill(11, 20)}`),
  S('npm-token', 'vcs', `npm_${fill(12, 36)}`, (s) => `//registry.npmjs.org/:_authToken ${s}`),
  S('pypi-token', 'vcs', `pypi-AgEIcHlwaS5vcmc${fill(13, 70)}`),
  S('slack-token', 'chat', `xoxb-${fill(14, 12, HEX)}-${fill(15, 13, HEX)}-${fill(16, 24)}`),
  S(
    'slack-webhook',
    'chat',
    `https://hooks.slack.com/services/T${fill(17, 8, UPPER)}/B${fill(18, 8, UPPER)}/${fill(19, 24)}`,
  ),
  S('discord-webhook', 'chat', `https://discord.com/api/webhooks/123456789012345678/${fill(20, 68)}`),
  S('telegram-bot-token', 'chat', `123456789:AA${fill(21, 33)}`),
  S('discord-bot-token', 'chat', `MTA${fill(41, 23)}.G${fill(42, 5)}.${fill(43, 38)}`, (s) => `DISCORD_TOKEN ${s}`),
  S('openai-api-key', 'llm', `sk-proj-${fill(22, 48)}`, (s) => `OPENAI key ${s}`),
  S('anthropic-api-key', 'llm', `sk-ant-api03-${fill(23, 93)}`),
  S('groq-api-key', 'llm', `gsk_${fill(24, 52)}`),
  S('xai-api-key', 'llm', `xai-${fill(25, 80)}`),
  S('perplexity-api-key', 'llm', `pplx-${fill(26, 48)}`),
  S('replicate-api-token', 'llm', `r8_${fill(27, 37)}`),
  S('huggingface-token', 'llm', `hf_${fill(28, 34)}`),
  S('stripe-key', 'saas', `sk_live_${fill(29, 24)}`),
  S('twilio-api-key', 'saas', `SK${fill(30, 32, HEX)}`),
  S('sendgrid-api-key', 'saas', `SG.${fill(31, 22)}.${fill(32, 43)}`),
  S('mailgun-api-key', 'saas', `key-${fill(33, 32, HEX)}`),
  S('shopify-token', 'saas', `shpat_${fill(34, 32, HEX)}`),
  S('square-token', 'saas', `sq0atp-${fill(35, 22)}`),
  S('linear-api-key', 'saas', `lin_api_${fill(36, 40)}`),
  S('age-secret-key', 'saas', `AGE-SECRET-KEY-1${fill(37, 58, UPPER)}`),
  S(
    'jwt',
    'jwt',
    `${jwtPart({ alg: 'HS256', typ: 'JWT' })}.${jwtPart({ sub: 'u-42', name: 'Ada', iat: 1_700_000_000 })}.${fill(38, 43)}`,
    (s) => `session cookie ${s}`,
  ),
  S(
    'private-key',
    'private-key',
    '-----BEGIN RSA PRIVATE KEY-----',
    (s) => `${s}\nMIIEowIBAAKCAQEA${fill(39, 64)}\n-----END RSA PRIVATE KEY-----`,
  ),
  S('authorization-header', 'password', fill(40, 40), (s) => `Authorization: Bearer ${s}`),
  S('url-credentials', 'url', 'pa55-Word-9', (s) => `DATABASE_URL=postgres://admin:${s}@db.internal:5432/app`),
  S('password-assignment', 'password', 'Tr0ub4dor&3x', (s) => `password=${s}`),
];

const lead: Principal = { space: 'acme', agentId: 'lead-1', role: 'lead' };
const alice: Principal = { space: 'acme', agentId: 'alice', role: 'worker' };

function stack(): Stack {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    clock: new ManualClock('2026-03-01T12:00:00.000Z'),
    structured: createInMemoryStructuredStores(),
    notebooks: createInMemoryNotebookStore(),
  });
}

async function refusal(promise: Promise<unknown>): Promise<MemError> {
  try {
    await promise;
  } catch (error) {
    if (MemError.is(error)) return error;
    throw error;
  }
  throw new Error('expected SECRET_DETECTED, but the write succeeded');
}

function expectRefusedFor(e: MemError, sample: Sample): void {
  expect(e.code, e.message).toBe('SECRET_DETECTED');
  expect(e.message).toContain(`(${sample.kind})`);
  expect(e.message).not.toContain(sample.secret);
  expect(JSON.stringify(e.details ?? {})).not.toContain(sample.secret);
}

describe('secret corpus (issue 9 §4)', () => {
  it('covers at least 30 kinds, every rule of the detector, and every category the issue names', () => {
    const kinds = new Set(CORPUS.map((c) => c.kind));
    expect(kinds.size).toBe(CORPUS.length);
    expect(kinds.size).toBeGreaterThanOrEqual(30);
    expect([...kinds].sort()).toEqual(SECRET_RULES.map((r) => r.kind).sort());
    expect(new Set(CORPUS.map((c) => c.category))).toEqual(
      new Set(['cloud', 'vcs', 'chat', 'llm', 'saas', 'jwt', 'private-key', 'url', 'password']),
    );
  });

  it.each(CORPUS.map((c) => [c.kind, c] as const))('detects %s as that kind', (_kind, sample) => {
    const text = sample.text(sample.secret);
    expect(text).toContain(sample.secret);
    expect(findSecrets(text).map((f) => f.kind)).toEqual([sample.kind]);
  });

  it('refuses every kind in knowledge memories (content and name), notebooks and facts, never echoing the value', async () => {
    const s = stack();
    const facts = s.port('facts');
    const notebook = s.notebook!;
    const refused: string[] = [];
    for (const sample of CORPUS) {
      const text = sample.text(sample.secret);
      expectRefusedFor(await refusal(s.knowledge.store(alice, { content: `Ops note. ${text}` })), sample);
      // Names are one line (issue 15): the one-line form of the text.
      expectRefusedFor(
        await refusal(s.knowledge.store(alice, { content: 'A harmless note.', name: text.replace(/\s+/g, ' ') })),
        sample,
      );
      expectRefusedFor(await refusal(s.knowledge.store(lead, { content: text, scope: 'swarm' })), sample);
      expectRefusedFor(await refusal(notebook.write(alice, { content: `- ${text}` })), sample);
      expectRefusedFor(await refusal(notebook.write(alice, { content: text, file: 'ops/creds.md' })), sample);
      expectRefusedFor(
        await refusal(
          facts.upsert('acme', {
            user: 'ada',
            topic: null,
            key: 'deploy',
            value: { how: text },
            source: 'user',
            at: '2026-03-01T12:00:00.000Z',
          }),
        ),
        sample,
      );
      refused.push(sample.kind);
    }
    expect(refused).toHaveLength(CORPUS.length);
    // Nothing was written anywhere.
    expect((await s.knowledge.stats(lead)).documents).toBe(0);
    expect((await notebook.list(alice, {})).files).toEqual([]);
    expect(await facts.get('acme', 'ada')).toEqual([]);
    // The same texts with the secret replaced by a reference are accepted.
    const ok = await s.knowledge.store(alice, { content: CORPUS[0]!.text('the key in the team vault') });
    expect(ok.id).toBeTruthy();
  });

  it('refuses no turn of the LoCoMo data set (false-positive check over every turn)', async () => {
    // The project's shared data sits next to the repository (../shared); a checkout elsewhere (CI clones into a
    // temporary folder) finds it through MEM_LOCOMO or the workplace's shared folder.
    const candidates = [
      process.env.MEM_LOCOMO,
      fileURLToPath(new URL('../../../../shared/data/locomo10.json', import.meta.url)),
      '/work/shared/data/locomo10.json',
    ].filter((c): c is string => !!c);
    const path = candidates.find((c) => existsSync(c));
    if (!path) {
      throw new Error(
        `The LoCoMo data set is missing (looked at ${candidates.join(', ')}): it is the project's shared data (shared/data/locomo10.json, see shared/data/README.md). Set MEM_LOCOMO to its path.`,
      );
    }
    const data = JSON.parse(readFileSync(path, 'utf8')) as { conversation: Record<string, unknown> }[];
    const turns: string[] = [];
    for (const sample of data) {
      for (const [key, value] of Object.entries(sample.conversation)) {
        if (!/^session_\d+$/.test(key)) continue;
        for (const t of value as { speaker: string; text: string; blip_caption?: string }[]) {
          turns.push(`${t.speaker}: ${t.text}${t.blip_caption ? ` [shares an image: ${t.blip_caption}]` : ''}`);
        }
      }
    }
    expect(turns.length).toBe(5882);
    const refused = turns.filter((t) => findSecrets(t).length > 0);
    expect(refused).toEqual([]);
    // And through the service that refuses: every turn stored as a memory (one space per conversation batch).
    const s = stack();
    let stored = 0;
    for (const t of turns) {
      assertNoSecrets(t);
      await s.knowledge.store(alice, { content: t });
      stored++;
    }
    expect(stored).toBe(turns.length);
  });
});
