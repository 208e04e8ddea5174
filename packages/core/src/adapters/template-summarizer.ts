import { NO_USAGE, type SummarizeInput, type Summarizer, type SummaryResult } from '../ports/summarizer.js';

export interface TemplateSummarizerOptions {
  /** How many of the newest messages to list (default 20). */
  lastMessages?: number;
  /** Each message is cut at this many characters (default 200). */
  maxChars?: number;
}

/** One bullet per message: `- [role]: text`, on one line, cut at `maxChars` characters (an ellipsis marks a cut). */
export function templateSummary(input: SummarizeInput, options: TemplateSummarizerOptions = {}): string {
  const last = options.lastMessages ?? 20;
  const max = options.maxChars ?? 200;
  return input.messages
    .slice(-last)
    .map((m) => {
      const flat = m.content.replace(/\s+/g, ' ').trim();
      const text = flat.length > max ? `${flat.slice(0, max)}…` : flat;
      return `- [${m.role}]: ${text}`;
    })
    .join('\n');
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
