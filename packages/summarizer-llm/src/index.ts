export {
  createLlmSummarizer,
  DEFAULT_SUMMARY_PROMPT,
  type LlmSummarizerOptions,
  renderForSummary,
} from './llm-summarizer.js';
