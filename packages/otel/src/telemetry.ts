/**
 * The tracer and the instruments, read from `@opentelemetry/api` at the moment they are used: nothing is recorded
 * until an application registers a tracer or meter provider (the API's no-op default costs next to nothing), and a
 * provider registered after the stack was built is picked up on the next call.
 */
import {
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

/** The instrumentation scope every span and instrument of mem is reported under. */
export const SCOPE = '@mem/otel';

/** Where spans and metrics go: the global providers by default. */
export interface TelemetryOptions {
  /** A tracer provider to use instead of the global one. */
  tracerProvider?: TracerProvider;
  /** A meter provider to use instead of the global one. */
  meterProvider?: MeterProvider;
}

export interface Instruments {
  /** `mem.operation.duration`: seconds per operation, by `mem.operation.name` and `mem.outcome`. */
  operationDuration: Histogram;
  /** `gen_ai.client.token.usage`: tokens per model call, by `gen_ai.token.type` (input / output). */
  tokenUsage: Histogram;
  /** `gen_ai.client.operation.duration`: seconds per model call. */
  modelDuration: Histogram;
}

const byMeter = new WeakMap<Meter, Instruments>();

function build(meter: Meter): Instruments {
  return {
    operationDuration: meter.createHistogram('mem.operation.duration', {
      description: 'Duration of mem operations.',
      unit: 's',
    }),
    tokenUsage: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Tokens used by the model and embedding calls mem makes.',
      unit: '{token}',
    }),
    modelDuration: meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'Duration of the model and embedding calls mem makes.',
      unit: 's',
    }),
  };
}

/** The telemetry handles of `options`, looked up again on every call (cheap: the meter's instruments are cached). */
export function telemetry(options: TelemetryOptions = {}): {
  tracer(): Tracer;
  instruments(): Instruments;
  meter(): Meter;
} {
  const meter = () => (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  return {
    tracer: () => (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE),
    meter,
    instruments: () => {
      const m = meter();
      let found = byMeter.get(m);
      if (!found) {
        found = build(m);
        byMeter.set(m, found);
      }
      return found;
    },
  };
}

/** The stable code of a failure: a MemError's code (or another error's upper-case code), else `INTERNAL`. */
export function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z_]*$/.test(code) ? code : 'INTERNAL';
}
