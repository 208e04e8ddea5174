export {
  type ChatAnswer,
  type ChatClient,
  type ChatEndpointOptions,
  type ChatFailure,
  type ChatMessage,
  checkChatOptions,
  createChatClient,
  type ResponseFormat,
} from './chat-client.js';
export {
  DEFAULT_FACT_KINDS,
  FACT_KEY_PATTERN,
  type FactKeyCheck,
  MAX_FACT_SEGMENT,
  normaliseFactKey,
} from './fact-keys.js';
export { type LenientParse, parseLenientJson } from './lenient-json.js';
export {
  createLlmEntityResolver,
  DEFAULT_ENTITY_PROMPT,
  type LlmEntityResolverOptions,
} from './llm-entity-resolver.js';
export {
  buildFactPrompt,
  createLlmFactExtractor,
  DEFAULT_FACT_PROMPT,
  type LlmFactExtraction,
  type LlmFactExtractor,
  type LlmFactExtractorOptions,
  MAX_EXTRACTION_EPISODES,
  type RenamedFactKey,
  renderExtractionInput,
  type SkippedFact,
} from './llm-fact-extractor.js';
export {
  createLlmQueryRewriter,
  DEFAULT_REWRITE_PROMPT,
  type LlmQueryRewriterOptions,
} from './llm-query-rewriter.js';
export {
  createLlmStatementExtractor,
  type LlmStatementExtraction,
  type LlmStatementExtractor,
  type LlmStatementExtractorOptions,
  STATEMENT_BATCH_DEFAULTS,
} from './llm-statement-extractor.js';
export {
  createLlmSummarizer,
  DEFAULT_SUMMARY_PROMPT,
  type LlmSummarizerOptions,
  renderForSummary,
} from './llm-summarizer.js';
export { STATEMENT_ANSWER_SCHEMA, STATEMENT_PROMPT, STATEMENT_PROMPT_VERSION } from './statement-prompt.js';
