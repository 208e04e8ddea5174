import { isSummaryMessage } from '../domain/compaction.js';
import { chooseExtract, contentTerms, type ExtractCandidate, keywordCentrality } from '../domain/extractive.js';
import { lowerCaseWords, salientItems, splitSentences } from '../domain/salient.js';
import { SUMMARY_MARKER } from '../domain/transcript-format.js';
import type { Embedder } from '../ports/embedder.js';
import { NO_USAGE, type SummarizeInput, type Summarizer, type SummaryResult, sumUsage } from '../ports/summarizer.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { defaultTokenizer } from './gpt-tokenizer.js';
import { spokenText } from './template-summarizer.js';

export interface ExtractiveSummarizerOptions {
  /** Embeds the sentences, so that centrality is closeness in meaning; without one, shared keywords alone decide. */
  embedder?: Embedder | undefined;
  /** Counts the budget the way the model does (default: the GPT tokenizer mem counts prompts with). */
  tokenizer?: Tokenizer | undefined;
  /** Most tokens a summary takes (default 1,024); a caller's `maxTokens` lowers it. */
  maxTokens?: number;
  /** A summary takes at most this share of the summarised messages' tokens, and at least 128 tokens (default 0.35). */
  ratio?: number;
  /** At most this many sentences, the most promising by keywords and items, are embedded per summary (default 400). */
  maxEmbedded?: number;
}

/** The least a summary may take, whatever the share of a short conversation. */
const MIN_TOKENS = 128;

interface Sentence {
  text: string;
  /** Index of the message it comes from; -1 for a line of an earlier summary. */
  message: number;
  candidate: ExtractCandidate;
}

const day = (at: string) => (Number.isNaN(Date.parse(at)) ? '' : new Date(at).toISOString().slice(0, 10));

/** The lines of an earlier summary, bullets and header left out. */
function earlierLines(content: string): string[] {
  return content
    .slice(SUMMARY_MARKER.length)
    .split('\n')
    .map((l) => l.replace(/^\s*-\s*/, '').trim())
    .filter((l) => l !== '');
}

/** The head of a message's line: `[role]`, or `[role, 2023-05-08]` when the summary spans more than one day. */
function lineHead(role: string, at: string, dated: boolean): string {
  const d = dated ? day(at) : '';
  return d ? `- [${role}, ${d}]: ` : `- [${role}]: `;
}

/**
 * The extractive summariser (docs/conversations.md): no model, never fails. It keeps the conversation's own sentences —
 * those most central to it (by the embedder when there is one, else by shared keywords) and those that hold names,
 * numbers, dates and decisions no kept sentence holds yet — within a token budget, in the order they were said, one
 * line per message (`- [role]: …`, with the day when the messages span several). A framework's message items are read
 * as their text; an earlier summary's lines compete with the new sentences, its header is never repeated.
 */
export function createExtractiveSummarizer(options: ExtractiveSummarizerOptions = {}): Summarizer {
  const tokenizer = options.tokenizer ?? defaultTokenizer();
  const maxTokens = options.maxTokens ?? 1_024;
  const ratio = options.ratio ?? 0.35;
  const maxEmbedded = options.maxEmbedded ?? 400;
  const id = 'extractive';
  return {
    id,
    async summarize(input: SummarizeInput): Promise<SummaryResult> {
      const messages = input.messages;
      const days = new Set(messages.filter((m) => !isSummaryMessage(m)).map((m) => day(m.at)));
      const dated = days.size > 1;
      const texts = messages.map((m) => (isSummaryMessage(m) ? '' : spokenText(m.content).replace(/[ \t]+/g, ' ')));
      const lower = lowerCaseWords(texts);
      const sentences: Sentence[] = [];
      let inputTokens = 0;
      const add = (text: string, message: number, earlier: boolean, head = 0) => {
        // A sentence costs its tokens and a space; the first one kept of a message also its line's head.
        const tokens = tokenizer.count(text);
        inputTokens += tokens;
        const { items, decision } = salientItems(text, lower);
        sentences.push({
          text,
          message,
          candidate: {
            tokens: tokens + 1,
            ...(earlier ? {} : { group: message, head }),
            terms: contentTerms(text),
            items,
            decision,
            earlier,
          },
        });
      };
      messages.forEach((m, i) => {
        if (isSummaryMessage(m)) {
          for (const line of earlierLines(m.content)) add(line, -1, true);
          return;
        }
        const head = tokenizer.count(lineHead(m.role, m.at, dated));
        for (const s of splitSentences(texts[i]!)) add(s, i, false, head);
      });
      const budget = Math.max(
        16,
        Math.floor(
          Math.min(maxTokens, input.maxTokens ?? Number.POSITIVE_INFINITY, Math.max(MIN_TOKENS, inputTokens * ratio)),
        ),
      );
      const { usage, fallback } = await embedPool(options.embedder, sentences, maxEmbedded);
      // Costs are estimates (token counts do not add up exactly): the rendered summary is checked.
      const chosen = chooseExtract(
        sentences.map((s) => s.candidate),
        budget,
      );
      let summary = render(sentences, chosen, messages, dated);
      while (chosen.length > 1 && tokenizer.count(summary) > budget) {
        chosen.splice(leastValued(sentences, chosen), 1);
        summary = render(sentences, chosen, messages, dated);
      }
      if (summary === '' || tokenizer.count(summary) > budget) summary = newestCut(sentences, budget, tokenizer);
      return { summary, usage, summarizer: id, ...(fallback ? { fallback: { from: id, reason: fallback } } : {}) };
    },
  };
}

