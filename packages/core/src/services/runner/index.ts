export { runnerEndSessionInput, runnerEndTaskInput, runnerRecordInput, runnerTurnInput } from './inputs.js';
export { Runner } from './runner.js';
export {
  type AssembledTurn,
  type ContextReport,
  type EndSessionInput,
  type EndSessionResult,
  type EndTaskInput,
  type EndTaskResult,
  type ModelContextDefaults,
  modelContextDefaults,
  type RecordInput,
  type ResolvedRunnerOptions,
  type RunnerMessage,
  type RunnerOptions,
  type SpentTokens,
  type TurnInput,
} from './types.js';
