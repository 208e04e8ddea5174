export { Conversation } from './conversation.js';
export {
  type AssembledContext,
  type CompressionOutcome,
  type ContextInput,
  type ContextMessage,
  type ContextSettings,
  type ConversationDeps,
  type ConversationOptions,
  DEFAULT_CONVERSATION_OPTIONS,
} from './options.js';
export { pruneArchives } from './retention.js';
export { ConversationService, type ConversationServiceDeps } from './service.js';
