import {
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
  type Principal,
} from '@mem/core';
import { findSecrets, type SecretScanner } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { expectMemError } from './port-fixture.js';
import { HOSTILE_UNITS } from './secret-examples.js';

/**
 * What an adapter gives the suite: the scanner, and credentials it finds that mem's own rules miss, built at run time
 * (never written as literal secrets in source: the repository scans itself).
 */
export interface SecretScannerFixture {
  scanner: SecretScanner;
  /** At least one credential of a kind mem's own rules (SECRET_RULES) do not know. */
  credentials: () => string[];
}

/**
 * Well-formed but fake credentials of kinds secretlint's recommended preset knows and mem's own rules do not
 * (Notion, Docker Hub, Grafana service account, Tailscale), built at run time so that no literal secret is in the
 * source.
 */
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function fakeChars(n: number, alphabet = ALNUM, seed = 7): string {
  let s = '';
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += alphabet[x % alphabet.length];
  }
  return s;
}
export const fakeCredentials = () => ({
  notion: ['ntn', fakeChars(11, '0123456789') + fakeChars(35)].join('_'),
  docker: ['dckr', 'pat', fakeChars(27, ALNUM, 11)].join('_'),
  grafana: ['glsa', fakeChars(32, ALNUM, 13), fakeChars(8, '0123456789abcdef')].join('_'),
  tailscale: ['tskey', 'auth', fakeChars(12, ALNUM, 17), fakeChars(30, ALNUM, 19)].join('-'),
});

const lead: Principal = { space: 'acme', agentId: 'lead1', role: 'lead' };

/**
 * The conformance suite of the SecretScanner port (docs/safety.md), and of the stack's use of it: positions point
 * into the right text, clean prose passes, what it finds is refused on writes with `SECRET_DETECTED` naming the
 * scanner (never the value) and changing nothing, and redacted in transcripts.
 */
