/**
 * An observer of the operation table: every door (HTTP, MCP, the `mem` command, `toolsOf`) runs an operation through
 * its `run`, so a table wrapped by `observeOperations` reports every call, whichever door it came through. It adds
 * no dependency: a tracer (@mem/otel) or a metrics endpoint (`mem serve`'s `/metrics`) plugs in here. A table that
 * is not wrapped behaves exactly as before.
 */
import { MemError } from '@mem/core';
import type { TokenUsage } from '@mem/core/adapter';
import type { OpContext, Operation } from './operation.js';

/** One call of an operation, as an observer sees it: never its input or result (they may hold memory text). */
export interface OperationCall {
  /** The operation's name (`memory-store`, `memory-search`, …). */
  operation: string;
  /** The space of the principal that runs it. */
  space: string;
  /** The door it came through. */
  transport: OpContext['transport'];
  /** True for operations that change data. */
  write: boolean;
}

/** A call once it has ended. */
export interface OperationEvent extends OperationCall {
  /** Wall time of the call in milliseconds (for a streamed answer: until the stream was handed back). */
  durationMs: number;
  outcome: 'ok' | 'error';
  /** The `MemError` code of a failure (an error without a code of its own is `INTERNAL`). */
  errorCode?: string;
  /** The tokens the call spent, when its result reports them (`usage`). */
  usage?: TokenUsage;
}

export interface OperationObserver {
  /**
   * Runs each call: call `run` once and return (or throw) what it gives. Lets a tracer make its span the current
   * one while the operation runs, so that model calls made inside it become its children.
   */
  around?<T>(call: OperationCall, run: () => Promise<T>): Promise<T>;
  /** Told of each call once it ended. An observer that throws is ignored: it never changes the answer. */
  onOperation?(event: OperationEvent): void;
}

/** The `usage` a result reports (`{inputTokens, outputTokens, totalTokens}`), or undefined. */
export function usageOf(result: unknown): TokenUsage | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const u = (result as { usage?: unknown }).usage as Partial<TokenUsage> | undefined;
  if (typeof u !== 'object' || u === null) return undefined;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
  if (typeof u.inputTokens !== 'number' && typeof u.outputTokens !== 'number') return undefined;
  const input = n(u.inputTokens);
  const output = n(u.outputTokens);
  return { inputTokens: input, outputTokens: output, totalTokens: n(u.totalTokens) || input + output };
}

/** The stable code of a failure: a MemError's (or an HTTP error's) code, else `INTERNAL`. */
export function errorCodeOf(error: unknown): string {
  if (MemError.is(error)) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z_]*$/.test(code) ? code : 'INTERNAL';
}

/**
 * The same table with every operation's `run` reported to `observer` (the permission check and the input check
 * run inside, so a refused call is reported as an error with its code). Without an observer, the table itself.
 */
export function observeOperations(
  operations: readonly Operation[],
  observer: OperationObserver | undefined,
): Operation[] {
  if (!observer || (!observer.around && !observer.onOperation)) return [...operations];
  return operations.map((op) => ({ ...op, run: observed(op, observer) }));
}

function observed(op: Operation, observer: OperationObserver): Operation['run'] {
  const tell = (event: OperationEvent) => {
    try {
      observer.onOperation?.(event);
    } catch {
      // An observer's failure is its own: the caller still gets the operation's answer.
    }
  };
  return (ctx, input) => {
    const call: OperationCall = {
      operation: op.name,
      space: ctx.principal.space,
      transport: ctx.transport,
      write: op.write,
    };
    const exec = async () => {
      const started = performance.now();
      try {
        const result = await op.run(ctx, input);
        const usage = usageOf(result);
        tell({ ...call, durationMs: performance.now() - started, outcome: 'ok', ...(usage ? { usage } : {}) });
        return result;
      } catch (error) {
        tell({ ...call, durationMs: performance.now() - started, outcome: 'error', errorCode: errorCodeOf(error) });
        throw error;
      }
    };
    return observer.around ? observer.around(call, exec) : exec();
  };
}
