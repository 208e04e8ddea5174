import { createInMemoryKnowledgeStore, createStack, type Principal } from '@mem/core';
import { describeSecretScanner, fakeCredentials, locomoTurns } from '@mem/testkit/internal';
import { describe, expect, it } from 'vitest';
import { createSecretlintScanner } from '../src/index.js';

describeSecretScanner('secretlint recommended preset', () => ({
  scanner: createSecretlintScanner(),
  credentials: () => Object.values(fakeCredentials()),
}));

describe('createSecretlintScanner', () => {
  it('names each finding by the secretlint rule that found it', async () => {
    const creds = fakeCredentials();
    const scanner = createSecretlintScanner();
    const found = await scanner.scan(Object.values(creds).map((text) => ({ what: 'content', text })));
    expect(found.map((f) => [f.text, f.kind.split(':')[0]])).toEqual([
      [0, 'secretlint-notion'],
      [1, 'secretlint-docker'],
      [2, 'secretlint-grafana'],
      [3, 'secretlint-tailscale'],
    ]);
    expect(found.map((f) => f.label)).toEqual([
      'notion integration token',
      'docker personal access token',
      'grafana service account token',
      'tailscale auth key',
    ]);
  });

  it('a secretlint-disable comment in the text does not switch the scan off', async () => {
    const cred = fakeCredentials().docker;
    const scanner = createSecretlintScanner();
    const found = await scanner.scan([
      { what: 'content', text: `// secretlint-disable\n${cred}\n// secretlint-enable` },
      { what: 'content', text: `${cred} // secretlint-disable-line` },
    ]);
    expect(found.map((f) => f.text)).toEqual([0, 1]);
  });

  it('a rule switched off by option finds nothing', async () => {
    const scanner = createSecretlintScanner({ disabledRules: ['@secretlint/secretlint-rule-docker'] });
    const cred = fakeCredentials().docker;
    expect(await scanner.scan([{ what: 'content', text: cred }])).toEqual([]);
  });
});

describe('false positives', () => {
  it(
    'finds nothing in any of the 5,882 LoCoMo turns, and a stack with the scanner stores every one',
    { timeout: 120_000 },
    async () => {
      const turns = locomoTurns();
      expect(turns.length).toBe(5882);
      const scanner = createSecretlintScanner();
      // Batched: 200 texts per scan call, one secretlint run each.
      const flagged: string[] = [];
      for (let i = 0; i < turns.length; i += 200) {
        const batch = turns.slice(i, i + 200);
        for (const f of await scanner.scan(batch.map((text) => ({ what: 'content', text }))))
          flagged.push(batch[f.text]!);
      }
      expect(flagged).toEqual([]);
      const p: Principal = { space: 'locomo', agentId: 'reader', role: 'lead' };
      const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), secretScanner: scanner });
      const results = await stack.knowledge.storeMany(
        p,
        turns.map((content) => ({ content })),
      );
      expect(results.filter((r) => r instanceof Error).map((r) => (r as Error).message)).toEqual([]);
      await stack.close();
    },
  );
});
