import { isSummaryMessage } from '../domain/compaction.js';
import { SUMMARY_MARKER } from '../domain/transcript-format.js';
import { NO_USAGE, type SummarizeInput, type Summarizer, type SummaryResult } from '../ports/summarizer.js';

export interface TemplateSummarizerOptions {
  /** How many of the newest messages to list (default 20). */
  lastMessages?: number;
  /** Each message is cut at this many characters (default 200). */
  maxChars?: number;
}

/** The fields of a structured message (a framework's item stored as JSON) that hold what was said. */
const SAID = new Set(['text', 'content', 'output', 'arguments', 'refusal', 'transcript']);

/**
 * The text of a message: as it is, or — for a framework's item stored as JSON (an OpenAI Agents item, a tool call or
 * result) — the strings under its text-bearing fields, in order, at most four levels deep. Linear in the content.
 */
export function spokenText(content: string): string {
  const head = content.trimStart()[0];
  if (head !== '{' && head !== '[') return content;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return content;
  }
  const out: string[] = [];
  const walk = (v: unknown, depth: number, said: boolean) => {
    if (typeof v === 'string') {
      if (said && v.trim() !== '') out.push(v);
    } else if (Array.isArray(v)) {
      if (depth < 4) for (const x of v) walk(x, depth + 1, said);
    } else if (v && typeof v === 'object' && depth < 4) {
      for (const [k, x] of Object.entries(v)) walk(x, depth + 1, SAID.has(k));
    }
  };
  walk(value, 0, true);
  return out.length > 0 ? out.join(' ') : content;
}

/**
 * One bullet per message: `- [role]: text`, on one line, cut at `maxChars` characters (an ellipsis marks a cut). An
 * earlier summary leading the messages becomes one bullet `- earlier: …` (its lines joined, cut the same way, its
 * header left out): compacting again never nests the header, and the summary stays as long as one pass makes it.
 */
export function templateSummary(input: SummarizeInput, options: TemplateSummarizerOptions = {}): string {
  const last = options.lastMessages ?? 20;
  const max = options.maxChars ?? 200;
  const lines: string[] = [];
  for (const m of input.messages) {
    const cut = (flat: string) => (flat.length > max ? `${flat.slice(0, max)}…` : flat);
    if (isSummaryMessage(m)) {
      // The earlier summary in one line of its own, its header left out: the summary never grows with each pass.
      const body = m.content
        .slice(SUMMARY_MARKER.length)
        .split('\n')
        .map((l) => l.replace(/^\s*-\s*(?:earlier:\s*)?/, '').trim())
        .filter((l) => l !== '');
      if (body.length > 0) lines.push(`- earlier: ${cut(body.join(' · '))}`);
      continue;
    }
    lines.push(`- [${m.role}]: ${cut(spokenText(m.content).replace(/\s+/g, ' ').trim())}`);
  }
  return lines.slice(-last).join('\n');
}

/**
 * The template summariser (docs/configuration.md): no model, no dependencies, never fails. The last 20 messages as
 * `- [role]: text`, each cut at 200 characters. Also the fallback of the LLM summariser.
 */
export function createTemplateSummarizer(options: TemplateSummarizerOptions = {}): Summarizer {
  return {
    id: 'template',
    async summarize(input: SummarizeInput): Promise<SummaryResult> {
      return { summary: templateSummary(input, options), usage: { ...NO_USAGE }, summarizer: 'template' };
    },
  };
}
