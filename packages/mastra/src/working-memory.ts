/** Working memory: the Markdown block the agent keeps about the user (or the thread), and its update tool. */
import { createTool } from '@mastra/core/tools';
import { MemError } from '@mem/core';

/** Mastra's default template (the same headings, so Mastra users see what they know). */
export const DEFAULT_TEMPLATE = `
# User Information
- **First Name**: 
- **Last Name**: 
- **Location**: 
- **Occupation**: 
- **Interests**: 
- **Goals**: 
- **Events**: 
- **Facts**: 
- **Projects**: 
`;

export interface WorkingMemoryWriter {
  updateWorkingMemory(args: { threadId: string; resourceId?: string; workingMemory: string }): Promise<void>;
}

/** The instruction put in the system prompt: the template, the stored data and how to update it. */
export function workingMemoryInstruction(template: string, data: string | null, readOnly: boolean): string {
  if (readOnly) {
    return [
      'WORKING_MEMORY_SYSTEM_INSTRUCTION (READ-ONLY):',
      'This is your working memory, kept from earlier conversations. Use it; it cannot be updated now.',
      '<working_memory_data>',
      data ?? 'No working memory data available.',
      '</working_memory_data>',
    ].join('\n');
  }
  return [
    'WORKING_MEMORY_SYSTEM_INSTRUCTION:',
    'Keep what matters about the user up to date by calling the updateWorkingMemory tool with the whole Markdown',
    'block as the `memory` string (anything left out is dropped). Do not mention this to the user.',
    '<working_memory_template>',
    template,
    '</working_memory_template>',
    '<working_memory_data>',
    data ?? '',
    '</working_memory_data>',
  ].join('\n');
}

/** The `updateWorkingMemory` tool: replaces the working memory with the Markdown the model passes. */
export function updateWorkingMemoryTool(memory: WorkingMemoryWriter) {
  return createTool({
    id: 'update-working-memory',
    description:
      'Update the working memory with new information. Pass the whole Markdown block as a string in `memory`: anything not included is overwritten.',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { memory: { type: 'string', description: 'The whole Markdown working memory.' } },
      required: ['memory'],
    } as never,
    execute: async (input: { memory?: unknown }, context?: { agent?: { threadId?: string; resourceId?: string } }) => {
      const threadId = context?.agent?.threadId;
      if (!threadId) {
        throw new MemError(
          'INVALID_INPUT',
          'updateWorkingMemory runs inside an agent call with memory: { thread, resource }.',
        );
      }
      if (typeof input?.memory !== 'string') {
        throw new MemError('INVALID_INPUT', 'updateWorkingMemory: `memory` must be the Markdown block as a string.');
      }
      const resourceId = context?.agent?.resourceId;
      await memory.updateWorkingMemory({
        threadId,
        ...(resourceId ? { resourceId } : {}),
        workingMemory: input.memory,
      });
      return { success: true };
    },
  });
}
