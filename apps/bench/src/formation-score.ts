/**
 * The formation bench's scores (apps/bench/README.md defines each), computed from what one dialogue left in the
 * store: every distilled memory it formed (current and closed), the current ones, and what search returned for each
 * probe. Pure: the run (src/formation-run.ts) observes, this judges.
 */
import type { Dialogue, NoiseClass, ProbeKind } from './formation-data.js';

/** A distilled memory as the bench sees it. */
export interface Seen {
  id: string;
  content: string;
  validFrom: string | null;
  validTo: string | null;
}

/** What a run observed for one dialogue. */
export interface Observed {
  /** Every distilled memory of the dialogue's space, closed ones too. */
  all: Seen[];
  /** The distilled memories current at the end (validTo null or still ahead). */
  current: Seen[];
  /** Contents search returned (distilled, current) for each probe, in the order of `dialogue.probes`. */
  retrieved: string[][];
  /** Contents search returned as of each as-of probe's date, in the order of `dialogue.asOf`. */
  asOf: string[][];
  /** Messages handed to distill (every role), and the time the distill calls took. */
  messages: number;
  distillMs: number;
  decisions: Record<string, number>;
  failures: Record<string, number>;
  tokens: { input: number; output: number };
}

/**
 * Words that make a memory say a value no longer holds (or is not the user's choice): "no longer", "not",
 * "anymore", "quit", "used to", "instead of", "moved from"… A memory holding an old value is one where the value's
 * pattern matches and, outside the matched words, none of these appears.
 */
const NEGATION =
  /\b(no longer|not|never|anymore|any more|no more|stopped|quit|quits|gave up|given up|used to|formerly|previously|former|left|dropped|cancell?ed|sold|instead of|rather than|moved (away )?from|ex)\b|n't\b/i;

const rx = (p: string) => new RegExp(p, 'i');

/** Every pattern matches the text. */
export function matchesAll(text: string, patterns: readonly string[]): boolean {
  return patterns.every((p) => rx(p).test(text));
}

/** Some pattern matches the text, and the text says nothing that negates it outside the matched words. */
export function holdsAny(text: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => {
    const m = rx(p).exec(text);
    return m !== null && !NEGATION.test(text.slice(0, m.index) + text.slice(m.index + m[0].length));
  });
}

/** A probe's verdict. */
export interface ProbeResult {
  dialogue: string;
  kind: ProbeKind;
  query: string;
  /** Expected value in a current distilled memory that search returned for the query. */
  retrieved: boolean;
  /** Expected value in any current distilled memory of the dialogue (extraction alone, search aside). */
  found: boolean;
  /** Null when the probe names no old value. */
  stale: boolean | null;
  /** Whether a memory holding an old value was formed at all (null when the probe names none). */
  oldFormed: boolean | null;
  /** Current memories matching the expected value (a duplicate when more than one). */
  matching: number;
  current: string[];
}

export interface AsOfResult {
  dialogue: string;
  query: string;
  asOf: string;
  ok: boolean;
  returned: string[];
}

export interface DialogueScore {
  id: string;
  style: Dialogue['style'];
  probes: ProbeResult[];
  asOf: AsOfResult[];
  /** Memories formed (any version) that a forbidden pattern matches, with the class of the first that does. */
  falseMemories: { class: NoiseClass; content: string }[];
  /** Planted credentials found in a formed memory. */
  secretsStored: number;
  /** Every distilled memory the dialogue formed, closed ones too. */
  memories: Seen[];
  formed: number;
  current: number;
  messages: number;
  distillMs: number;
  decisions: Record<string, number>;
  failures: Record<string, number>;
  tokens: { input: number; output: number };
}

