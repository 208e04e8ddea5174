import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { autoKey, checkKey, checkKeyShape, keyFromSourcePath, pathWeight } from '../src/domain/keys.js';
import { MemError } from '../src/errors.js';

const seg = (first: boolean) =>
  fc.stringMatching(first ? /^[a-z0-9-]{1,12}$/ : /^[a-z0-9._-]{1,12}$/).filter((s) => s !== '.' && s !== '..');
const validKey = fc
  .tuple(seg(true), fc.array(seg(false), { maxLength: 6 }))
  .map(([a, rest]) => `/${[a, ...rest].join('/')}`)
  .filter((k) => k.length <= 200 && !k.startsWith('/longterm'));

function code(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (MemError.is(e)) return e.code;
    throw e;
  }
}

describe('key grammar', () => {
  it('accepts every key built from the grammar', () => {
    fc.assert(fc.property(validKey, (k) => code(() => checkKey(k, 'worker')) === null));
  });

  it('refuses keys that break one rule', () => {
    fc.assert(
      fc.property(validKey, fc.constantFrom('upper', 'trailing', 'double', 'noslash', 'long', 'space'), (k, how) => {
        const bad =
          how === 'upper'
            ? `${k}/X`
            : how === 'trailing'
              ? `${k}/`
              : how === 'double'
                ? `${k}//a`
                : how === 'noslash'
                  ? k.slice(1)
                  : how === 'long'
                    ? `${k}/${'a'.repeat(200)}`
                    : `${k}/a b`;
        return code(() => checkKeyShape(bad)) === 'INVALID_KEY';
      }),
    );
  });

  it('allows the underscore-free first segment only', () => {
    expect(code(() => checkKeyShape('/a_b/c'))).toBe('INVALID_KEY');
    expect(code(() => checkKeyShape('/a-b/c_d.e'))).toBeNull();
    expect(code(() => checkKeyShape('/a/..'))).toBe('INVALID_KEY');
  });

  it('knows the closed list of /longterm roots, entity types and lead-only paths', () => {
    expect(code(() => checkKey('/longterm/facts/billing/cycle', 'worker'))).toBeNull();
    expect(code(() => checkKey('/longterm/facts/billing', 'worker'))).toBe('INVALID_KEY');
    expect(code(() => checkKey('/longterm/decisions/use-pg', 'worker'))).toBeNull();
    expect(code(() => checkKey('/longterm/workstreams/q3', 'worker'))).toBeNull();
    expect(code(() => checkKey('/longterm/company-story', 'worker'))).toBe('FORBIDDEN_KEY');
    expect(code(() => checkKey('/longterm/company-story', 'lead'))).toBeNull();
    expect(code(() => checkKey('/longterm/entities/people/ada', 'lead'))).toBeNull();
    expect(code(() => checkKey('/longterm/entities/customers/acme', 'worker'))).toBe('FORBIDDEN_KEY');
    expect(code(() => checkKey('/longterm/entities/robots/r2', 'lead'))).toBe('INVALID_KEY');
    expect(code(() => checkKey('/longterm/timeline/2026-q1/launch', 'worker'))).toBe('FORBIDDEN_KEY');
    expect(code(() => checkKey('/longterm', 'lead'))).toBe('INVALID_KEY');
    expect(code(() => checkKey('/longterm/misc/x', 'lead'))).toBe('INVALID_KEY');
  });

  it('weighs paths by the longest matching root', () => {
    expect(pathWeight('/longterm/company-story')).toBe(1.4);
    expect(pathWeight('/longterm/entities/people/ada')).toBe(1.3);
    expect(pathWeight('/longterm/facts/a/b')).toBe(1.2);
    expect(pathWeight('/longterm/decisions/x')).toBe(1.1);
    expect(pathWeight('/longterm/decisions/x', ['superseded'])).toBe(0.3);
    expect(pathWeight('/longterm/workstreams/x')).toBe(1.0);
    expect(pathWeight('/longterm/timeline/p/x')).toBe(0.8);
    expect(pathWeight('/notes/x')).toBe(1.0);
    expect(pathWeight('/longterm/factsheet/x')).toBe(1.0);
  });

  it('builds valid automatic keys and source-path keys', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('agent', 'swarm'),
        fc.constantFrom('manual', 'file_index', 'task_completion', 'session_summary'),
        fc.stringMatching(/^[0-9a-z]{26}$/),
        (scope, source, id) => {
          return code(() => checkKey(autoKey(scope as 'agent', source as 'manual', id), 'worker')) === null;
        },
      ),
    );
    expect(keyFromSourcePath('docs/Runbook (v2).md')).toBe('/docs/runbook-v2-.md');
    expect(keyFromSourcePath('./ops/Deploy.md')).toBe('/ops/deploy.md');
    expect(code(() => keyFromSourcePath('../etc/passwd'))).toBe('INVALID_INPUT');
  });
});