export function describeSecretScanner(name: string, fixture: () => SecretScannerFixture): void {
  describe(`SecretScanner conformance: ${name}`, { timeout: 60_000 }, () => {
    it("finds credentials that mem's own rules miss, in the text and at the offset where they are", async () => {
      const { scanner, credentials } = fixture();
      const creds = credentials();
      expect(creds.length).toBeGreaterThan(0);
      for (const cred of creds) {
        expect(findSecrets(`the token is ${cred} for now`), 'mem already finds it: pick another kind').toEqual([]);
        const prefix = 'the docker login uses ';
        const found = await scanner.scan([
          { what: 'name', text: 'deploy notes' },
          { what: 'content', text: `${prefix}${cred} since Monday` },
        ]);
        expect(found.length, `not found: ${cred.slice(0, 6)}…`).toBeGreaterThan(0);
        const f = found[0]!;
        expect(f.text).toBe(1);
        expect(f.index).toBeGreaterThanOrEqual(prefix.length - 1);
        expect(f.index).toBeLessThanOrEqual(prefix.length);
        expect(f.index + f.length).toBeGreaterThanOrEqual(prefix.length + cred.length - 1);
        expect(f.label).not.toContain(cred);
        expect(f.kind).not.toContain(cred);
      }
    });

    it('runs in time linear in its input: 8× a hostile text costs far less than 64× (issue 38)', async () => {
      const { scanner } = fixture();
      const time = async (text: string) => {
        const t0 = performance.now();
        await scanner.scan([{ what: 'content', text }]);
        return performance.now() - t0;
      };
      const grow = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
      for (const unit of HOSTILE_UNITS) {
        let large = await time(grow(unit, 32_000));
        if (large < 5) continue;
        large = Math.min(large, await time(grow(unit, 32_000)));
        const small = Math.max(Math.min(await time(grow(unit, 4_000)), await time(grow(unit, 4_000))), 5 / 8);
        expect(large / small, `unit ${JSON.stringify(unit)}: ${large.toFixed(1)} ms at 32,000 characters`).toBeLessThan(
          24,
        );
      }
    });

    it('finds nothing in ordinary prose, nor in an empty call', async () => {
      const { scanner } = fixture();
      expect(await scanner.scan([])).toEqual([]);
      const found = await scanner.scan([
        { what: 'content', text: 'Caroline went to the LGBTQ support group on 7 May 2023 and felt welcomed.' },
        { what: 'tag', text: 'travel' },
        {
          what: 'content',
          text: 'Use https://example.com/docs?page=2 and call me at 10:30; the password policy is 12 chars.',
        },
      ]);
      expect(found).toEqual([]);
    });

    it('through a stack: a store holding one is refused with SECRET_DETECTED, naming the scanner, and nothing is written', async () => {
      const { scanner, credentials } = fixture();
      const cred = credentials()[0]!;
      const stack = createStack({
        knowledge: createInMemoryKnowledgeStore(),
        structured: createInMemoryStructuredStores(),
        notebooks: createInMemoryNotebookStore(),
        transcripts: createInMemoryTranscriptStore(),
        secretScanner: scanner,
      });
      try {
        const e = await expectMemError(
          stack.knowledge.store(lead, { content: `CI pushes with ${cred}` }),
          'SECRET_DETECTED',
        );
        expect(e.message).toContain(`found by ${scanner.id}`);
        expect(e.message).toContain('content');
        expect(e.message).not.toContain(cred);
        const t = await expectMemError(
          stack.knowledge.store(lead, { content: 'CI pushes images nightly', tags: ['ci', cred] }),
          'SECRET_DETECTED',
        );
        expect(t.message).toContain('tag');
        expect((await stack.knowledgeStore.stats('acme')).documents).toBe(0);

        const ok = await stack.knowledge.store(lead, { content: 'CI pushes images nightly' });
        await expectMemError(
          stack.knowledge.edit(lead, { id: ok.id, content: 'CI pushes images nightly', intent: `rotated ${cred}` }),
          'SECRET_DETECTED',
        );
        await expectMemError(
          stack.knowledge.rate(lead, { id: ok.id, useful: true, taskId: 't1', note: cred }),
          'SECRET_DETECTED',
        );
        expect((await stack.knowledge.get(lead, { id: ok.id })).content).toBe('CI pushes images nightly');

        await expectMemError(
          stack.notebook!.write({ space: 'acme', agentId: 'lead1' }, { content: `registry login ${cred}` }),
          'SECRET_DETECTED',
        );
        expect(await stack.notebook!.store.list({ space: 'acme', agent: 'lead1' })).toEqual([]);

        await expectMemError(
          stack.port('facts').upsert('acme', {
            user: 'u1',
            topic: null,
            key: 'docker',
            value: { token: cred },
            source: 'user',
            at: '2026-03-01T12:00:00.000Z',
          }),
          'SECRET_DETECTED',
        );
        expect(await stack.port('facts').get('acme', 'u1')).toEqual([]);
      } finally {
        await stack.close();
      }
    });

    it('through a stack: a transcript keeps the turn with the credential redacted', async () => {
      const { scanner, credentials } = fixture();
      const cred = credentials()[0]!;
      const transcripts = createInMemoryTranscriptStore();
      const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), transcripts, secretScanner: scanner });
      try {
        const convo = stack.conversations!.open({ space: 'acme', agentId: 'coder' });
        const [a, b] = await convo.addMany([
          { role: 'user', content: 'hello there' },
          { role: 'user', content: `use ${cred} for the registry` },
        ]);
        expect(a!.content).toBe('hello there');
        expect(b!.content).not.toContain(cred);
        expect(b!.content).toMatch(/^use \[REDACTED:[^\]]+\] for the registry$/);
        const stored = await transcripts.read('acme', 'coder');
        expect(JSON.stringify(stored)).not.toContain(cred);
      } finally {
        await stack.close();
      }
    });
  });
}