export function scoreDialogue(d: Dialogue, o: Observed): DialogueScore {
  const current = o.current.map((m) => m.content);
  const all = o.all.map((m) => m.content);
  const probes = d.probes.map((p, i): ProbeResult => {
    const base = { dialogue: d.id, kind: p.kind, query: p.query, current };
    if (!p.expect?.length) {
      // A retraction: right when the retracted value was formed at some point and holds in no current memory.
      const formed = all.some((c) => holdsAny(c, p.stale ?? []));
      const still = current.some((c) => holdsAny(c, p.stale ?? []));
      return {
        ...base,
        retrieved: formed && !still,
        found: formed && !still,
        stale: still,
        oldFormed: formed,
        matching: 0,
      };
    }
    const expect = p.expect;
    const matching = current.filter((c) => matchesAll(c, expect)).length;
    return {
      ...base,
      retrieved: (o.retrieved[i] ?? []).some((c) => matchesAll(c, expect)),
      found: matching > 0,
      stale: p.stale?.length ? current.some((c) => holdsAny(c, p.stale!) && !matchesAll(c, expect)) : null,
      oldFormed: p.stale?.length ? all.some((c) => holdsAny(c, p.stale!) && !matchesAll(c, expect)) : null,
      matching,
    };
  });
  const asOf = (d.asOf ?? []).map((q, i): AsOfResult => {
    const returned = o.asOf[i] ?? [];
    const not = q.not ?? [];
    const expect = q.expect ?? [];
    const wrong = returned.some((c) => holdsAny(c, not) && !(expect.length > 0 && matchesAll(c, expect)));
    const ok =
      expect.length > 0
        ? returned.some((c) => matchesAll(c, expect)) && !wrong
        : all.some((c) => holdsAny(c, not)) && !wrong;
    return { dialogue: d.id, query: q.query, asOf: q.asOf, ok, returned };
  });
  const falseMemories: DialogueScore['falseMemories'] = [];
  for (const content of all) {
    const hit = (d.forbidden ?? []).find((f) => rx(f.pattern).test(content));
    if (hit) falseMemories.push({ class: hit.class, content });
  }
  let secretsStored = 0;
  for (const s of d.secrets ?? []) {
    const tail = s.length >= 12 ? s.slice(-8) : null;
    if (all.some((c) => c.includes(s) || (tail !== null && c.includes(tail)))) secretsStored++;
  }
  return {
    id: d.id,
    style: d.style,
    probes,
    asOf,
    falseMemories,
    secretsStored,
    memories: o.all,
    formed: o.all.length,
    current: o.current.length,
    messages: o.messages,
    distillMs: o.distillMs,
    decisions: o.decisions,
    failures: o.failures,
    tokens: o.tokens,
  };
}

const share = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);

function add(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** The figures of a set of scored dialogues. */
export interface Summary {
  dialogues: number;
  probes: number;
  /** Share of probes whose expected current value is in a current distilled memory search returned for the query. */
  current_accuracy: number | null;
  /** The same, looking at every current distilled memory of the dialogue (search aside). */
  current_found: number | null;
  /**
   * Probes naming an old value; those where a memory holding one was formed at all (only they can go stale); and those
   * where a current memory still holds one.
   */
  stale: { probes: number; formed: number; count: number };
  /** Probes with more than one current memory of the expected value, and the memories beyond the first. */
  duplicates: { count: number; extra: number };
  false_memories: { count: number; by_class: Record<string, number> };
  secrets_stored: number;
  as_of: { probes: number; accuracy: number | null };
  by_kind: Record<string, { probes: number; accuracy: number | null }>;
  formed: number;
  current: number;
  messages: number;
  distill_ms: number;
  messages_per_s: number | null;
  decisions: Record<string, number>;
  failures: Record<string, number>;
  tokens: { input: number; output: number };
}

export function summarise(scores: readonly DialogueScore[]): Summary {
  const probes = scores.flatMap((s) => s.probes);
  const asOf = scores.flatMap((s) => s.asOf);
  const byClass: Record<string, number> = {};
  for (const f of scores.flatMap((s) => s.falseMemories)) byClass[f.class] = (byClass[f.class] ?? 0) + 1;
  const byKind: Summary['by_kind'] = {};
  for (const kind of [...new Set(probes.map((p) => p.kind))].sort()) {
    const of = probes.filter((p) => p.kind === kind);
    byKind[kind] = { probes: of.length, accuracy: share(of.filter((p) => p.retrieved).length, of.length) };
  }
  const decisions: Record<string, number> = {};
  const failures: Record<string, number> = {};
  for (const s of scores) {
    add(decisions, s.decisions);
    add(failures, s.failures);
  }
  const dups = probes.filter((p) => p.matching > 1);
  const messages = scores.reduce((n, s) => n + s.messages, 0);
  const ms = scores.reduce((n, s) => n + s.distillMs, 0);
  return {
    dialogues: scores.length,
    probes: probes.length,
    current_accuracy: share(probes.filter((p) => p.retrieved).length, probes.length),
    current_found: share(probes.filter((p) => p.found).length, probes.length),
    stale: {
      probes: probes.filter((p) => p.stale !== null).length,
      formed: probes.filter((p) => p.oldFormed).length,
      count: probes.filter((p) => p.stale).length,
    },
    duplicates: { count: dups.length, extra: dups.reduce((n, p) => n + p.matching - 1, 0) },
    false_memories: { count: Object.values(byClass).reduce((a, b) => a + b, 0), by_class: byClass },
    secrets_stored: scores.reduce((n, s) => n + s.secretsStored, 0),
    as_of: { probes: asOf.length, accuracy: share(asOf.filter((q) => q.ok).length, asOf.length) },
    by_kind: byKind,
    formed: scores.reduce((n, s) => n + s.formed, 0),
    current: scores.reduce((n, s) => n + s.current, 0),
    messages,
    distill_ms: Math.round(ms),
    messages_per_s: ms > 0 ? Math.round((messages / ms) * 1000 * 10) / 10 : null,
    decisions,
    failures,
    tokens: {
      input: scores.reduce((n, s) => n + s.tokens.input, 0),
      output: scores.reduce((n, s) => n + s.tokens.output, 0),
    },
  };
}
