/** Loading LoCoMo-format data (see shared/data/README.md): turns as memories, questions with evidence ids. */
import { readFileSync } from 'node:fs';
import { MONTH_NAMES } from '@mem/core/adapter';

export interface Turn {
  diaId: string;
  content: string;
  createdAt: string;
  /** The session the turn belongs to (1, 2…). */
  session: number;
}

export interface Question {
  question: string;
  category: number;
  evidence: string[];
  /** The gold answer (`qa[].answer`; a number in the file becomes its text; '' when the file has none). */
  answer: string;
}

export interface Conversation {
  id: string;
  turns: Turn[];
  questions: Question[];
}

/** "1:56 pm on 8 May, 2023" → ISO time (UTC). Unparseable dates fall back to the epoch of the data set. */
export function parseSessionDate(text: string): string {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return '2023-01-01T00:00:00.000Z';
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  const month = MONTH_NAMES.indexOf(m[5]!.toLowerCase());
  return new Date(Date.UTC(Number(m[6]), Math.max(0, month), Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** Normalise evidence ids: split on ';', drop stray colons and leading zeros ("D:11:26" → "D11:26", "D30:05" → "D30:5"). */
export function normaliseEvidence(raw: string[]): string[] {
  const out: string[] = [];
  for (const item of raw) {
    for (const part of String(item).split(';')) {
      const m = /^D:?(\d+):0*(\d+)$/.exec(part.trim());
      if (m) out.push(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...new Set(out)];
}

/**
 * The conversations of a LoCoMo-format file with their questions of categories 1–4; by default only those with
 * evidence (what retrieval can score), all of them with `keepWithoutEvidence` (answer accuracy needs no evidence).
 */
export function loadLocomo(path: string, options: { keepWithoutEvidence?: boolean } = {}): Conversation[] {
  const data = JSON.parse(readFileSync(path, 'utf8')) as any[];
  return data.map((sample, i) => {
    const c = sample.conversation as Record<string, any>;
    const turns: Turn[] = [];
    for (let s = 1; c[`session_${s}`] !== undefined || c[`session_${s}_date_time`] !== undefined; s++) {
      const createdAt = parseSessionDate(String(c[`session_${s}_date_time`] ?? ''));
      for (const t of (c[`session_${s}`] ?? []) as any[]) {
        const caption = t.blip_caption ? ` [shares an image: ${t.blip_caption}]` : '';
        turns.push({
          diaId: normaliseEvidence([t.dia_id])[0] ?? t.dia_id,
          content: `${t.speaker}: ${t.text}${caption}`,
          createdAt,
          session: s,
        });
      }
    }
    const questions: Question[] = (sample.qa as any[])
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q) => ({
        question: q.question,
        category: q.category,
        evidence: normaliseEvidence(q.evidence ?? []),
        answer: q.answer === undefined || q.answer === null ? '' : String(q.answer),
      }))
      .filter((q) => options.keepWithoutEvidence || q.evidence.length > 0);
    return { id: String(sample.sample_id ?? `conv-${i}`), turns, questions };
  });
}
