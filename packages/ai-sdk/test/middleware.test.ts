import { MemError } from '@mem/core';
import { generateText, isStepCount, streamText, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { memoryMiddleware, memoryTools } from '../src/index.js';
import { me, promptText, textAnswer, toolAnswer, world } from './helpers.js';

type Prompt = Parameters<typeof promptText>[0];

describe('memoryMiddleware with generateText', () => {
  it('remembers across a restart: the stored transcript, the notebook and the recall block reach the model', async () => {
    const w = world();
    const first = w.boot();
    await first.knowledge.store(me, {
      content: 'The staging database resets every Sunday at 02:00 UTC.',
      name: 'Staging reset schedule',
    });
    await first.notebook!.write(me, { content: 'The user prefers short answers.' });
    const model1 = new MockLanguageModelV4({ doGenerate: textAnswer('Nice to meet Miso!') });
    await generateText({
      model: wrapLanguageModel({ model: model1, middleware: memoryMiddleware({ stack: first, principal: me }) }),
      prompt: 'My cat is called Miso.',
    });

    const second = w.boot(); // a new process over the same stores
    const reports: unknown[] = [];
    const model2 = new MockLanguageModelV4({ doGenerate: textAnswer('Miso.') });
    const middleware = memoryMiddleware({
      stack: second,
      principal: me,
      systemPrompt: 'You are a helpful assistant.',
      onReport: (r) => reports.push(r),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: model2, middleware }),
      prompt: 'What is my cat called, and when does staging reset?',
      providerOptions: { mem: { task: 'when does the staging database reset', taskId: 'T-9' } },
    });
    expect(result.text).toBe('Miso.');
    const prompt = model2.doGenerateCalls[0]!.prompt;
    expect(prompt[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
    const systems = prompt.filter((m) => m.role === 'system').map((m) => m.content as string);
    expect(systems.some((s) => s.includes('The user prefers short answers.'))).toBe(true);
    expect(systems.some((s) => s.includes('My cat is called Miso.') && s.includes('Nice to meet Miso!'))).toBe(true);
    // The recall block: its own user message right before the turn, never a system message.
    const recall = prompt.at(-2)!;
    expect(recall.role).toBe('user');
    expect(promptText([recall])).toContain('Staging reset schedule');
    expect(systems.some((s) => s.includes('Staging reset schedule'))).toBe(false);
    expect(promptText([prompt.at(-1)!])).toBe('What is my cat called, and when does staging reset?');
    expect(middleware.lastReport).toMatchObject({ taskId: 'T-9', written: 1 });
    expect(middleware.lastReport!.recalled.map((r) => r.name)).toEqual(['Staging reset schedule']);
    expect(reports).toHaveLength(1);

    const transcript = await second.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect(transcript.map((m) => [m.role, m.content])).toEqual([
      ['user', 'My cat is called Miso.'],
      ['assistant', 'Nice to meet Miso!'],
      ['user', 'What is my cat called, and when does staging reset?'],
      ['assistant', 'Miso.'],
    ]);
  });

  it('in a multi-step tool loop writes every step (tool call and result) and never sends a message twice', async () => {
    const w = world();
    const stack = w.boot();
    const model = new MockLanguageModelV4({
      doGenerate: [
        toolAnswer('write_memory', { content: 'The user drinks green tea.' }),
        textAnswer('I noted that you drink green tea.'),
      ],
    });
    const middleware = memoryMiddleware({ stack, principal: me });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      tools: memoryTools(stack, me),
      stopWhen: isStepCount(3),
      prompt: 'Remember that I drink green tea.',
    });
    expect(result.steps).toHaveLength(2);
    expect((await stack.notebook!.read(me)).content).toContain('The user drinks green tea.');

    const transcript = await stack.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(transcript[1]!.content).toBe('[tool call write_memory #call-1] {"content":"The user drinks green tea."}');
    expect(transcript[2]!.content).toMatch(/^\[tool result write_memory #call-1\] \{"file":"MEMORY.md"/);
    // One append per step: the turn, step 1 (its tool call and result together), step 2's answer.
    expect(w.appends()).toBe(3);

    // Step 2 got the tool call and result natively, once, and the notebook block already holds the new line.
    const step2 = model.doGenerateCalls[1]!.prompt as Prompt;
    const text = promptText(step2);
    expect(text.split('green tea').length - 1).toBe(3); // user turn, tool input, notebook line — no copies
    expect(step2.map((m) => m.role).slice(-3)).toEqual(['user', 'assistant', 'tool']);
    expect(
      step2.some(
        (m) =>
          m.role === 'system' &&
          String(m.content).includes('<memory>') &&
          String(m.content).includes('The user drinks green tea.'),
      ),
    ).toBe(true);
  });

  it('with onStepEnd, a loop that stops right after a tool call keeps the call and its result, in one append', async () => {
    const w = world();
    const stack = w.boot();
    const model = new MockLanguageModelV4({
      doGenerate: [
        toolAnswer('write_memory', { content: 'Deploys happen on Tuesdays.' }),
        toolAnswer('read_memory', {}, 'call-2'),
        textAnswer('Done.'),
      ],
    });
    const middleware = memoryMiddleware({ stack, principal: me });
    const wrapped = wrapLanguageModel({ model, middleware });
    const tools = memoryTools(stack, me);
    const first = await generateText({
      model: wrapped,
      tools,
      stopWhen: isStepCount(1),
      onStepEnd: middleware.onStepEnd,
      prompt: 'Note that deploys happen on Tuesdays.',
    });
    expect(first.steps).toHaveLength(1);
    const open = () => stack.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect((await open()).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect((await open())[2]!.content).toMatch(/^\[tool result write_memory #call-1\] \{"file":"MEMORY.md"/);
    expect(w.appends()).toBe(2); // the turn; the step with its result

    // The next loop, with a tool step and a final answer: each step once, nothing written twice.
    await generateText({
      model: wrapped,
      tools,
      stopWhen: isStepCount(3),
      onStepEnd: middleware.onStepEnd,
      prompt: 'What is in my notes?',
    });
    const transcript = await open();
    expect(transcript.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(transcript[5]!.content).toContain('Deploys happen on Tuesdays.');
    expect(w.appends()).toBe(5);
  });

  it('without onStepEnd, an answer whose tool results never come back is written by flush() or the next turn', async () => {
    const w = world();
    const stack = w.boot();
    const model = new MockLanguageModelV4({
      doGenerate: [toolAnswer('read_memory', {}), textAnswer('Hi again.')],
    });
    const middleware = memoryMiddleware({ stack, principal: me });
    const wrapped = wrapLanguageModel({ model, middleware });
    await generateText({ model: wrapped, tools: memoryTools(stack, me), stopWhen: isStepCount(1), prompt: 'Hi.' });
    const open = () => stack.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect((await open()).map((m) => m.role)).toEqual(['user']); // held: its results may still come
    await generateText({ model: wrapped, prompt: 'Hello?' });
    expect((await open()).map((m) => m.content)).toEqual([
      'Hi.',
      '[tool call read_memory #call-1] {}',
      'Hello?',
      'Hi again.',
    ]);
    // The held answer went out with the next turn's input, in one append.
    expect(w.appends()).toBe(3);

    const again = new MockLanguageModelV4({ doGenerate: [toolAnswer('read_memory', {}, 'call-9')] });
    const other = memoryMiddleware({ stack, principal: { ...me, agentId: 'second' } });
    await generateText({
      model: wrapLanguageModel({ model: again, middleware: other }),
      tools: memoryTools(stack, me),
      stopWhen: isStepCount(1),
      prompt: 'Check.',
    });
    await other.flush();
    const second = await stack.conversations!.open({ space: 'acme', agentId: 'second' }).messages();
    expect(second.map((m) => m.content)).toEqual(['Check.', '[tool call read_memory #call-9] {}']);
  });

  it('a host that resends its whole history writes only the new messages', async () => {
    const w = world();
    const stack = w.boot();
    const model = new MockLanguageModelV4({ doGenerate: [textAnswer('Hello Ada.'), textAnswer('You are Ada.')] });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ stack, principal: me }) });
    const first = await generateText({ model: wrapped, prompt: 'I am Ada.' });
    await generateText({
      model: wrapped,
      messages: [
        { role: 'user', content: 'I am Ada.' },
        ...first.response.messages,
        { role: 'user', content: 'Who am I?' },
      ],
    });
    const transcript = await stack.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect(transcript.map((m) => m.content)).toEqual(['I am Ada.', 'Hello Ada.', 'Who am I?', 'You are Ada.']);
  });

  it('compacts when the window fills: archive written, the summary in the next prompt, usage reported', async () => {
    const w = world();
    const stack = w.boot();
    const summarizer = {
      id: 'fake-llm',
      summarize: async () => ({
        summary: 'Earlier: the user planned a trip to Lisbon in May.',
        usage: { inputTokens: 700, outputTokens: 20, totalTokens: 720 },
        summarizer: 'fake-llm',
      }),
    };
    const model = new MockLanguageModelV4({ doGenerate: async () => textAnswer('ok') });
    const middleware = memoryMiddleware({ stack, principal: me, contextWindow: 2_000, summarizer });
    const wrapped = wrapLanguageModel({ model, middleware });
    let compacted = null;
    for (let i = 0; i < 20 && !compacted; i++) {
      await generateText({ model: wrapped, prompt: `Note ${i}: ${'lorem ipsum dolor '.repeat(40)}` });
      if (middleware.lastReport?.compaction?.status === 'compacted') compacted = middleware.lastReport;
    }
    expect(compacted).not.toBeNull();
    expect(compacted!.usage.totalTokens).toBe(720);
    expect(await stack.conversations!.archives('acme', 'helper')).toHaveLength(1);
    const sent = promptText(model.doGenerateCalls.at(-1)!.prompt as Prompt);
    expect(sent).toContain('planned a trip to Lisbon');
  });

  it('refuses a bad per-call task with a MemError and writes nothing', async () => {
    const w = world();
    const stack = w.boot();
    const model = new MockLanguageModelV4({ doGenerate: textAnswer('never') });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ stack, principal: me }) });
    const error = await generateText({ model: wrapped, prompt: 'hi', providerOptions: { mem: { taskId: 7 } } }).catch(
      (e: unknown) => e,
    );
    expect(MemError.is(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toContain('providerOptions.mem.taskId must be a string');
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(w.appends()).toBe(0);
    expect(() => memoryMiddleware({ stack, principal: me, threshold: 2 })).toThrow(/threshold must be in/);
  });
});

