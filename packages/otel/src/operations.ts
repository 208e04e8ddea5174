/**
 * A span and a latency measure for every mem operation, whichever door ran it (HTTP, MCP, the `mem` command, a
 * framework adapter's tool): `operationObserver()` is an observer for `observeOperations` of @mem/operations (the
 * table every door dispatches through). The shape is declared here, so this package needs no dependency on it.
 */
import { type Attributes, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { errorCodeOf, type TelemetryOptions, telemetry } from './telemetry.js';

/** One call of an operation, as `observeOperations` hands it over (never its input or result). */
export interface OperationCall {
  operation: string;
  space: string;
  transport: string;
  write: boolean;
}

/** What `observeOperations(table, observer)` of @mem/operations takes. */
export interface OperationObserverLike {
  around<T>(call: OperationCall, run: () => Promise<T>): Promise<T>;
}

export interface OperationObserverOptions extends TelemetryOptions {
  /** Put `mem.space` on spans and on the latency histogram (default true; false keeps space names out). */
  space?: boolean;
}

function usageOf(result: unknown): { inputTokens: number; outputTokens: number } | undefined {
  const u = (result as { usage?: { inputTokens?: unknown; outputTokens?: unknown } } | null)?.usage;
  if (typeof u !== 'object' || u === null) return undefined;
  if (typeof u.inputTokens !== 'number' || typeof u.outputTokens !== 'number') return undefined;
  return { inputTokens: u.inputTokens, outputTokens: u.outputTokens };
}

/**
 * An operation observer: each call is an INTERNAL span `mem {operation}`, current while the operation runs (so the
 * model calls it makes are its children when a context manager is registered), with `mem.operation.name`,
 * `mem.space`, `mem.transport`, `mem.operation.write`, the tokens the result reports (`mem.usage.*`), and on a
 * failure an error status whose message is the MemError code (never the message, which may quote input). Its
 * duration goes to `mem.operation.duration` (seconds) by operation and `mem.outcome` (`ok` / `error`).
 */
export function operationObserver(options: OperationObserverOptions = {}): OperationObserverLike {
  const t = telemetry(options);
  const withSpace = options.space !== false;
  return {
    async around<T>(call: OperationCall, run: () => Promise<T>): Promise<T> {
      const attributes: Attributes = {
        'mem.operation.name': call.operation,
        'mem.transport': call.transport,
        'mem.operation.write': call.write,
        ...(withSpace ? { 'mem.space': call.space } : {}),
      };
      const span = t.tracer().startSpan(`mem ${call.operation}`, { kind: SpanKind.INTERNAL, attributes });
      const started = performance.now();
      let errorType: string | undefined;
      try {
        const result = await context.with(trace.setSpan(context.active(), span), run);
        const usage = span.isRecording() ? usageOf(result) : undefined;
        if (usage)
          span.setAttributes({
            'mem.usage.input_tokens': usage.inputTokens,
            'mem.usage.output_tokens': usage.outputTokens,
          });
        return result;
      } catch (error) {
        errorType = errorCodeOf(error);
        span.setAttributes({ 'error.type': errorType, 'mem.outcome': 'error' });
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
        throw error;
      } finally {
        if (!errorType) span.setAttribute('mem.outcome', 'ok');
        span.end();
        t.instruments().operationDuration.record((performance.now() - started) / 1000, {
          'mem.operation.name': call.operation,
          'mem.outcome': errorType ? 'error' : 'ok',
          ...(errorType ? { 'error.type': errorType } : {}),
          ...(withSpace ? { 'mem.space': call.space } : {}),
        });
      }
    },
  };
}
