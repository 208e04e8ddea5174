import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyNotebookEdit, checkNotebookPath, normalizeNotebookPath } from '../src/domain/notebook.js';
import { MemError } from '../src/errors.js';

function error(fn: () => unknown): MemError {
  try {
    fn();
  } catch (e) {
    if (MemError.is(e)) return e;
    throw e;
  }
  throw new Error('expected a MemError');
}

describe('notebook paths', () => {
  it('adds .md when missing and accepts up to two folders', () => {
    expect(normalizeNotebookPath('MEMORY.md')).toBe('MEMORY.md');
    expect(normalizeNotebookPath('people')).toBe('people.md');
    expect(normalizeNotebookPath('plans/q3-roadmap')).toBe('plans/q3-roadmap.md');
    expect(normalizeNotebookPath('a/b/c.md')).toBe('a/b/c.md');
    expect(normalizeNotebookPath('v1.2_notes')).toBe('v1.2_notes.md');
  });

  it.each([
    ['', 'empty'],
    ['../secrets', '".."'],
    ['a/../../b.md', '".."'],
    ['/etc/passwd', 'absolute'],
    ['a\\b.md', 'backslash'],
    ['.hidden.md', 'must start with a letter or digit'],
    ['a/.git/config.md', 'must start with a letter or digit'],
    ['a/b/c/d.md', '3 folders deep'],
    ['a//b.md', 'empty part'],
    ['plans/', 'empty part'],
    ['with space.md', 'must start with a letter or digit and hold only'],
    ['nul\u0000.md', 'NUL'],
    [`${'x'.repeat(79)}`, 'once ".md" is added'],
    ['ümlaut.md', 'must start with a letter or digit'],
  ])('refuses %j (%s) and says how to fix it', (path, why) => {
    const e = error(() => normalizeNotebookPath(path));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toContain(why);
    expect(e.message).toContain('plans/q3-roadmap.md');
  });

  it('stores accept only normalised paths', () => {
    expect(checkNotebookPath('plans/x.md')).toBe('plans/x.md');
    expect(error(() => checkNotebookPath('plans/x')).message).toContain('does not end in ".md"');
  });

  it('every accepted path stays inside the notebook', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        let p: string;
        try {
          p = normalizeNotebookPath(s);
        } catch {
          return true;
        }
        return (
          !p.startsWith('/') &&
          !p.includes('..') &&
          !p.includes('\\') &&
          p.split('/').every((seg) => /^[A-Za-z0-9]/.test(seg)) &&
          p.split('/').length <= 3
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe('write_memory edit rules', () => {
  it('appends as new lines, creating the file', () => {
    expect(applyNotebookEdit(null, { content: 'first' }, 'MEMORY.md')).toEqual({
      content: 'first\n',
      status: 'created',
    });
    expect(applyNotebookEdit('first\n', { content: 'second' }, 'MEMORY.md')).toEqual({
      content: 'first\nsecond\n',
      status: 'appended',
    });
    expect(applyNotebookEdit('no newline', { content: 'a\nb\n' }, 'MEMORY.md')).toEqual({
      content: 'no newline\na\nb\n',
      status: 'appended',
    });
  });

  it('replaces a passage that occurs exactly once', () => {
    const r = applyNotebookEdit(
      '- deploys on Friday\n- owner: bob\n',
      { content: 'Monday', oldText: 'Friday' },
      'MEMORY.md',
    );
    expect(r).toEqual({ content: '- deploys on Monday\n- owner: bob\n', status: 'updated' });
  });

  it('removes a passage with empty content, taking its line break when it spans whole lines', () => {
    expect(applyNotebookEdit('a\nb\nc\n', { content: '', oldText: 'b' }, 'M.md').content).toBe('a\nc\n');
    expect(applyNotebookEdit('a\nb\nc\n', { content: '', oldText: 'b\n' }, 'M.md').content).toBe('a\nc\n');
    expect(applyNotebookEdit('keep this word\n', { content: '', oldText: ' word' }, 'M.md').content).toBe(
      'keep this\n',
    );
  });

  it('0 matches: says none matched and how to fix it', () => {
    const e = error(() => applyNotebookEdit('alpha\n', { content: 'x', oldText: 'beta' }, 'MEMORY.md'));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.details).toMatchObject({ matches: 0 });
    expect(e.message).toMatch(/not found in MEMORY\.md \(0 matches\)/);
    expect(e.message).toContain('read_memory');
    const near = error(() =>
      applyNotebookEdit('Deploy  on\nFriday\n', { content: 'x', oldText: 'deploy on friday' }, 'MEMORY.md'),
    );
    expect(near.message).toContain('differs only in spaces, line breaks or letter case');
  });

  it('2 or more matches: says how many, where, and how to fix it', () => {
    const e = error(() => applyNotebookEdit('todo: a\ntodo: b\n', { content: 'done', oldText: 'todo' }, 'MEMORY.md'));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.details).toMatchObject({ matches: 2, lines: [1, 2] });
    expect(e.message).toContain('occurs 2 times');
    expect(e.message).toContain('lines 1, 2');
    expect(e.message).toContain('exactly once');
    expect(e.message).toContain('Add surrounding words');
    // Overlapping occurrences count too.
    expect(error(() => applyNotebookEdit('aaa', { content: 'b', oldText: 'aa' }, 'M.md')).details).toMatchObject({
      matches: 2,
    });
  });

  it('refuses empty content without oldText, and oldText on a missing file', () => {
    expect(error(() => applyNotebookEdit('x\n', { content: '  ' }, 'MEMORY.md')).code).toBe('INVALID_INPUT');
    const e = error(() => applyNotebookEdit(null, { content: 'y', oldText: 'x' }, 'plans/a.md'));
    expect(e.code).toBe('NOT_FOUND');
    expect(e.message).toContain('Write without oldText to create it');
  });
});