describe('memoryMiddleware with streamText', () => {
  const parts = (texts: string[]) => [
    { type: 'stream-start' as const, warnings: [] },
    { type: 'text-start' as const, id: 't1' },
    ...texts.map((delta) => ({ type: 'text-delta' as const, id: 't1', delta })),
    { type: 'text-end' as const, id: 't1' },
    {
      type: 'finish' as const,
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 3, text: 3, reasoning: undefined },
      },
    },
  ];

  it('writes the streamed answer once it has been read', async () => {
    const w = world();
    const stack = w.boot();
    const model = new MockLanguageModelV4({
      doStream: { stream: convertArrayToReadableStream(parts(['Hel', 'lo ', 'there'])) },
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware({ stack, principal: me }) }),
      prompt: 'Greet me.',
    });
    expect(await result.text).toBe('Hello there');
    const transcript = await stack.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect(transcript.map((m) => m.content)).toEqual(['Greet me.', 'Hello there']);
  });

  it('a streamed tool loop with onStepEnd writes each step once, the tool result with its call', async () => {
    const w = world();
    const stack = w.boot();
    const toolStream = [
      { type: 'stream-start' as const, warnings: [] },
      {
        type: 'tool-call' as const,
        toolCallId: 'call-s',
        toolName: 'write_memory',
        input: '{"content":"Standup is at 09:30."}',
      },
      {
        type: 'finish' as const,
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage: (parts([]).at(-1) as { usage: unknown }).usage,
      },
    ];
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream((calls++ === 0 ? toolStream : parts(['Noted.'])) as never[]),
      }),
    });
    const middleware = memoryMiddleware({ stack, principal: me });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware }),
      tools: memoryTools(stack, me),
      stopWhen: isStepCount(3),
      onStepEnd: middleware.onStepEnd,
      prompt: 'Remember standup is at 09:30.',
    });
    expect(await result.text).toBe('Noted.');
    const transcript = await stack.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(transcript[2]!.content).toMatch(/^\[tool result write_memory #call-s\]/);
    expect(w.appends()).toBe(3);
  });

  it('an aborted stream keeps the turn and the part of the answer that was delivered', async () => {
    const w = world();
    const stack = w.boot();
    let pulls = 0;
    const endless = new ReadableStream({
      pull(controller) {
        const all = parts(['Once ', 'upon ', 'a time']).slice(0, 5);
        if (pulls < all.length) controller.enqueue(all[pulls++]!);
        // then nothing more arrives until the consumer gives up
      },
    });
    const model = new MockLanguageModelV4({ doStream: { stream: endless as never } });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ stack, principal: me }) });
    const { stream } = await wrapped.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Tell a story.' }] }],
    });
    const reader = stream.getReader();
    let seen = '';
    while (!seen.includes('upon')) {
      const { value } = await reader.read();
      if (value?.type === 'text-delta') seen += value.delta;
    }
    await reader.cancel('user pressed ctrl-c');
    const transcript = await stack.conversations!.open({ space: 'acme', agentId: 'helper' }).messages();
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(transcript[1]!.content).toMatch(/^Once upon\n\[interrupted: the answer was cut short here\]$/);
  });
});

