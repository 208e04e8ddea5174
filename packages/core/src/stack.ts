import { bundleCapabilities, STRUCTURED_PORTS } from './adapter-kit/bundle.js';
import { createExtractiveSummarizer } from './adapters/extractive-summarizer.js';
import type { PersonalDataSetting } from './domain/secrets.js';
import { MemError } from './errors.js';
import { type Clock, systemClock } from './ports/clock.js';
import type { Embedder } from './ports/embedder.js';
import type { EntityResolver } from './ports/entity-resolver.js';
import type { EpisodicMemory } from './ports/episodic-memory.js';
import type { Erasable, Eraser } from './ports/eraser.js';
import type { KnowledgeStore } from './ports/knowledge-store.js';
import type { Logger } from './ports/logger.js';
import type { NotebookStore } from './ports/notebook-store.js';
import type { ProceduralMemory } from './ports/procedural-memory.js';
import type { QueryRewriter } from './ports/query-rewriter.js';
import type { Reranker } from './ports/reranker.js';
import type { SecretScanner } from './ports/secret-scanner.js';
import type { Consolidation, ServicePlugin } from './ports/stack-services.js';
import type { StatementExtractor } from './ports/statement-extractor.js';
import type { StoreBundle, StoreBundleCapabilities } from './ports/store-bundle.js';
import type { StructuredStores } from './ports/structured-stores.js';
import type { Summarizer } from './ports/summarizer.js';
import type { Tokenizer } from './ports/tokenizer.js';
import type { TranscriptStore } from './ports/transcript-store.js';
import type { ConversationOptions } from './services/conversation/options.js';
import { ConversationService } from './services/conversation/service.js';
import { type ConversationDistillReport, distillConversation } from './services/distill-conversation.js';
import { GraphService } from './services/graph/index.js';
import { linkedQuery } from './services/graph/recall.js';
import { type KnowledgeOptions, KnowledgeService } from './services/knowledge/index.js';
import { Notebook, type NotebookOptions } from './services/notebook.js';
import type { Runner } from './services/runner/runner.js';
import type { DistillationTotals, RunnerOptions } from './services/runner/types.js';
import { guardStructuredStores, type StructuredLimits } from './services/structured-guards.js';
import { checkPlugins, type PluggedService, pluggedServices, runnerPool } from './stack-services.js';
import type { Principal } from './types.js';

/** Something that holds resources (a store bundle with a connection, say). */
interface Closable {
  close?(): Promise<void> | void;
}

