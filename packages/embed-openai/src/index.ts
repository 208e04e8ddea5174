export { createOpenAIEmbedder, type OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai-embedder.js';