describe('memoryMiddleware distils the conversation', () => {
  const ben = { ...me, userId: 'ben' };
  const recallOf = (prompt: Prompt) =>
    prompt
      .filter((m) => m.role === 'user')
      .map((m) => promptText([m]))
      .find((t) => t.includes('Relevant Past Knowledge')) ?? '';

  it('with no extra code: a change of mind is current in the next process, the old one is not', async () => {
    const w = world();
    const first = w.boot();
    const model1 = new MockLanguageModelV4({ doGenerate: textAnswer('Noted.') });
    const memory = memoryMiddleware({ stack: first, principal: ben });
    const agent = wrapLanguageModel({ model: model1, middleware: memory });
    await generateText({ model: agent, prompt: 'I prefer morning flights.' });
    await generateText({ model: agent, prompt: 'Actually, afternoon flights suit me better now.' });
    await memory.flush();

    const second = w.boot();
    const model2 = new MockLanguageModelV4({ doGenerate: textAnswer('Booked.') });
    const later = memoryMiddleware({ stack: second, principal: { ...ben, agentId: 'concierge' } });
    await generateText({
      model: wrapLanguageModel({ model: model2, middleware: later }),
      prompt: 'Book me flights to Lisbon.',
    });
    const recall = recallOf(model2.doGenerateCalls[0]!.prompt);
    expect(recall).toContain('afternoon flights');
    expect(recall).not.toContain('morning flights');
    const history = await second.knowledge.search(ben, { query: 'flights', history: true });
    expect(history.map((r) => r.content).sort()).toEqual([
      'User prefers afternoon flights.',
      'User prefers morning flights.',
    ]);
  });

  it('distill: false turns it off', async () => {
    const w = world();
    const stack = w.boot();
    const model = new MockLanguageModelV4({ doGenerate: textAnswer('Noted.') });
    const memory = memoryMiddleware({ stack, principal: ben, distill: false });
    await generateText({
      model: wrapLanguageModel({ model, middleware: memory }),
      prompt: 'I prefer morning flights.',
    });
    await memory.flush();
    expect(memory.lastReport!.distillation).toBeNull();
    const found = await stack.knowledge.search(ben, { query: 'flights' });
    expect(found.filter((r) => r.source === 'distilled')).toEqual([]);
  });
});
