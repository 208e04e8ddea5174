import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DRESSED_EXAMPLES,
  renderSecretExamples,
  SECRET_EXAMPLES,
} from '../../../tooling/testkit/src/secret-examples.js';
import { SECRET_RULES } from '../src/domain/secret-rules.js';
import { findSecrets } from '../src/domain/secrets.js';

const kindsOf = (text: string) => findSecrets(text).map((f) => f.kind);

describe('the examples table (docs/safety.md lists it verbatim)', () => {
  it('has a line for every rule of the scanner, in the rules’ order', () => {
    expect(SECRET_EXAMPLES.map((e) => e.kind)).toEqual(SECRET_RULES.map((r) => r.kind));
  });

  it.each(
    SECRET_EXAMPLES.map((e) => [e.kind, e] as const),
  )('%s: every caught line is caught as its kind', (kind, e) => {
    expect(e.caught.length).toBeGreaterThan(0);
    for (const text of e.caught) expect(kindsOf(text), text).toContain(kind);
  });

  it.each(
    SECRET_EXAMPLES.filter((e) => e.notCaught.length > 0).map((e) => [e.kind, e] as const),
  )('%s: no line of "not caught" is flagged at all', (_kind, e) => {
    for (const text of e.notCaught) expect(kindsOf(text), text).toEqual([]);
  });

  it.each(DRESSED_EXAMPLES.map((d) => [d.how, d] as const))('a key %s is still found', (_how, d) => {
    expect(kindsOf(d.text)).toEqual([d.kind]);
  });

  it('docs/safety.md carries the rendered table between its markers', () => {
    const doc = readFileSync(new URL('../../../docs/safety.md', import.meta.url), 'utf8');
    const start = doc.indexOf('<!-- secret-examples:start -->');
    const end = doc.indexOf('<!-- secret-examples:end -->');
    expect(start, 'docs/safety.md lacks the secret-examples markers').toBeGreaterThan(0);
    const inDoc = doc.slice(start + '<!-- secret-examples:start -->'.length, end).trim();
    expect(inDoc, 'regenerate the block with renderSecretExamples() from test/secret-examples.ts').toBe(
      renderSecretExamples(),
    );
  });
});
