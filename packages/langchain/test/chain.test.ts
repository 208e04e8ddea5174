import { HumanMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { MemChatMessageHistory } from '../src/index.js';
import { assistant } from './chain.js';
import { cleanup, inChild, world } from './world.js';

afterEach(cleanup);

const SPACE = 'travel';

interface Asked {
  pid: number;
  prompts: string[][];
  answer: string;
}

describe('end to end: RunnableWithMessageHistory + MemRetriever with a fake chat model, over two processes', () => {
  it("the prompt of a second process's call holds what the user said in turn 1: as history, and recalled", async () => {
    const w = world('lc-chain');
    const stack = w.boot();
    const first = assistant(stack, { space: SPACE, userId: 'ana', answers: ['Noted: aisle seats.'] });
    const answer = await first.ask('trip-1', 'I prefer aisle seats on long flights.');
    expect(answer.content).toBe('Noted: aisle seats.');
    // Turn 1's prompt: nothing remembered yet, no history.
    expect(first.prompts[0]).toEqual([
      'system: You are a travel assistant.\nWhat mem remembers:\n(nothing yet)',
      'human: I prefer aisle seats on long flights.',
    ]);
    await first.flush(); // a short-lived process distils what is left before it exits
    await stack.close();

    // Process 2, same conversation: the history comes from the transcript, the fact from recall.
    const same = await inChild<Asked>({
      task: 'ask',
      db: w.db,
      space: SPACE,
      sessionId: 'trip-1',
      userId: 'ana',
      text: 'Which seat should I book for Lisbon?',
      answers: ['An aisle seat.'],
    });
    expect(same.pid).not.toBe(process.pid);
    expect(same.answer).toBe('An aisle seat.');
    const prompt = same.prompts[0]!;
    expect(prompt[0]).toMatch(/^system: You are a travel assistant\./);
    expect(prompt[0]).toMatch(/aisle seats on long flights/i);
    expect(prompt.slice(1)).toEqual([
      'human: I prefer aisle seats on long flights.',
      'ai: Noted: aisle seats.',
      'human: Which seat should I book for Lisbon?',
    ]);

    // Process 3, a new conversation for the same user: no history, and the fact still reaches the prompt.
    const fresh = await inChild<Asked>({
      task: 'ask',
      db: w.db,
      space: SPACE,
      sessionId: 'trip-2',
      userId: 'ana',
      text: 'Book my seats for the flight to Tokyo.',
      answers: ['Booked two aisle seats.'],
    });
    expect(fresh.prompts[0]!).toHaveLength(2);
    expect(fresh.prompts[0]![0]).toMatch(/aisle seats on long flights/i);
    expect(fresh.prompts[0]![1]).toBe('human: Book my seats for the flight to Tokyo.');

    // Another user's conversation gets none of it.
    const other = await inChild<Asked>({
      task: 'ask',
      db: w.db,
      space: SPACE,
      sessionId: 'trip-3',
      userId: 'ben',
      text: 'Book my seats for the flight to Tokyo.',
      answers: ['Booked.'],
    });
    expect(other.prompts[0]!.join('\n')).not.toMatch(/aisle/i);

    // Back in this process: every turn was written through to mem.
    const history = new MemChatMessageHistory({ stack: w.boot(), space: SPACE, sessionId: 'trip-1' });
    const messages = await history.getMessages();
    expect(messages.map((m) => `${m.getType()}: ${m.content}`)).toEqual([
      'human: I prefer aisle seats on long flights.',
      'ai: Noted: aisle seats.',
      'human: Which seat should I book for Lisbon?',
      'ai: An aisle seat.',
    ]);
    expect(messages[0]).toBeInstanceOf(HumanMessage);
  });
});
