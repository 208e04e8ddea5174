import { describe, expect, it } from 'vitest';
import { globalOptions } from '../src/context.js';

describe('--transcripts default', () => {
  it('is the shared store with --store postgres (replicas share one transcript per agent), markdown otherwise', () => {
    expect(globalOptions({ store: 'postgres' }, {}, '/w').transcripts).toBe('store');
    expect(globalOptions({}, { MEM_STORE: 'postgres' }, '/w').transcripts).toBe('store');
    expect(globalOptions({ store: 'postgres', transcripts: 'markdown' }, {}, '/w').transcripts).toBe('markdown');
    expect(globalOptions({}, { MEM_STORE: 'postgres', MEM_TRANSCRIPTS: 'markdown' }, '/w').transcripts).toBe(
      'markdown',
    );
    expect(globalOptions({}, {}, '/w').transcripts).toBe('markdown');
    expect(globalOptions({ store: 'sqlite' }, {}, '/w').transcripts).toBe('markdown');
  });
});
