import { describeSecretScanner } from '@mem/testkit';
import { describe, expect, it } from 'vitest';
import { createSecretlintScanner } from '../src/index.js';

/** Well-formed but fake credentials, built at run time so that no literal secret is in the source. */
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function chars(n: number, alphabet = ALNUM, seed = 7): string {
  let s = '';
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += alphabet[x % alphabet.length];
  }
  return s;
}
export const fakeCredentials = () => ({
  notion: ['ntn', chars(11, '0123456789') + chars(35)].join('_'),
  docker: ['dckr', 'pat', chars(27, ALNUM, 11)].join('_'),
  grafana: ['glsa', chars(32, ALNUM, 13), chars(8, '0123456789abcdef')].join('_'),
  tailscale: ['tskey', 'auth', chars(12, ALNUM, 17), chars(30, ALNUM, 19)].join('-'),
});

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
