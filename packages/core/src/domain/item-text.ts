/**
 * The words of a transcript message that a framework stored as its own JSON item (an OpenAI Agents SDK session item,
 * a chat-completions message): `{"role":"user","content":"…"}`, `{"type":"message","content":[{"type":"input_text",
 * "text":"…"}]}`. Readers of what was said (distillation) use it so that they read the words, not the JSON.
 */

/** Text part types of the item formats mem's adapters store. */
const TEXT_PARTS = new Set(['input_text', 'output_text', 'text']);

function partsText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (part && typeof part === 'object' && TEXT_PARTS.has((part as { type?: unknown }).type as string)) {
      const text = (part as { text?: unknown }).text;
      if (typeof text === 'string') texts.push(text);
    }
  }
  return texts.join('\n');
}

/**
 * The text of a message's content: the content itself, or, when it is a JSON message item, the text of its parts
 * (an item that holds no text — a tool call — gives ''). Linear in the content's length.
 */
export function itemText(content: string): string {
  const start = content.trimStart();
  if (!start.startsWith('{')) return content;
  let item: unknown;
  try {
    item = JSON.parse(start);
  } catch {
    return content;
  }
  if (!item || typeof item !== 'object' || Array.isArray(item)) return content;
  const o = item as { role?: unknown; type?: unknown; content?: unknown };
  const isMessage = o.type === 'message' || (o.type === undefined && typeof o.role === 'string');
  if (isMessage) return partsText(o.content) ?? '';
  // Another kind of item (a function call, a tool output, reasoning): nothing a person said.
  return typeof o.type === 'string' ? '' : content;
}

/** A value as one line of compact JSON (a JSON string is re-serialised compactly; what JSON cannot hold, as text). */
export function compactJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value));
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * How every adapter writes a framework's tool call into the transcript: `[tool call <name> #<id>] <input JSON>`,
 * so that the summariser and the distiller read one format whichever framework ran the tool.
 */
export function toolCallText(name: string, id: string, input: unknown): string {
  return `[tool call ${name} #${id}] ${compactJson(input)}`;
}

/** A tool's result (or error) as a transcript line: `[tool result <name> #<id>] <output>`. */
export function toolResultText(name: string, id: string, output: string, error = false): string {
  return `[tool ${error ? 'error' : 'result'} ${name} #${id}] ${output}`;
}
