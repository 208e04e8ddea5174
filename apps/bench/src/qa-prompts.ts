/**
 * The two fixed prompts of `mem bench qa` (src/qa.ts) and how their answers are read: the answer prompt (answer a
 * question from the memories shown with it, in a few words, dates made absolute) and the judge prompt (is a
 * generated answer CORRECT or WRONG against the gold answer, generous on wording and date formats). The judge's JSON
 * is read leniently: JSON anywhere in the text (a fence, a `<think>` block before it), then a lone label in prose.
 */
import { parseLenientJson } from '@mem/summarizer-llm';

export const ANSWER_PROMPT = `You answer questions about past conversations between two people, using only the memories given with the question.
Each memory is something one of them said, shown with the date and time it was said.

- Answer from the memories. When they disagree, the most recent one wins.
- Answer in a few words: a name, a date, a place, a number or a short phrase. No explanation, no full sentence.
- Give dates as absolute dates. A relative time in a memory ("yesterday", "last week", "next month") counts from the
  time of that memory: "last week" said on 9 June 2023 is "the week before 9 June 2023".
- If the memories do not say, give your best short guess from what they do say.`;

export const JUDGE_PROMPT = `You grade one answer to a question about a conversation. You get the question, the gold answer (take it as true) and a generated answer to grade.

Label the generated answer CORRECT when it gives the information of the gold answer: other words, more detail, or a longer answer that holds the gold answer's point are all CORRECT. Dates and times are CORRECT when they name the same day, month, year or period as the gold answer, in any format ("7 May 2023", "May 7th, 2023", "2023-05-07", "the Sunday before 14 May 2023" for 7 May 2023).

Label it WRONG when it misses or contradicts the gold answer's point, names another person, thing, place or time, or says it does not know.

Reply with one JSON object and nothing else: {"label": "CORRECT"} or {"label": "WRONG"}.`;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** An ISO time as people write it: `13:56 on 8 May 2023` (UTC, as the data set's session times are read). */
export function spokenTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${hh}:${mm} on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** The user message of the answer call: the context, then the question. */
export function answerMessage(context: string, question: string): string {
  return `Memories:\n${context}\n\nQuestion: ${question}`;
}

/** The user message of the judge call: question, gold answer, generated answer, one per line. */
export function judgeMessage(question: string, gold: string, generated: string): string {
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  return `Question: ${oneLine(question)}\nGold answer: ${oneLine(gold)}\nGenerated answer: ${oneLine(generated)}`;
}

/** An answer without the reasoning some models print first (`<think>…</think>`). */
export function cleanAnswer(content: string): string {
  return content.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
}

export type Label = 'CORRECT' | 'WRONG';

/** The judge's label: from JSON (`lenient: false` when it was a plain `{"label": …}`), or from prose naming one label. */
export function readJudgeLabel(content: string): { label: Label; lenient: boolean } | null {
  const text = cleanAnswer(content);
  const labelOf = (v: unknown): Label | null => {
    const s = typeof v === 'string' ? v.trim().toUpperCase() : '';
    return s === 'CORRECT' || s === 'WRONG' ? s : null;
  };
  const read = parseLenientJson(
    text,
    (v) => !!v && typeof v === 'object' && !Array.isArray(v) && labelOf(v.label) !== null,
  );
  if (read) return { label: labelOf((read.value as { label: unknown }).label)!, lenient: read.repairs.length > 0 };
  // Prose: the label words it uses ("incorrect" and "not correct" are WRONG); readable only when they agree.
  const said = new Set<Label>();
  for (const [word] of text.matchAll(/\b(?:not\s+correct|incorrect|correct|wrong)\b/gi))
    said.add(/^correct$/i.test(word) ? 'CORRECT' : 'WRONG');
  return said.size === 1 ? { label: [...said][0]!, lenient: true } : null;
}
