/**
 * `mem serve`, `mem mcp`, `mem keys create|list|revoke`: implemented by the server app (apps/server), merged into
 * the command table of main.ts. The stack and the principal come from the same global flags as every command.
 */
import { createServerCommands } from '@mem/server/cli';
import { UsageError } from './context.js';

export const serverCommands = createServerCommands({ usageError: (message) => new UsageError(message) });