export interface StackOptions {
  /**
   * Where knowledge memories live (e.g. createSqliteStore from @mem/store-sqlite, or createInMemoryKnowledgeStore()).
   * Required unless one of `stores` serves one.
   */
  knowledge?: KnowledgeStore;
  /**
   * Store bundles (`createSqliteStores`, `createPostgresStores`, `createLanceStores`, `createMarkdownStores`): a port
   * not given on its own option comes from the first bundle that serves it (structured ports one by one), and the
   * stack's `close()` closes the bundles.
   */
  stores?: StoreBundle | readonly StoreBundle[];
  /** Turns text into vectors; without one, search uses the keyword arm alone. */
  embedder?: Embedder;
  /** Re-scores the fused top results of every search (e.g. createHttpReranker from @mem/rerank-http); off when absent. */
  reranker?: Reranker;
  /**
   * Turns each search's query into a few searches (e.g. createLlmQueryRewriter from @mem/summarizer-llm), whose
   * results are merged; off when absent.
   */
  /**
   * Reads conversations into proposed memories for `distill` (docs/formation.md); default: the offline extractor of
   * first-person statements (no model). An LLM-backed one comes from @mem/summarizer-llm.
   */
  extractor?: StatementExtractor;
  queryRewriter?: QueryRewriter;
  /** The memory graph's last resolution step (docs/graph.md): a model asked when the rules join a new name to nothing. */
  entityResolver?: EntityResolver;
  clock?: Clock;
  /** Options of the knowledge service: weights, limits, tiers, thresholds… (docs/configuration.md). */
  knowledgeOptions?: Partial<KnowledgeOptions>;
  /** The structured stores of docs/structured.md (messages, facts, goals, …, episodes, procedures), e.g. createSqliteStructuredStores. */
  structured?: Partial<StructuredStores> & Closable & Erasable;
  /**
   * Ports the application needs. Assembly fails with CAPABILITY_MISSING, naming adapters that provide them, when a
   * listed port is missing (e.g. asking a LanceDB-only stack for `facts`).
   */
  requires?: StackPort[];
  /** Size limits checked on structured writes. */
  structuredLimits?: Partial<StructuredLimits>;
  /** Per-agent transcripts (docs/conversations.md), e.g. createMarkdownStores(...).transcripts or createSqliteTranscriptStore. */
  transcripts?: TranscriptStore;
  /** Agent-written notebooks (docs/notebooks.md). */
  notebooks?: NotebookStore;
  /** Writes compaction and session summaries; when absent, the extractive summariser over the stack's embedder. */
  summarizer?: Summarizer;
  /** Counts tokens for budgets; a GPT tokenizer when absent. */
  tokenizer?: Tokenizer;
  logger?: Logger;
  conversation?: Partial<ConversationOptions>;
  notebook?: Partial<NotebookOptions>;
  /**
   * Personal data (payment card numbers, IBANs): `refuse` (default) in memories, facts and notebooks, `redact` to
   * store them as `[REDACTED:<kind>]`, or `allow`; one policy, or `{ default, spaces: { name: policy } }` per space.
   * Transcripts always redact unless the space allows it. Overrides the same option of the service options.
   */
  personalData?: PersonalDataSetting;
  /**
   * An extra asynchronous secret scan run after mem's own rules on every write (e.g. createSecretlintScanner from
   * @mem/secrets-secretlint): memories, notebooks, facts, episodes and procedures refuse what it finds with
   * `SECRET_DETECTED`; transcripts redact it.
   */
  secretScanner?: SecretScanner;
  /**
   * Services built from the stack's ports on first use: `episodicServices()` of @mem/episodic (episodes and
   * consolidation) and `proceduralServices()` of @mem/procedural (procedures). The first plug-in that provides a
   * service builds it.
   */
  services?: ServicePlugin | readonly ServicePlugin[];
}

/** What the stack's ports can do, read and checked once when the stack was assembled. */
export interface StackCapabilities extends StoreBundleCapabilities {
  readonly knowledge: NonNullable<StoreBundleCapabilities['knowledge']>;
  /** True when the stack has an embedder. */
  readonly embedder: boolean;
}

export interface Stack {
  knowledge: KnowledgeService;
  knowledgeStore: KnowledgeStore;
  embedder: Embedder | undefined;
  /** Writes compaction and session summaries (the one given to createStack, else the extractive summariser). */
  summarizer: Summarizer;
  clock: Clock;
  /** What the ports can do, read once at assembly (a port that declares malformed capabilities fails assembly). */
  capabilities: StackCapabilities;
  /** The structured stores, validated (secrets refused in facts, sizes capped), or undefined when not configured. */
  structured: Partial<StructuredStores>;
  /** A structured port, or CAPABILITY_MISSING naming adapters that provide it. */
  port<K extends keyof StructuredStores>(name: K): StructuredStores[K];
  /** Conversation memory, or undefined without a transcript store. */
  conversations: ConversationService | undefined;
  /** The agent notebook, or undefined without a notebook store. */
  notebook: Notebook | undefined;
  /** The memory graph (docs/graph.md), or undefined without the graph port. */
  graph: GraphService | undefined;
  /** Episodic memory (built on first use), or undefined without the episodes port or a plug-in that provides it. */
  readonly episodes: EpisodicMemory | undefined;
  /** Procedural memory (built on first use), or undefined without the procedures port or a plug-in that provides it. */
  readonly procedures: ProceduralMemory | undefined;
  /** Consolidation of episodes into facts (built on first use), or undefined without its ports or plug-in. */
  readonly consolidation: Consolidation | undefined;
  /**
   * A service the caller needs, or CAPABILITY_MISSING saying what to add: the store port it reads (`port`'s error) or
   * the plug-in that provides it.
   */
  service<K extends StackService>(name: K): NonNullable<Stack[K]>;
  /**
   * The runner of these settings (docs/runner.md), built once per set of settings and shared by every caller that
   * gives the same ones. CAPABILITY_MISSING without a transcript store.
   */
  runner(options?: RunnerOptions): Runner;
  /**
   * Drop what the stack's runners hold in memory for one agent (its open conversation, its open tasks' text), as
   * `forget` does. Returns how many entries were dropped.
   */
  release(space: string, agentId: string): number;
  /** Counts and tokens of every distillation the stack's runners ran in this process (`Runner.distillationStats`). */
  distillationStats(): DistillationTotals;
  /**
   * distill (docs/formation.md): form memories from the given messages, or from the agent's transcript since its last
   * distillation for the user it acts for (`since`: from that time). Each fact is added, supersedes the memory it
   * changes, closes the one it retracts, or adds evidence to the one known; every decision is logged.
   */
  distill(p: Principal, raw: unknown): Promise<ConversationDistillReport>;
  /**
   * The erasers of the stack's storage (see `Eraser`), one per target, read once at assembly from the ports, the
   * structured stores and the bundles; `forget` runs each after deleting. Empty when no store keeps deleted data.
   */
  erasers: readonly Eraser[];
  close(): Promise<void>;
}

