/**
 * The one composition root of mem's apps: the stack `Settings` ask for — its stores, embedder, summariser, reranker,
 * query rewriter, secret scanner and the episodic and procedural services. The `mem` command, `mem serve`, the
 * server's `pnpm start` and the terminal agent all build their stack here; apps/example-stack shows the same by hand.
 */
import { resolve } from 'node:path';
import {
  createExtractiveSummarizer,
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
  createTemplateSummarizer,
  MemError,
  type Stack,
  type StackOptions,
} from '@mem/core';
import { type Embedder, type StoreBundle, storeBundle } from '@mem/core/adapter';
import { episodicServices } from '@mem/episodic';
import { UsageError } from '@mem/operations';
import { proceduralServices } from '@mem/procedural';
import { isPostgresUrl, type Settings } from './settings.js';

/** Ports an app gives itself instead of the ones its settings name (a test's embedder, an agent's summariser). */
export type StackOverrides = Partial<
  Pick<StackOptions, 'embedder' | 'summarizer' | 'reranker' | 'queryRewriter' | 'logger' | 'clock'>
> & {
  /** `false`: no secret scanner after mem's own rules, whatever the settings say. */
  secretScanner?: StackOptions['secretScanner'] | false;
};

/**
 * Load a store package the published CLI lists as an optional peer (PostgreSQL and LanceDB are not installed with
 * it). When it is absent, say which package to install instead of a module-resolution stack trace.
 */
export async function optionalPackage<T>(name: string, load: () => Promise<T>, store: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((e as Error).message).includes(name))
      throw new MemError(
        'CAPABILITY_MISSING',
        `--store ${store} needs the ${name} package, which is not installed. Install it next to the mem CLI (npm install ${name}) and run the command again.`,
        { details: { package: name } },
      );
    throw e;
  }
}

/** The store bundle of `settings.store` (transcripts and notebooks in it only with `transcripts: 'store'`). */
async function openStores(s: Settings): Promise<StoreBundle> {
  switch (s.store) {
    case 'in-memory':
      return storeBundle({
        knowledge: createInMemoryKnowledgeStore(),
        structured: createInMemoryStructuredStores(),
        transcripts: createInMemoryTranscriptStore(),
        notebooks: createInMemoryNotebookStore(),
      });
    case 'sqlite': {
      const { createSqliteStores } = await import('@mem/store-sqlite');
      // The store creates the file's folder (0700) once its options are accepted.
      return createSqliteStores({ path: s.db, ...(s.sqliteIndex ? { index: s.sqliteIndex } : {}) });
    }
    case 'postgres': {
      const pg = await optionalPackage('@mem/store-postgres', () => import('@mem/store-postgres'), 'postgres');
      if (!isPostgresUrl(s.db)) {
        throw new UsageError('--store postgres needs --db postgres://user:pass@host:5432/db (or MEM_DB).');
      }
      return pg.createPostgresStores({ url: s.db });
    }
    case 'lancedb': {
      if (s.transcripts === 'store') {
        throw new MemError(
          'CAPABILITY_MISSING',
          'The lancedb store keeps no transcripts or notebooks. Use --transcripts markdown (the default).',
        );
      }
      const { createLanceStores } = await optionalPackage(
        '@mem/store-lancedb',
        () => import('@mem/store-lancedb'),
        'lancedb',
      );
      return createLanceStores({ uri: resolve(s.db) });
    }
  }
}

async function openEmbedder(s: Settings): Promise<Embedder | undefined> {
  switch (s.embedder) {
    case 'none':
      return undefined;
    case 'hashing':
      return createHashingEmbedder({ dimension: s.hashingDimension });
    case 'openai': {
      const { createOpenAIEmbedder } = await import('@mem/embed-openai');
      const embedder = createOpenAIEmbedder(s.embed!);
      await embedder.init();
      return embedder;
    }
    default: {
      const { createLocalEmbedder } = await import('@mem/embed-local');
      return createLocalEmbedder();
    }
  }
}

/** The parts of the stack the settings name beyond its stores (the summarisers read with `embedder`). */
async function openParts(s: Settings, embedder: Embedder | undefined): Promise<Partial<StackOptions>> {
  const parts: Partial<StackOptions> = {};
  // Without MEM_SUMMARIZER the stack's own default writes summaries: the extractive summariser over its embedder.
  if (s.summarizer) {
    parts.summarizer = (await import('@mem/summarizer-llm')).createLlmSummarizer({
      ...s.summarizer,
      fallback:
        s.offlineSummarizer === 'template' ? createTemplateSummarizer() : createExtractiveSummarizer({ embedder }),
    });
  } else if (s.offlineSummarizer === 'template') {
    parts.summarizer = createTemplateSummarizer();
  }
  if (s.queryRewriter)
    parts.queryRewriter = (await import('@mem/summarizer-llm')).createLlmQueryRewriter(s.queryRewriter);
  if (s.extractor) parts.extractor = (await import('@mem/summarizer-llm')).createLlmStatementExtractor(s.extractor);
  if (s.rerank) {
    const { depth, ...http } = s.rerank;
    parts.reranker = (await import('@mem/rerank-http')).createHttpReranker(http);
    if (depth !== undefined) parts.knowledgeOptions = { rerankDepth: depth };
  }
  if (s.distillReview) parts.knowledgeOptions = { ...parts.knowledgeOptions, distillReview: true };
  if (s.secretlint) parts.secretScanner = (await import('@mem/secrets-secretlint')).createSecretlintScanner();
  return parts;
}

/** Build the stack `settings` ask for; `overrides` replace the ports they name. `close()` closes every store. */
export async function openStack(settings: Settings, overrides: StackOverrides = {}): Promise<Stack> {
  const stores = await openStores(settings);
  try {
    const bundles: StoreBundle[] = [stores];
    const embedder = 'embedder' in overrides ? overrides.embedder : await openEmbedder(settings);
    const options: StackOptions = {
      stores: bundles,
      services: [episodicServices(), proceduralServices()],
      ...(await openParts(settings, embedder)),
    };
    if (settings.transcripts === 'markdown') {
      const { createMarkdownStores } = await import('@mem/store-markdown');
      // Markdown first: the store bundle's own transcript tables are used only with `transcripts: 'store'`.
      bundles.unshift(createMarkdownStores({ root: settings.workspace }));
    }
    if (embedder) options.embedder = embedder;
    for (const [name, port] of Object.entries(overrides)) {
      if (name === 'embedder') continue;
      if (name === 'secretScanner' && port === false) delete options.secretScanner;
      else if (port !== undefined) (options as Record<string, unknown>)[name] = port;
    }
    return createStack(options);
  } catch (error) {
    await stores.close();
    throw error;
  }
}
