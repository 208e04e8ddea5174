import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AssembledContext,
  createInMemoryKnowledgeStore,
  createInMemoryTranscriptStore,
  createStack,
  type TranscriptMessage,
  type TurnMessage,
} from '../src/index.js';
import type { AssembledTurn, RecordInput, TurnInput } from '../src/services/runner/types.js';

describe('one message shape for a turn', () => {
  it('the runner takes, the transcript keeps and the context gives back the same TurnMessage', () => {
    expectTypeOf<NonNullable<TurnInput['messages']>[number]>().toEqualTypeOf<TurnMessage>();
    expectTypeOf<RecordInput['messages'][number]>().toEqualTypeOf<TurnMessage>();
    expectTypeOf<AssembledTurn['messages'][number]>().toEqualTypeOf<TurnMessage>();
    expectTypeOf<AssembledContext['messages'][number]>().toEqualTypeOf<TurnMessage>();
    expectTypeOf<TranscriptMessage>().toExtend<TurnMessage>();
  });

  it('a message goes from the runner to the transcript and back into the context with its role and text', async () => {
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      transcripts: createInMemoryTranscriptStore(),
    });
    const principal = { space: 'acme', agentId: 'alice', role: 'worker' as const };
    const runner = stack.runner({});
    const said: TurnMessage[] = [
      { role: 'user', content: 'Which port do the staging hosts use?' },
      { role: 'assistant', content: 'Port 8443.' },
    ];
    await runner.recordTurn({ principal, messages: said });
    const stored = await stack.conversations!.open({ space: 'acme', agentId: 'alice' }).messages();
    expect(stored.map((m) => ({ role: m.role, content: m.content }))).toEqual(said);
    const turn = await runner.assembleTurn({ principal, messages: [] });
    const last = turn.messages.slice(-2);
    expect(last.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(last[0]?.content).toContain(said[0]!.content);
    expect(last[1]?.content).toContain(said[1]!.content);
  });
});