/** A service a stack may be asked for with `service(name)`. */
export type StackService = 'conversations' | 'notebook' | 'graph' | PluggedService;

/** A port a stack may be asked for. */
export type StackPort = keyof StructuredStores | 'transcripts' | 'notebooks' | 'embedder';

const PROVIDERS: Record<StackPort, string> = {
  messages: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  facts: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  goals: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  summaries: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  users: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  sessionState: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  phases: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  toolEvents: '@mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()',
  episodes: '@mem/store-sqlite, @mem/store-postgres, @mem/store-lancedb or createInMemoryStructuredStores()',
  procedures: '@mem/store-sqlite, @mem/store-postgres, @mem/store-lancedb or createInMemoryStructuredStores()',
  graph: '@mem/store-sqlite, @mem/store-postgres, @mem/store-lancedb or createInMemoryStructuredStores()',
  transcripts: '@mem/store-markdown, @mem/store-sqlite, @mem/store-postgres or createInMemoryTranscriptStore()',
  notebooks: '@mem/store-markdown, @mem/store-sqlite, @mem/store-postgres or createInMemoryNotebookStore()',
  embedder: '@mem/embed-local, @mem/embed-openai or createHashingEmbedder()',
};

/** The error for a port a stack does not have. */
export function missingPort(port: StackPort, what = 'This stack'): MemError {
  return new MemError(
    'CAPABILITY_MISSING',
    `${what} has no ${port} store: the configured adapters do not provide it. Add one from ${PROVIDERS[port]}.`,
    { details: { port } },
  );
}