/** Embed the most promising sentences (by keywords, items and decisions); a failing embedder leaves keywords alone to decide. */
async function embedPool(
  embedder: Embedder | undefined,
  sentences: Sentence[],
  maxEmbedded: number,
): Promise<{ usage: SummaryResult['usage']; fallback: string | null }> {
  if (!embedder || sentences.length < 2) return { usage: { ...NO_USAGE }, fallback: null };
  const kw = keywordCentrality(sentences.map((s) => s.candidate));
  const promise = sentences.map((s, i) => kw[i]! + 0.3 * s.candidate.items.length + (s.candidate.decision ? 0.3 : 0));
  const pool = sentences
    .map((_, i) => i)
    .filter((i) => sentences[i]!.candidate.terms.length > 0)
    .sort((a, b) => promise[b]! - promise[a]!)
    .slice(0, maxEmbedded);
  if (pool.length < 2) return { usage: { ...NO_USAGE }, fallback: null };
  try {
    const texts = pool.map((i) => sentences[i]!.text);
    const result = embedder.embedWithUsage
      ? await embedder.embedWithUsage(texts)
      : { vectors: await embedder.embed(texts), usage: { ...NO_USAGE } };
    pool.forEach((i, k) => {
      sentences[i]!.candidate.vector = result.vectors[k] ?? null;
    });
    return { usage: sumUsage([result.usage]), fallback: null };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      usage: { ...NO_USAGE },
      fallback: `embedder "${embedder.id}" failed (${why}); sentences chosen by keywords`,
    };
  }
}

/** The chosen sentences in the order they were said: an earlier summary's lines first, then one line per message. */
function render(sentences: Sentence[], chosen: number[], messages: SummarizeInput['messages'], dated: boolean): string {
  const lines: string[] = [];
  let message = -2;
  let last = -2;
  for (const i of chosen) {
    const s = sentences[i]!;
    if (s.message === -1) {
      lines.push(`- ${s.text}`);
    } else if (s.message === message) {
      lines[lines.length - 1] += i === last + 1 ? ` ${s.text}` : ` … ${s.text}`;
    } else {
      const m = messages[s.message]!;
      lines.push(`${lineHead(m.role, m.at, dated)}${s.text}`);
    }
    message = s.message;
    last = i;
  }
  return lines.join('\n');
}

/** The chosen sentence of least value per token (the one to give up when the rendered lines run over). */
function leastValued(sentences: Sentence[], chosen: number[]): number {
  let worst = 0;
  let worstValue = Number.POSITIVE_INFINITY;
  chosen.forEach((i, k) => {
    const c = sentences[i]!.candidate;
    const value = (c.items.length + c.terms.length + (c.decision ? 2 : 0)) / Math.max(1, c.tokens);
    if (value < worstValue) {
      worstValue = value;
      worst = k;
    }
  });
  return worst;
}

/** When nothing fits: the newest sentence with words in it (else the newest), cut to the budget. */
function newestCut(sentences: Sentence[], budget: number, tokenizer: Tokenizer): string {
  let newest = sentences.length - 1;
  while (newest >= 0 && sentences[newest]!.candidate.terms.length === 0) newest--;
  const s = sentences[newest < 0 ? sentences.length - 1 : newest];
  if (s) {
    let text = s.text.slice(0, budget * 4);
    while (text.length > 1 && tokenizer.count(`- ${text}…`) > budget)
      text = text.slice(0, Math.floor(text.length * 0.8));
    return `- ${text}${text.length < s.text.length ? '…' : ''}`;
  }
  return '';
}
