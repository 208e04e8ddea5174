/**
 * `@mem/testkit/internal`: the repository's own entry (source only, not published). Everything of the public entry,
 * plus the helpers only mem's own tests and benches use: the crash and soak harness over child processes, the
 * OpenAI-compatible fake chat server, file-mode checks, the LoCoMo loader and the secret examples.
 */
export * from './crash/index.js';
export { type CrashCase, describeCrashCampaigns } from './crash-suite.js';
export { type ChatRequest, type Send, startFakeChatServer } from './fake-chat-server.js';
export { modeOf, notPrivate, withUmask } from './file-modes.js';
export * from './index.js';
export { locomoTurns } from './locomo.js';
export * from './processes.js';
export {
  DRESSED_EXAMPLES,
  HOSTILE_UNITS,
  renderSecretExamples,
  SECRET_EXAMPLES,
  type SecretExamples,
} from './secret-examples.js';