/** Wire ports into services. Apps and users call this with the adapters they chose. */
export function createStack(given: StackOptions): Stack {
  const bundles: readonly StoreBundle[] = given.stores === undefined ? [] : [given.stores].flat();
  const options = withBundlePorts(given, bundles);
  const knowledgeStore = options.knowledge;
  if (!knowledgeStore) {
    throw new MemError(
      'INVALID_INPUT',
      'createStack needs a knowledge store: give `knowledge` (e.g. createSqliteStore from @mem/store-sqlite or createInMemoryKnowledgeStore()) or a bundle in `stores` that serves one.',
    );
  }
  const clock = options.clock ?? systemClock;
  const capabilities = Object.freeze({
    ...bundleCapabilities({
      knowledge: knowledgeStore,
      transcripts: options.transcripts,
      notebooks: options.notebooks,
      structured: options.structured,
    }),
    embedder: options.embedder !== undefined,
  }) as StackCapabilities;
  const present = (p: StackPort): boolean =>
    p === 'transcripts'
      ? !!options.transcripts
      : p === 'notebooks'
        ? !!options.notebooks
        : p === 'embedder'
          ? !!options.embedder
          : capabilities.structured.includes(p);
  for (const p of options.requires ?? []) if (!present(p)) throw missingPort(p, 'The stack being assembled');
  const pd = options.personalData === undefined ? {} : { personalData: options.personalData };
  const secretScanner = options.secretScanner;
  const structured = options.structured
    ? guardStructuredStores(options.structured, options.structuredLimits, options.personalData, secretScanner)
    : {};
  const graph = structured.graph
    ? new GraphService({
        store: structured.graph,
        clock,
        secretScanner,
        embedder: options.embedder,
        resolver: options.entityResolver,
        logger: options.logger,
        ...pd,
      })
    : undefined;
  const knowledge = new KnowledgeService({
    store: knowledgeStore,
    capabilities: capabilities.knowledge,
    embedder: options.embedder,
    reranker: options.reranker,
    queryRewriter: options.queryRewriter,
    ...(graph ? { graphQuery: (p: Principal, q: string, hops: number) => linkedQuery(graph, p, q, hops) } : {}),
    extractor: options.extractor,
    clock,
    logger: options.logger,
    secretScanner,
    options: { ...options.knowledgeOptions, ...pd },
  });
  const port: Stack['port'] = (name) => {
    const store = structured[name];
    if (!store) throw missingPort(name);
    return store;
  };
  const plugged = pluggedServices(checkPlugins(options.services), { port, embedder: options.embedder, clock });
  const summarizer =
    options.summarizer ?? createExtractiveSummarizer({ embedder: options.embedder, tokenizer: options.tokenizer });
  const conversations = options.transcripts
    ? new ConversationService({
        store: options.transcripts,
        settings: structured.sessionState,
        clock,
        tokenizer: options.tokenizer,
        summarizer,
        logger: options.logger,
        secretScanner,
        options: { ...options.conversation, ...pd },
      })
    : undefined;
  const notebook = options.notebooks
    ? new Notebook({
        store: options.notebooks,
        clock,
        tokenizer: options.tokenizer,
        secretScanner,
        options: { ...options.notebook, ...pd },
      })
    : undefined;
  const runners = runnerPool(() => stack);
  const stack: Stack = {
    knowledge,
    knowledgeStore,
    embedder: options.embedder,
    summarizer,
    clock,
    capabilities,
    structured,
    port,
    conversations,
    notebook,
    graph,
    get episodes() {
      return plugged.get('episodes');
    },
    get procedures() {
      return plugged.get('procedures');
    },
    get consolidation() {
      return plugged.get('consolidation');
    },
    service: (name) => {
      if (name === 'conversations') return (conversations ?? throwMissing('transcripts')) as never;
      if (name === 'notebook') return (notebook ?? throwMissing('notebooks')) as never;
      if (name === 'graph') return (graph ?? throwMissing('graph')) as never;
      return plugged.require(name as PluggedService) as never;
    },
    runner: (runnerOptions) => runners.runner(runnerOptions),
    release: (space, agentId) => runners.release(space, agentId),
    distillationStats: () => runners.distillationStats(),
    distill: (p, raw) => distillConversation(stack, p, raw),
    erasers: distinctErasers([
      knowledgeStore,
      options.transcripts,
      options.notebooks,
      given.structured,
      ...bundles.flatMap((b) => [b, b.structured]),
    ]),
    close: async () => {
      // Ports given on their own first (as before bundles existed), then each bundle closes what it serves.
      await given.transcripts?.close();
      await given.notebooks?.close();
      await given.structured?.close?.();
      await given.knowledge?.close();
      for (const bundle of bundles) await bundle.close();
    },
  };
  return stack;
}

function throwMissing(port: StackPort): never {
  throw missingPort(port);
}

/** The distinct erasers of some ports and bundles, one per target, in the order given (the first of a target wins). */
function distinctErasers(ports: readonly (Erasable | undefined)[]): readonly Eraser[] {
  const byTarget = new Map<string, Eraser>();
  for (const port of ports) {
    const eraser = port?.eraser;
    if (eraser && !byTarget.has(eraser.target)) byTarget.set(eraser.target, eraser);
  }
  return Object.freeze([...byTarget.values()]);
}

/**
 * The options with every port not given filled in from the first bundle that serves it. `structured` stays the object
 * given (with its own `close`) unless a bundle adds ports to it.
 */
function withBundlePorts(options: StackOptions, bundles: readonly StoreBundle[]): StackOptions {
  if (bundles.length === 0) return options;
  const first = <K extends 'knowledge' | 'transcripts' | 'notebooks'>(key: K) =>
    options[key] ?? bundles.find((b) => b[key] !== undefined)?.[key];
  const given = options.structured;
  const structured: Partial<StructuredStores> = {};
  for (const name of STRUCTURED_PORTS) {
    const port = given?.[name] ?? bundles.find((b) => b.structured?.[name] !== undefined)?.structured?.[name];
    if (port !== undefined) (structured as Record<string, unknown>)[name] = port;
  }
  const added = STRUCTURED_PORTS.some((name) => structured[name] !== undefined && given?.[name] === undefined);
  return {
    ...options,
    knowledge: first('knowledge'),
    transcripts: first('transcripts'),
    notebooks: first('notebooks'),
    structured: added ? structured : given,
  };
}
