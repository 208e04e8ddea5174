/**
 * Linear time, always (issue 38 §1): every rule of the secret and personal-data scanners, and the whole scan, fed
 * adversarial inputs built from each rule's own pattern — its literal prefixes, the characters of its runs, the
 * characters that end them, its examples cut short — repeated to 1× and 8× a size. A rule that backtracks over what it
 * already read grows with the square (64× for 8× the text); a linear one by about 8×. The test asserts the growth stays
 * far below the square, for every input, and that many findings cost no more than many characters.
 */
import { describe, expect, it } from 'vitest';
import { SECRET_EXAMPLES } from '../../../tooling/testkit/src/secret-examples.js';
import { PERSONAL_DATA_RULES, SECRET_RULES, type SecretRule } from '../src/domain/secret-rules.js';
import { findSecrets, redactSecrets } from '../src/domain/secrets.js';

const SMALL = 4_000;
const GROWTH = 8;
/** 8× the text may cost at most this many times more (linear is ~8; the square is 64). */
const MAX_RATIO = 24;
/** Below this many milliseconds at the large size, a ratio is noise (the timer's grain and the JIT). */
const FLOOR_MS = 3;

const SEPARATORS = [' ', '\n', '_', '-', '.', ':', '=', '/', '@', '"', "'", ';', ',', '(', '+', '%', '~', '\u200b'];

/** Literal runs of a pattern's source (escapes undone, classes and groups skipped): `gh`, `_`, `://`, `BEGIN`. */
function literals(source: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const n = source[i + 1] ?? '';
      i++;
      if (depth === 0 && /[^\w]/.test(n)) cur += n;
      else if (cur) {
        out.push(cur);
        cur = '';
      }
      continue;
    }
    if (c === '[') depth++;
    if (c === ']' && depth > 0) {
      depth--;
      continue;
    }
    if (depth > 0 || /[()|?*+{}^$]/.test(c)) {
      if (cur) out.push(cur);
      cur = '';
      if (c === '{') while (i < source.length && source[i] !== '}') i++;
      continue;
    }
    cur += c;
  }
  if (cur) out.push(cur);
  return [...new Set(out.filter((s) => s.length > 0 && !s.startsWith('?<')))];
}

/** One character from each range or member of each character class of a pattern. */
function classChars(source: string): string[] {
  const out = new Set<string>();
  for (const m of source.matchAll(/\[(\^?)((?:\\.|[^\]])+)\]/g)) {
    if (m[1]) continue;
    const body = m[2]!.replace(/\\(.)/g, '$1');
    for (const r of body.matchAll(/(.)-(.)|(.)/g)) out.add(r[1] ?? r[3]!);
  }
  for (const d of ['0', 'a', 'A', 'f']) out.add(d);
  return [...out];
}

/** The adversarial units of one rule: repeated to the size of a test text. */
function units(rule: SecretRule): string[] {
  const lit = literals(rule.pattern.source);
  const chars = classChars(rule.pattern.source);
  const out = new Set<string>();
  const examples = SECRET_EXAMPLES.find((e) => e.kind === rule.kind)?.caught ?? [];
  for (const l of lit) {
    out.add(l);
    for (const sep of SEPARATORS) out.add(l + sep);
    for (const c of chars) {
      out.add(l + c);
      out.add(l + c.repeat(40));
      for (const sep of SEPARATORS.slice(0, 8)) out.add(l + c.repeat(40) + sep);
    }
  }
  for (const c of chars) for (const sep of SEPARATORS) out.add(c + sep);
  // Two literals glued, a literal's first half, the examples without their last character.
  for (let i = 0; i + 1 < lit.length; i++) out.add(lit[i]! + lit[i + 1]!);
  for (const e of examples) {
    out.add(e.slice(0, -1));
    out.add(e.slice(0, Math.ceil(e.length / 2)));
  }
  return [...out].filter((u) => u.length > 0);
}

function time(rules: readonly SecretRule[], text: string): number {
  const t0 = performance.now();
  findSecrets(text, rules);
  return performance.now() - t0;
}

const grow = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** The slowest growth of one rule over its units: [ratio, unit, large-size ms]. */
function worstGrowth(rules: readonly SecretRule[], unitList: readonly string[]): [number, string, number] {
  let worst: [number, string, number] = [0, '', 0];
  for (const unit of unitList) {
    const small = grow(unit, SMALL);
    const large = grow(unit, SMALL * GROWTH);
    const first = time(rules, large);
    if (first < FLOOR_MS) continue;
    // Measured twice (a garbage collection can land in either); the smaller pair is the rule's cost. A ratio over the
    // bound is measured again, up to three more rounds, keeping the best: a busy machine (another job on the other
    // core) can slow one run of the large text, but a rule that backtracks grows with the square in every round.
    let little = Infinity;
    let big = first;
    let ratio = Infinity;
    for (let round = 0; round < 4 && ratio >= MAX_RATIO; round++) {
      little = Math.min(little, time(rules, small), time(rules, small));
      big = Math.min(big, time(rules, large));
      ratio = big / Math.max(little, FLOOR_MS / GROWTH);
    }
    if (ratio > worst[0]) worst = [ratio, unit, big];
  }
  return worst;
}

describe('every scanner rule runs in linear time', () => {
  const all = [...SECRET_RULES, ...PERSONAL_DATA_RULES];
  it.each(all.map((r) => [r.kind, r] as const))('%s grows linearly on its own adversarial inputs', (_kind, rule) => {
    const [ratio, unit, ms] = worstGrowth([rule], units(rule));
    expect(ratio, `unit ${JSON.stringify(unit)}: ${ms.toFixed(1)} ms at ${SMALL * GROWTH} characters`).toBeLessThan(
      MAX_RATIO,
    );
    // And absolutely: 32,000 characters of the worst input in well under a second.
    expect(ms).toBeLessThan(250);
  });

  it('the whole scan grows linearly on every rule’s inputs, and on the known attacks', () => {
    const attacks = [
      'a_',
      'ab_',
      'a_b-c.',
      'eyJaaaaaaaaa-',
      '-',
      '=',
      'password',
      'password=',
      'x://a:',
      'a:b@',
      '4111 ',
    ];
    const list = [...new Set([...attacks, ...all.flatMap((r) => units(r).slice(0, 40))])];
    const [ratio, unit, ms] = worstGrowth(all, list);
    expect(ratio, `unit ${JSON.stringify(unit)}: ${ms.toFixed(1)} ms`).toBeLessThan(MAX_RATIO);
  });

  it('many findings cost linear bookkeeping (positions and overlaps)', () => {
    const text = (n: number) => 'AKIAIOSFODNN7EXAMPLE ghp_4IMOYqx6OFvCeNUc1JTMu0gr7MX3bqb9HGOC\n'.repeat(n);
    const t1 = () => {
      const t0 = performance.now();
      const found = findSecrets(text(1_000));
      expect(found).toHaveLength(2_000);
      return performance.now() - t0;
    };
    const t8 = () => {
      const t0 = performance.now();
      expect(redactSecrets(text(8_000))).not.toContain('AKIA');
      return performance.now() - t0;
    };
    const small = Math.max(Math.min(t1(), t1()), FLOOR_MS / GROWTH);
    const large = Math.min(t8(), t8());
    expect(large / small).toBeLessThan(MAX_RATIO);
  });
});
