/**
 * Spans and metrics for every model and embedding call mem makes, following the OpenTelemetry GenAI semantic
 * conventions: each port given to `createStack` (embedder, summariser, statement extractor, entity resolver, query
 * rewriter, reranker) and the fact extractor of @mem/episodic can be wrapped. A wrapper changes no answer: it forwards
 * every call and every other property to the port it wraps, and records only names, counts and codes — never the
 * texts the model reads or writes.
 */
import type {
  Embedder,
  EntityResolver,
  FactExtractor,
  QueryRewriter,
  Reranker,
  StatementExtractor,
  Summarizer,
  TokenUsage,
} from '@mem/core/adapter';
import { type Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { errorCodeOf, type TelemetryOptions, telemetry } from './telemetry.js';

export interface ModelTelemetryOptions extends TelemetryOptions {
  /**
   * `gen_ai.provider.name` (and the older `gen_ai.system`): who serves the model (`openai`, …). Default: the part of
   * the port's id before `:` (`openai:text-embedding-3-small` → `openai`), else `mem`.
   */
  provider?: string;
}

/** What one wrapped call is: the GenAI operation, the port and the model. */
interface ModelCall {
  operation: 'embeddings' | 'chat' | 'rerank';
  /** The port (`embedder`, `summarizer`, …), as `mem.model.port`. */
  port: string;
  /** The port's id, as `gen_ai.request.model`. */
  model: string;
}

function providerOf(id: string, options: ModelTelemetryOptions): string {
  if (options.provider) return options.provider;
  const at = id.indexOf(':');
  return at > 0 ? id.slice(0, at) : 'mem';
}

/**
 * Run `fn` as a model call: a CLIENT span named `{operation} {model}` (a child of the current mem operation when a
 * context manager is registered), its token usage on the span and in `gen_ai.client.token.usage`, its duration in
 * `gen_ai.client.operation.duration`, and a failure as an error status with `error.type`.
 */
async function traced<T>(
  call: ModelCall,
  options: ModelTelemetryOptions,
  fn: () => Promise<T>,
  usageOf: (result: T) => TokenUsage | undefined,
  extra?: (result: T) => Attributes,
): Promise<T> {
  const t = telemetry(options);
  const provider = providerOf(call.model, options);
  const common: Attributes = {
    'gen_ai.operation.name': call.operation,
    'gen_ai.request.model': call.model,
    'gen_ai.provider.name': provider,
    'gen_ai.system': provider,
  };
  const span = t.tracer().startSpan(`${call.operation} ${call.model}`, {
    kind: SpanKind.CLIENT,
    attributes: { ...common, 'mem.model.port': call.port },
  });
  const started = performance.now();
  let errorType: string | undefined;
  try {
    const result = await fn();
    const usage = usageOf(result);
    if (usage) {
      span.setAttributes({
        'gen_ai.usage.input_tokens': usage.inputTokens,
        'gen_ai.usage.output_tokens': usage.outputTokens,
      });
      const tokens = t.instruments().tokenUsage;
      tokens.record(usage.inputTokens, { ...common, 'gen_ai.token.type': 'input' });
      if (call.operation !== 'embeddings' || usage.outputTokens > 0)
        tokens.record(usage.outputTokens, { ...common, 'gen_ai.token.type': 'output' });
    }
    if (extra && span.isRecording()) span.setAttributes(extra(result));
    return result;
  } catch (error) {
    errorType = errorCodeOf(error);
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    throw error;
  } finally {
    span.end();
    t.instruments().modelDuration.record((performance.now() - started) / 1000, {
      ...common,
      ...(errorType ? { 'error.type': errorType } : {}),
    });
  }
}

type Method = (...args: never[]) => Promise<unknown>;

/**
 * `target` with the named methods wrapped (`wrap` gets the original, bound); every other property (and `in`) reads
 * through to `target`. A method that someone replaces on the proxy afterwards (the server's fair embedding queue does
 * so, in place) is served as replaced, and still reaches the wrapped original through the wrapper it captured.
 */
function withMethods<T extends object>(target: T, wraps: { [K in keyof T]?: (original: never) => unknown }): T {
  const originals = new Map<PropertyKey, { original: unknown; wrapped: unknown }>();
  for (const [name, wrap] of Object.entries(wraps) as [string, (original: Method) => unknown][]) {
    const original = Reflect.get(target, name) as unknown;
    if (typeof original !== 'function') continue;
    originals.set(name, { original, wrapped: wrap((original as Method).bind(target)) });
  }
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      const found = originals.get(prop);
      if (found && value === found.original) return found.wrapped;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
    },
  });
}

