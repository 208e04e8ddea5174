import {
  type DistillMessage,
  type ExtractionFailure,
  type ProposedMemory,
  type RelatedMemory,
  redactSecrets,
  type StatementExtraction,
  type StatementExtractionInput,
  type StatementExtractor,
  sumUsage,
  type TokenUsage,
} from '@mem/core/adapter';
import {
  type ChatAnswer,
  type ChatEndpointOptions,
  type ChatMessage,
  checkChatOptions,
  createChatClient,
  type ResponseFormat,
} from './chat-client.js';
import { parseLenientJson } from './lenient-json.js';
import {
  correction,
  renderBatch,
  type ShownMessage,
  type ShownRelated,
  STATEMENT_ANSWER_SCHEMA,
  STATEMENT_PROMPT,
  STATEMENT_PROMPT_VERSION,
} from './statement-prompt.js';
import { answerItems, FIELD_CAPS, looksLikeAnswer, readItem, type ShownRefs } from './statement-reading.js';

/** The default caps of one call (one batch), and their bounds. */
export const STATEMENT_BATCH_DEFAULTS = {
  /** Messages shown per call. */
  maxMessagesPerCall: 40,
  /** Characters of message text per call (a fact-bearing message longer than this is cut to it, and reported). */
  maxCharsPerCall: 24_000,
  /** Related memories shown per call, and as many facts proposed by the earlier batches of the same extraction. */
  maxRelated: 20,
  /** An assistant message shown as context keeps its last this many characters (where its question stands). */
  contextChars: 1_000,
} as const;

/** The longest earlier answer shown back to the model with the retry (characters). */
const MAX_ECHO_CHARS = 4_000;

export interface LlmStatementExtractorOptions extends ChatEndpointOptions {
  /** Sampling temperature (default 0: the same messages should give the same attributes). */
  temperature?: number;
  /** Most tokens an answer may take (default 2,048). A cut answer keeps its complete memories (the cut is reported). */
  maxTokens?: number;
  /** Id reported by the extractor and logged with every decision (default `llm:<model>`). */
  id?: string;
  /**
   * How the answer's shape is asked for: `json_schema` (default: strict structured output), `json_object` (servers
   * without JSON-schema support), or `none` (the prompt alone; for servers that reject `response_format`).
   */
  responseFormat?: 'json_schema' | 'json_object' | 'none';
  /** Messages per call (default 40, 1–200): more make several calls, one per batch. */
  maxMessagesPerCall?: number;
  /** Characters of message text per call (default 24,000, 1,000–200,000). */
  maxCharsPerCall?: number;
  /** Related memories shown per call (default 20, 0–100; the most related first). */
  maxRelated?: number;
  /** Show the assistant's messages as context (never as facts or evidence). Default true. */
  assistantContext?: boolean;
}

/** The port's result, with the tokens always set (every call of the extraction, the retries included). */
export interface LlmStatementExtraction extends StatementExtraction {
  usage: TokenUsage;
}

export interface LlmStatementExtractor extends StatementExtractor {
  extract(input: StatementExtractionInput): Promise<LlmStatementExtraction>;
}

function checkOptions(o: LlmStatementExtractorOptions): void {
  const whole = (name: string, v: number | undefined, min: number, max: number) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= min && v <= max))
      throw new TypeError(`summarizer-llm: \`${name}\` must be a whole number from ${min} to ${max}.`);
  };
  whole('maxMessagesPerCall', o.maxMessagesPerCall, 1, 200);
  whole('maxCharsPerCall', o.maxCharsPerCall, 1_000, 200_000);
  whole('maxRelated', o.maxRelated, 0, 100);
  if (o.responseFormat !== undefined && !['json_schema', 'json_object', 'none'].includes(o.responseFormat))
    throw new TypeError('summarizer-llm: `responseFormat` must be "json_schema", "json_object" or "none".');
  if (o.assistantContext !== undefined && typeof o.assistantContext !== 'boolean')
    throw new TypeError('summarizer-llm: `assistantContext` must be true or false.');
  if (o.id !== undefined && (typeof o.id !== 'string' || o.id.trim() === ''))
    throw new TypeError('summarizer-llm: `id` must be a non-empty text.');
}

