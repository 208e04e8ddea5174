import type { JsonValue } from '@mem/core';
import { describe, expect, it } from 'vitest';
import { parseLenientJson } from './lenient-json.js';

const facts = [
  { key: 'tool.deploy-tool.success-usage', value: { statement: 'It works, "mostly".', share: 0.75 }, evidence: ['e1'] },
  { key: 'pitfall.friday-deploys.rollback-needed', value: 'Deploys on Fridays needed a rollback.' },
  { key: 'preference.code-review.small-pull-requests', value: true, evidence: ['e2', 'e3'] },
];

const listOfObjects = (v: JsonValue): boolean =>
  Array.isArray(v) && v.some((x) => typeof x === 'object' && x !== null && !Array.isArray(x));

describe('parseLenientJson', () => {
  it('reads strict JSON as it is, with no repairs', () => {
    expect(parseLenientJson(JSON.stringify(facts))).toEqual({ value: facts, repairs: [] });
    expect(parseLenientJson(JSON.stringify(facts, null, 2))).toEqual({ value: facts, repairs: [] });
  });

  it.each([
    [
      'a json code fence with prose around it',
      'Sure! Here they are:\n```json\n[{"key": "tool.a.b", "value": 1}]\n```\nAnything else?',
    ],
    ['a bare code fence', '```\n[{"key": "tool.a.b", "value": 1}]\n```'],
    ['a fence left open', '```json\n[{"key": "tool.a.b", "value": 1}]'],
    ['prose with a bracket before the JSON', 'The facts [as asked] are: [{"key": "tool.a.b", "value": 1}] — done [1].'],
    ['a <think> block', '<think>Maybe [{"key": "x"}]?</think>\n[{"key": "tool.a.b", "value": 1}]'],
    ['trailing commas', '[{"key": "tool.a.b", "value": 1,},]'],
    ['single quotes', "[{'key': 'tool.a.b', 'value': 1}]"],
    ['typographic quotes', '[{\u201ckey\u201d: \u201ctool.a.b\u201d, \u201cvalue\u201d: 1}]'],
    ['unquoted keys', '[{key: "tool.a.b", value: 1}]'],
    ['comments', '[\n  // the only fact\n  {"key": "tool.a.b", /* sure */ "value": 1}\n]'],
    ['a missing comma between members', '[{"key": "tool.a.b" "value": 1}]'],
    ['a forgotten closing brace', '[{"key": "tool.a.b", "value": 1]'],
    ['a number written loosely', '[{"key": "tool.a.b", "value": 1.}]'],
  ])('repairs %s', (_name, text) => {
    const r = parseLenientJson(text, listOfObjects);
    expect(r?.value).toEqual([{ key: 'tool.a.b', value: 1 }]);
    expect(r?.repairs.length).toBeGreaterThan(0);
  });

  it('keeps apostrophes and quotes inside text, and reads Python literals and bare text', () => {
    expect(parseLenientJson('[{"key": "tool.a.b", "value": "the team\'s \\"best\\" tool"}]')?.value).toEqual([
      { key: 'tool.a.b', value: 'the team\'s "best" tool' },
    ]);
    expect(parseLenientJson("[{'key': 'tool.a.b', 'value': 'the team\u2019s tool'}]")?.value).toEqual([
      { key: 'tool.a.b', value: 'the team\u2019s tool' },
    ]);
    expect(parseLenientJson('[{"a": True, "b": None, "c": NaN, "d": deploy on Mondays}]')?.value).toEqual([
      { a: true, b: null, c: 'NaN', d: 'deploy on Mondays' },
    ]);
    expect(parseLenientJson('[{"key": "tool.a.b", "value": "line one\nline two"}]')?.value).toEqual([
      { key: 'tool.a.b', value: 'line one\nline two' },
    ]);
  });

  // Where jsonrepair (which does the repair since it replaced the hand-written reader) reads less, or otherwise:
  // a number with a leading "+" is refused, an unescaped apostrophe inside a single-quoted string ends up as a
  // double quote, and NaN is read as the text "NaN" (the old reader gave 1, kept the apostrophe, and gave null).
  it('follows jsonrepair where it is stricter than the old reader', () => {
    expect(parseLenientJson('[{"key": "tool.a.b", "value": +1.}]', listOfObjects)).toBeNull();
    expect(parseLenientJson("[{'key': 'tool.a.b', 'value': 'the team's \"best\" tool'}]")?.value).toEqual([
      { key: 'tool.a.b', value: 'the team"s "best" tool' },
    ]);
  });

  it('reads objects one per line, with no list around them, as a list', () => {
    const r = parseLenientJson('{"key": "tool.a.b", "value": 1}\n{"key": "tool.c.d", "value": 2}\n');
    expect(r?.value).toEqual([
      { key: 'tool.a.b', value: 1 },
      { key: 'tool.c.d', value: 2 },
    ]);
    expect(r?.repairs).toContain('read several objects as a list');
  });

  it('drops a truncated last element and closes the brackets, in a list or in a wrapper', () => {
    const r = parseLenientJson('[{"key": "tool.a.b", "value": 1}, {"key": "tool.c.d", "value": "half a sen');
    expect(r).toEqual({ value: [{ key: 'tool.a.b', value: 1 }], repairs: ['dropped a truncated last element'] });
    expect(
      parseLenientJson('{"facts": [{"key": "tool.a.b", "value": 1}, {"key": "tool.c.d", "value": {"n": 1')?.value,
    ).toEqual({ facts: [{ key: 'tool.a.b', value: 1 }] });
    expect(parseLenientJson('[{"key": "tool.a.b", "value": 1}')?.repairs).toEqual([
      'closed brackets the answer left open',
    ]);
  });

  it('never keeps part of an element, whatever prefix of the answer it gets', () => {
    for (const text of [JSON.stringify(facts), JSON.stringify(facts, null, 2), JSON.stringify({ facts }, null, 1)]) {
      for (let end = 0; end <= text.length; end++) {
        const r = parseLenientJson(
          text.slice(0, end),
          (v) => Array.isArray(v) || (typeof v === 'object' && v !== null && 'facts' in v),
        );
        if (r === null) continue;
        const list = (Array.isArray(r.value) ? r.value : (r.value as { facts: JsonValue[] }).facts) as JsonValue[];
        expect(list, `prefix of ${end} characters`).toEqual(facts.slice(0, list.length));
      }
    }
  });

  it('reads back any JSON value, strict or after prose (seeded random values)', () => {
    let seed = 42;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pieces = [
      'a',
      'Z',
      ' ',
      '"',
      "'",
      ',',
      ':',
      '}',
      ']',
      '{',
      '[',
      '\\',
      '\n',
      '//',
      '/*',
      'é',
      '💡',
      'true',
      '1',
    ];
    const text = () =>
      Array.from({ length: Math.floor(rand() * 8) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
    const value = (depth: number): JsonValue => {
      const r = rand();
      if (depth > 3 || r < 0.3) {
        const k = Math.floor(rand() * 5);
        return k === 0 ? null : k === 1 ? rand() < 0.5 : k === 2 ? Math.round((rand() - 0.5) * 1e6) / 100 : text();
      }
      if (r < 0.65) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [text(), value(depth + 1)]));
    };
    for (let n = 0; n < 300; n++) {
      const v = rand() < 0.5 ? [value(1)] : { list: [value(1)], note: text() };
      expect(parseLenientJson(JSON.stringify(v))?.value).toEqual(v);
      expect(parseLenientJson(`Here you go:\n${JSON.stringify(v, null, 2)}\nBye.`)?.value).toEqual(v);
    }
  });

  it('gives null when there is nothing to read', () => {
    for (const text of ['', 'I cannot help with that.', 'no facts here [1]', '[{"key": "tool.a', '```\n```'])
      expect(
        parseLenientJson(text, (v) => Array.isArray(v) && v.every((x) => typeof x === 'object')),
        text,
      ).toBeNull();
  });
});