/** An embedder whose calls are `embeddings` spans with the tokens `embedWithUsage` reports. */
export function tracedEmbedder(embedder: Embedder, options: ModelTelemetryOptions = {}): Embedder {
  const call: ModelCall = { operation: 'embeddings', port: 'embedder', model: embedder.id };
  const texts = (n: number): Attributes => ({ 'mem.embeddings.texts': n });
  return withMethods(embedder, {
    embed: (original: Embedder['embed']) => (input: string[]) =>
      traced(
        call,
        options,
        () => original(input),
        () => undefined,
        () => texts(input.length),
      ),
    embedWithUsage: (original: NonNullable<Embedder['embedWithUsage']>) => (input: string[]) =>
      traced(
        call,
        options,
        () => original(input),
        (r) => r.usage,
        () => texts(input.length),
      ),
  });
}

/** A summariser whose calls are `chat` spans. */
export function tracedSummarizer(summarizer: Summarizer, options: ModelTelemetryOptions = {}): Summarizer {
  const call: ModelCall = { operation: 'chat', port: 'summarizer', model: summarizer.id };
  return withMethods(summarizer, {
    summarize: (original: Summarizer['summarize']) => (input: Parameters<Summarizer['summarize']>[0]) =>
      traced(
        call,
        options,
        () => original(input),
        (r) => r.usage,
      ),
  });
}

/** A statement extractor (distill) whose calls are `chat` spans; the model is its `model`, else its id. */
export function tracedStatementExtractor(
  extractor: StatementExtractor,
  options: ModelTelemetryOptions = {},
): StatementExtractor {
  const call: ModelCall = { operation: 'chat', port: 'extractor', model: extractor.model ?? extractor.id };
  return withMethods(extractor, {
    extract: (original: StatementExtractor['extract']) => (input: Parameters<StatementExtractor['extract']>[0]) =>
      traced(
        call,
        options,
        () => original(input),
        (r) => r.usage,
      ),
  });
}

/** A fact extractor (consolidation) whose calls are `chat` spans. */
export function tracedFactExtractor(extractor: FactExtractor, options: ModelTelemetryOptions = {}): FactExtractor {
  const call: ModelCall = { operation: 'chat', port: 'fact-extractor', model: extractor.id };
  return withMethods(extractor, {
    extract: (original: FactExtractor['extract']) => (input: Parameters<FactExtractor['extract']>[0]) =>
      traced(
        call,
        options,
        () => original(input),
        (r) => r.usage,
      ),
  });
}

/** An entity resolver whose calls are `chat` spans. */
export function tracedEntityResolver(resolver: EntityResolver, options: ModelTelemetryOptions = {}): EntityResolver {
  const call: ModelCall = { operation: 'chat', port: 'entity-resolver', model: resolver.id };
  return withMethods(resolver, {
    resolve: (original: EntityResolver['resolve']) => (input: Parameters<EntityResolver['resolve']>[0]) =>
      traced(
        call,
        options,
        () => original(input),
        (r) => r.usage,
      ),
  });
}

/** A query rewriter whose calls are `chat` spans. */
export function tracedQueryRewriter(rewriter: QueryRewriter, options: ModelTelemetryOptions = {}): QueryRewriter {
  const call: ModelCall = { operation: 'chat', port: 'query-rewriter', model: rewriter.id };
  return withMethods(rewriter, {
    rewrite: (original: QueryRewriter['rewrite']) => (input: Parameters<QueryRewriter['rewrite']>[0]) =>
      traced(
        call,
        options,
        () => original(input),
        (r) => r.usage,
      ),
  });
}

/** A reranker whose calls are `rerank` spans. */
export function tracedReranker(reranker: Reranker, options: ModelTelemetryOptions = {}): Reranker {
  const call: ModelCall = { operation: 'rerank', port: 'reranker', model: reranker.id };
  return withMethods(reranker, {
    rerank: (original: Reranker['rerank']) => (input: Parameters<Reranker['rerank']>[0]) =>
      traced(
        call,
        options,
        () => original(input),
        (r) => r.usage,
        () => ({ 'mem.rerank.documents': input.documents.length }),
      ),
  });
}

/** The model ports of `createStack`'s options that `instrument` wraps. */
export interface ModelPorts {
  embedder?: Embedder | undefined;
  summarizer?: Summarizer | undefined;
  extractor?: StatementExtractor | undefined;
  entityResolver?: EntityResolver | undefined;
  queryRewriter?: QueryRewriter | undefined;
  reranker?: Reranker | undefined;
}

/**
 * `createStack`'s options with every model port given wrapped (`createStack(instrument({...}))`); ports not given
 * stay absent, every other option is kept as it is.
 */
export function instrument<O extends ModelPorts>(stackOptions: O, options: ModelTelemetryOptions = {}): O {
  const out: O = { ...stackOptions };
  if (out.embedder) out.embedder = tracedEmbedder(out.embedder, options);
  if (out.summarizer) out.summarizer = tracedSummarizer(out.summarizer, options);
  if (out.extractor) out.extractor = tracedStatementExtractor(out.extractor, options);
  if (out.entityResolver) out.entityResolver = tracedEntityResolver(out.entityResolver, options);
  if (out.queryRewriter) out.queryRewriter = tracedQueryRewriter(out.queryRewriter, options);
  if (out.reranker) out.reranker = tracedReranker(out.reranker, options);
  return out;
}
