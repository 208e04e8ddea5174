export { observeStoreSizes, type StoreGaugeOptions } from './gauges.js';
export {
  instrument,
  type ModelPorts,
  type ModelTelemetryOptions,
  tracedEmbedder,
  tracedEntityResolver,
  tracedFactExtractor,
  tracedQueryRewriter,
  tracedReranker,
  tracedStatementExtractor,
  tracedSummarizer,
} from './models.js';
export {
  type OperationCall,
  type OperationObserverLike,
  type OperationObserverOptions,
  operationObserver,
} from './operations.js';
export { type Instruments, SCOPE, type TelemetryOptions } from './telemetry.js';
