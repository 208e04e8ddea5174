/** A Chat Completions answer of the fake model (one choice; `tool_calls` when the message calls tools). */
export const completion = (message: Record<string, unknown>, n: number) => ({
  id: `chatcmpl-${n}`,
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'fake-model',
  choices: [
    { index: 0, message: { role: 'assistant', ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

/** The fake model's answer that calls one tool with `args` (call id `call_<n>`). */
export const toolCall = (name: string, args: unknown, n: number) =>
  completion(
    {
      content: null,
      tool_calls: [{ id: `call_${n}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    },
    n,
  );
