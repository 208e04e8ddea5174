export {
  bool,
  type CliArgs,
  type CliBinding,
  commandFlags,
  type FlagSpec,
  flagsOfUsage,
  int,
  jsonArg,
  list,
  need,
  num,
  refFrom,
  required,
  show,
  str,
  tags,
  text,
  textArg,
  UsageError,
} from './cli-binding.js';
export { oneLine, renderResults } from './cli-print.js';
export { flattenUnionSchema, type JsonSchema, toJsonSchema } from './json-schema.js';
export {
  errorCodeOf,
  type OperationCall,
  type OperationEvent,
  type OperationObserver,
  observeOperations,
  usageOf,
} from './observe.js';
export {
  defineOperation,
  type HttpBinding,
  type HttpMethod,
  type HttpParts,
  type OpContext,
  type Operation,
  type ToolBinding,
} from './operation.js';
export { defined } from './operation-helpers.js';
export { defaultOperations } from './operations.js';
export { conversationOperations, conversationSettingsSet } from './operations-conversation.js';
export { factUser } from './operations-facts.js';
export { formationOperations } from './operations-formation.js';
export { graphOperations, memoryServerOperations } from './operations-graph.js';
export { knowledgeOperations, memoryStore } from './operations-knowledge.js';
export { notebookOperations } from './operations-notebook.js';
export { reviewOperations } from './operations-review.js';
export { runnerOperations } from './operations-runner.js';
export { stateOperations } from './operations-state.js';
export { structuredOperations } from './operations-structured.js';
export { importLine } from './schemas.js';
export {
  describeTools,
  MEMORY_TOOL_NAMES,
  type MemoryToolsOf,
  memoryToolNames,
  memoryToolsOf,
  type OperationTool,
  type ToolDescription,
  type ToolsOfOptions,
  toolsOf,
} from './tools.js';
