/**
 * Entity names (docs/graph.md): the normalised key that resolution's second step compares, measured on a set of
 * name pairs that mean one thing and look-alikes that do not, and the memory server's JSONL read with its errors.
 */
import {
  candidatePrefixes,
  checkedEntityKey,
  entityKey,
  MemError,
  parseMemoryJsonl,
  similarKeys,
  toMemoryJsonl,
  withinOneEdit,
} from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { growthOf } from './linear-time.js';

/** Pairs that name one entity, in writings people use. */
const SAME: [string, string][] = [
  ['Acme Inc.', 'ACME'],
  ['Acme, Inc', 'acme'],
  ['Globex Corporation', 'Globex Corp.'],
  ['Initech LLC', 'initech'],
  ['Umbrella Ltd', 'Umbrella Limited'],
  ['Siemens AG', 'Siemens'],
  ['Stark Industries, Inc.', 'Stark Industries'],
  ['The Beatles', 'Beatles'],
  ['José Núñez', 'Jose Nunez'],
  ['Zoë Kravitz', 'Zoe Kravitz'],
  ['São Paulo', 'Sao Paulo'],
  ['Ben & Jerry’s', 'Ben and Jerry’s'],
  ['New York', 'new  york'],
  ['O’Brien', "O'Brien"],
  ['Jean-Luc Picard', 'Jean Luc Picard'],
  ['ACME Anvil Co.', 'Acme Anvil Company'],
  ['Müller GmbH', 'Muller'],
  ['Ｆｕｌｌｗｉｄｔｈ', 'Fullwidth'],
];

/** Look-alikes that are different entities: a key that joins them is a false merge. */
const DIFFERENT: [string, string][] = [
  ['Alex Chen', 'Alex Kim'],
  ['Alex', 'Alex Chen'],
  ['Acme', 'Acme Anvils'],
  ['Paris', 'Paris, Texas'],
  ['Apple', 'Apple Records'],
  ['Java', 'JavaScript'],
  ['Jon', 'John'],
  ['Anna', 'Ana'],
  ['Company', 'The Company Store'],
  ['Georgia', 'Georgia Tech'],
  ['Mercury', 'Mercury Records'],
  ['Turkey', 'Turkey Hill'],
  ['C', 'C++'],
  ['Project 1', 'Project 2'],
  ['Room 101', 'Room 102'],
  ['The The', 'The'],
];

describe('entity names', () => {
  it('the normalised key joins the same names and never a look-alike (precision 1.0 on this set; recall reported)', () => {
    const joined = SAME.filter(([a, b]) => entityKey(a) === entityKey(b));
    const falseMerges = DIFFERENT.filter(([a, b]) => entityKey(a) === entityKey(b));
    expect(falseMerges).toEqual([]);
    // What the key alone finds: every pair above; initials, nicknames and translations need the later steps.
    expect(joined.length / SAME.length).toBe(1);
    expect(entityKey('Bob Smith')).not.toBe(entityKey('Robert Smith'));
  });

  it('similar names: spacing, titles, a slip inside a long word, acronyms; never another surname or ending', () => {
    const kind = (a: string, b: string) => similarKeys(entityKey(a), entityKey(b));
    expect(kind('OpenAI', 'Open AI')).toBe('spacing');
    expect(kind('Dr. Emily Stone', 'Emily Stone')).toBe('honorific');
    expect(kind('Mr. John Smith', 'Mrs. John Smith')).toBeNull();
    expect(kind('Dr. Smith', 'Smith')).toBeNull();
    expect(kind('Michael Jordan', 'Michael B. Jordan')).toBeNull();
    expect(kind('Philadelphia', 'Philadephia')).toBe('spelling');
    expect(kind('Schwarzenegger', 'Schwarzeneggre')).toBe('spelling'); // two letters swapped
    expect(kind('Frederick', 'Frederica')).toBeNull(); // the ending
    expect(kind('Gabriel', 'Gabriela')).toBeNull();
    expect(kind('Mark', 'Mary')).toBeNull();
    expect(kind('Alex Chen', 'Alex Wong')).toBeNull();
    expect(kind('IBM', 'International Business Machines')).toBe('acronym');
    expect(kind('IB', 'Indigo Blue')).toBeNull();
    expect(kind('Acme', 'Acme')).toBeNull(); // the same key is the name step's
    expect(withinOneEdit('abcdef', 'abdcef')).toBe(true);
    expect(withinOneEdit('abcdef', 'abcdefgh')).toBe(false);
    // Every candidate of a similar key lies under one of the key's prefixes.
    for (const [a, b] of [
      ['OpenAI', 'Open AI'],
      ['USA', 'U.S.A.'],
      ['Emily Stone', 'Dr. Emily Stone'],
      ['International Business Machines', 'IBM'],
    ] as const) {
      expect(candidatePrefixes(entityKey(a)).some((x) => entityKey(b).startsWith(x))).toBe(true);
    }
    const long = (n: number) => `${'a'.repeat(n)}b`;
    expect(growthOf((t) => similarKeys(t, `${t}c`), 'abcdefgh ', 20_000)).toBeLessThan(24);
    expect(similarKeys(long(50_000), long(50_000).replace('b', 'c'))).toBeNull();
  });

  it('refuses a name with no letter or digit, and keys stay linear in the name', () => {
    expect(() => checkedEntityKey('!!! ...')).toThrow(MemError);
    expect(() => checkedEntityKey('++')).toThrow(/no letter or digit/);
    expect(entityKey('Inc')).toBe('inc');
    expect(entityKey('The')).toBe('the');
    expect(growthOf((text) => entityKey(text), 'Acme, Inc. ', 20_000)).toBeLessThan(24);
  });

  it('reads the memory server file, says which line is wrong, and writes it back the same', () => {
    const file = [
      '{"type":"entity","name":"A","entityType":"t","observations":["x"]}',
      '',
      '{"type":"other","whatever":1}',
      '{"type":"relation","from":"A","to":"B","relationType":"r"}',
    ].join('\n');
    const graph = parseMemoryJsonl(file);
    expect(graph).toEqual({
      entities: [{ name: 'A', entityType: 't', observations: ['x'] }],
      relations: [{ from: 'A', to: 'B', relationType: 'r' }],
    });
    expect(toMemoryJsonl(graph)).toBe(`${file.split('\n')[0]}\n${file.split('\n')[3]}`);
    expect(() => parseMemoryJsonl('{"type":"entity","name":"A"}\nnot json')).toThrow(
      /^Line 1 of the memory file is an entity/,
    );
    expect(() => parseMemoryJsonl('\n\nnot json')).toThrow(/^Line 3 of the memory file is not JSON/);
    expect(() => parseMemoryJsonl('[1]')).toThrow(/is not a JSON object/);
  });
});
