import { describeSecretScanner, fakeCredentials } from '@mem/testkit';
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
    for (const f of found) expect(f.label).toMatch(/secretlint rule/);
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