const cap = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** What one batch gave: proposals, failures, the tokens of each call, and whether the endpoint failed (stop). */
interface BatchOutcome {
  proposals: ProposedMemory[];
  failures: ExtractionFailure[];
  usages: TokenUsage[];
  stop: boolean;
}

/** One answer read: usable (proposals, and failures for what it dropped or repaired), or why it is not. */
type AnswerReading =
  | { usable: true; proposals: ProposedMemory[]; failures: ExtractionFailure[] }
  | { usable: false; code: string; problem: string };

/**
 * The LLM statement extractor (memory that forms itself, docs/formation.md): implements the `StatementExtractor`
 * port of `@mem/core/adapter` over any OpenAI-compatible chat completions endpoint. The messages it may read, with
 * secrets redacted, go out in batches under short refs (m1, m2…, related memories r1, r2…; never a real id), one
 * structured-output call per batch; the answer's memories are checked item by item and mapped back. It never
 * throws for a model or endpoint problem: what went wrong is in `failures` (`bad-json`, `bad-shape`,
 * `unknown-alias`, `bad-evidence`, `bad-date`, `cut`, `too-long`, `refused`, `timeout`, `endpoint`), so that
 * distill reports it.
 */
export function createLlmStatementExtractor(options: LlmStatementExtractorOptions): LlmStatementExtractor {
  checkChatOptions(options, 'summarizer-llm');
  checkOptions(options);
  const client = createChatClient(options, { temperature: 0, maxTokens: 2_048 });
  const model = options.model;
  const id = options.id ?? `llm:${model}`;
  const maxMessages = options.maxMessagesPerCall ?? STATEMENT_BATCH_DEFAULTS.maxMessagesPerCall;
  const maxChars = options.maxCharsPerCall ?? STATEMENT_BATCH_DEFAULTS.maxCharsPerCall;
  const maxRelated = options.maxRelated ?? STATEMENT_BATCH_DEFAULTS.maxRelated;
  const assistantContext = options.assistantContext ?? true;
  const format = options.responseFormat ?? 'json_schema';
  const responseFormat: ResponseFormat =
    format === 'json_schema'
      ? { type: 'json_schema', name: 'memories', schema: STATEMENT_ANSWER_SCHEMA }
      : { type: format };
  /** Text from the model goes into failures only with the key and secrets taken out. */
  const safe = (text: string): string => client.redactKey(redactSecrets(text));

  /** How a message is shown: read for facts, shown as context, or not at all. */
  function useOf(m: DistillMessage, allowUntrusted: boolean): ShownMessage['use'] | null {
    if (m.untrusted === true && !allowUntrusted) return null;
    if (m.role === 'user') return 'facts';
    if (m.role === 'tool') return allowUntrusted ? 'facts' : null;
    if (m.role === 'assistant') return assistantContext ? 'context' : null;
    return null; // system messages are the agent's instructions, not the user's words
  }

  /** The batches of an extraction, in message order; a batch with nothing to read for facts is not sent. */
  function plan(input: StatementExtractionInput, failures: ExtractionFailure[]): ShownMessage[][] {
    const batches: ShownMessage[][] = [];
    let current: ShownMessage[] = [];
    let chars = 0;
    let n = 0;
    for (const m of input.messages) {
      const use = useOf(m, input.allowUntrusted === true);
      if (use === null) continue;
      // Redacted before anything is cut, so that a cut never hides half a secret from the scan.
      let text = redactSecrets(m.content);
      if (use === 'context' && text.length > STATEMENT_BATCH_DEFAULTS.contextChars)
        text = `…${text.slice(-STATEMENT_BATCH_DEFAULTS.contextChars)}`;
      if (use === 'facts' && text.length > maxChars) {
        failures.push({
          code: 'too-long',
          message: `message ${m.id} has ${text.length} characters: only its first ${maxChars} were read`,
        });
        text = text.slice(0, maxChars);
      }
      if (text.trim() === '') continue;
      if (current.length > 0 && (current.length >= maxMessages || chars + text.length > maxChars)) {
        batches.push(current);
        current = [];
        chars = 0;
      }
      n += 1;
      current.push({ ref: `m${n}`, id: m.id, role: m.role, at: m.at, use, text });
      chars += text.length;
    }
    if (current.length > 0) batches.push(current);
    return batches.filter((b) => b.some((m) => m.use === 'facts'));
  }

  /** The related memories shown to a batch, then the facts the earlier batches proposed (newest first, one each). */
  function shownRelated(given: readonly RelatedMemory[], earlier: readonly ProposedMemory[]): ShownRelated[] {
    const shown: ShownRelated[] = [];
    const add = (r: Omit<ShownRelated, 'ref'>) =>
      shown.push({
        ref: `r${shown.length + 1}`,
        subject: r.subject,
        attribute: r.attribute,
        value: cap(redactSecrets(r.value), FIELD_CAPS.value),
        statement: cap(redactSecrets(r.statement), FIELD_CAPS.statement),
      });
    for (const r of given.slice(0, maxRelated)) add(r);
    const seen = new Set<string>();
    for (const p of [...earlier].reverse()) {
      const key = `${p.subject}\u0000${p.attribute}`;
      if (seen.has(key) || seen.size >= maxRelated) continue;
      seen.add(key);
      add(p);
    }
    return shown;
  }

  /** One answer read back: the items checked one by one; unusable when nothing could be read or every item was dropped. */
  function readAnswer(answer: ChatAnswer, refs: ShownRefs): AnswerReading {
    const cut = answer.finishReason === 'length' ? ' (the answer was cut by maxTokens)' : '';
    const found = parseLenientJson(answer.content, looksLikeAnswer);
    const outer = answer.content === '' ? null : parseLenientJson(answer.content);
    // The reader digs into wrappers for a list; an empty list found inside some other JSON (`{"facts": "none",
    // "notes": []}`) is not taken for "nothing to keep": only `[]` or `{"memories": []}` as the answer itself are.
    const hollow =
      found !== null &&
      outer !== null &&
      answerItems(found.value)?.length === 0 &&
      answerItems(outer.value)?.length !== 0;
    const parsed = hollow ? null : found;
    if (!parsed) {
      const began = safe(answer.content.replace(/\s+/g, ' ').slice(0, 100));
      if (outer)
        return {
          usable: false,
          code: 'bad-shape',
          problem: `the JSON holds no list of memories${cut}; it began "${began}"`,
        };
      return {
        usable: false,
        code: 'bad-json',
        problem: `no JSON could be read from the answer${cut}; ${began ? `it began "${began}"` : 'it was empty'}`,
      };
    }
    const items = answerItems(parsed.value) ?? [];
    const proposals: ProposedMemory[] = [];
    const failures: ExtractionFailure[] = [];
    const dropped: { code: string; message: string }[] = [];
    items.forEach((item, index) => {
      const read = readItem(item, index, refs);
      if ('failure' in read) {
        const failure = { code: read.code, message: safe(read.failure.message) };
        dropped.push(failure);
        failures.push(failure);
        return;
      }
      proposals.push(read.proposal);
      failures.push(...read.notes.map((n) => ({ code: n.code, message: safe(n.message) })));
    });
    if (items.length > 0 && proposals.length === 0) {
      const reasons = dropped
        .slice(0, 3)
        .map((d) => d.message)
        .join('; ');
      return {
        usable: false,
        code: dropped[0]!.code,
        problem: `every one of its ${items.length} memories was dropped${cut} (${reasons}${dropped.length > 3 ? '; …' : ''})`,
      };
    }
    if (parsed.repairs.includes('dropped a truncated last element'))
      failures.push({ code: 'cut', message: 'the answer was cut by maxTokens: the memory it was writing was lost' });
    return { usable: true, proposals, failures };
  }

  /** One batch: one call, and one retry with a correction when the answer cannot be used at all. */
  async function runBatch(batch: ShownMessage[], related: ShownRelated[], label: string): Promise<BatchOutcome> {
    const outcome: BatchOutcome = { proposals: [], failures: [], usages: [], stop: false };
    const refs: ShownRefs = {
      messages: new Map(batch.map((m) => [m.ref, m])),
      related: new Map(related.map((r) => [r.ref, r])),
    };
    const messages: ChatMessage[] = [
      { role: 'system', content: STATEMENT_PROMPT },
      // Secrets once more over the whole message: nothing the redaction knows reaches the endpoint.
      { role: 'user', content: redactSecrets(renderBatch(batch, related)) },
    ];
    const problems: { code: string; problem: string }[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      let answer: ChatAnswer;
      try {
        answer = await client.complete(messages, { responseFormat });
      } catch (error) {
        // The SDK error is not kept: a server may echo the key in it.
        const f = client.describeFailure(error);
        const code = f.kind === 'timeout' ? 'timeout' : 'endpoint';
        outcome.failures.push({ code, message: safe(`${label}: model "${model}" failed: ${f.reason}`) });
        outcome.stop = true;
        return outcome;
      }
      outcome.usages.push(answer.usage);
      if (answer.refusal !== null || answer.finishReason === 'content_filter') {
        const said = answer.refusal !== null ? `: "${cap(answer.refusal, 200)}"` : ' (content filter)';
        outcome.failures.push({ code: 'refused', message: safe(`${label}: model "${model}" refused${said}`) });
        return outcome;
      }
      const read = readAnswer(answer, refs);
      if (read.usable) {
        outcome.proposals.push(...read.proposals);
        outcome.failures.push(...read.failures.map((f) => ({ ...f, message: `${label}: ${f.message}` })));
        return outcome;
      }
      problems.push(read);
      messages.push(
        { role: 'assistant', content: answer.content === '' ? '(empty)' : cap(answer.content, MAX_ECHO_CHARS) },
        { role: 'user', content: correction(read.problem) },
      );
    }
    const [first, last] = [problems[0]!, problems[1]!];
    outcome.failures.push({
      code: last.code,
      message: safe(
        `${label}: model "${model}" gave no usable answer, also after one retry: ${last.problem} (the first answer: ${first.problem})`,
      ),
    });
    return outcome;
  }

  return {
    id,
    model,
    promptVersion: STATEMENT_PROMPT_VERSION,
    async extract(input: StatementExtractionInput): Promise<LlmStatementExtraction> {
      const proposals: ProposedMemory[] = [];
      const failures: ExtractionFailure[] = [];
      const usages: TokenUsage[] = [];
      const batches = plan(input, failures);
      for (let b = 0; b < batches.length; b++) {
        const batch = batches[b]!;
        const span = batch.length === 1 ? batch[0]!.id : `${batch[0]!.id} … ${batch.at(-1)!.id}`;
        const label = `batch ${b + 1} of ${batches.length} (messages ${span})`;
        const outcome = await runBatch(batch, shownRelated(input.related, proposals), label);
        proposals.push(...outcome.proposals);
        failures.push(...outcome.failures);
        usages.push(...outcome.usages);
        if (outcome.stop && b + 1 < batches.length) {
          const left = batches.slice(b + 1).reduce((n, x) => n + x.length, 0);
          failures.push({
            code: outcome.failures.at(-1)!.code,
            message: `the ${batches.length - b - 1} later batches (${left} messages) were not sent after the endpoint failed`,
          });
          break;
        }
      }
      return { proposals, failures, usage: sumUsage(usages) };
    },
  };
}
