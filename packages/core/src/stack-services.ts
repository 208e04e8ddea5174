/**
 * The services a stack builds on first use: the ones plug-ins provide (episodes, procedures, consolidation) and the
 * runners (one per set of runner settings). Each is built once per stack, so every door and every request shares it.
 */
import { MemError } from './errors.js';
import type { EpisodicMemory } from './ports/episodic-memory.js';
import type { ProceduralMemory } from './ports/procedural-memory.js';
import type { Consolidation, ServicePlugin, ServicePorts } from './ports/stack-services.js';
import type { Summarizer } from './ports/summarizer.js';
import { sumTotals } from './services/runner/distiller.js';
import { Runner } from './services/runner/runner.js';
import type { DistillationTotals, RunnerOptions } from './services/runner/types.js';
import type { Stack } from './stack.js';

/** The services plug-ins provide. */
export interface PluggedServices {
  episodes: EpisodicMemory;
  procedures: ProceduralMemory;
  consolidation: Consolidation;
}
export type PluggedService = keyof PluggedServices;

const PROVIDED_BY: Record<PluggedService, string> = {
  episodes: 'episodicServices() from @mem/episodic',
  procedures: 'proceduralServices() from @mem/procedural',
  consolidation: 'episodicServices() from @mem/episodic',
};

/** The plug-ins a stack was given, checked once when it is assembled. */
export function checkPlugins(given: ServicePlugin | readonly ServicePlugin[] | undefined): readonly ServicePlugin[] {
  const plugins = given === undefined ? [] : [given].flat();
  for (const [i, plugin] of plugins.entries()) {
    if (typeof plugin !== 'object' || plugin === null || typeof plugin.name !== 'string') {
      throw new MemError(
        'INVALID_INPUT',
        `createStack: services[${i}] is not a service plug-in (an object with a name and factories, e.g. episodicServices() from @mem/episodic).`,
      );
    }
    for (const name of Object.keys(PROVIDED_BY) as PluggedService[]) {
      const factory = plugin[name];
      if (factory !== undefined && typeof factory !== 'function') {
        throw new MemError(
          'INVALID_INPUT',
          `createStack: ${plugin.name}'s ${name} must be a function of the stack's ports.`,
        );
      }
    }
  }
  return plugins;
}

/** Lazily built plug-in services: `get` answers undefined when absent, `require` says what to add. */
export function pluggedServices(plugins: readonly ServicePlugin[], ports: ServicePorts) {
  const built = new Map<PluggedService, unknown>();
  const build = <K extends PluggedService>(name: K): PluggedServices[K] => {
    const held = built.get(name);
    if (held !== undefined) return held as PluggedServices[K];
    const plugin = plugins.find((p) => p[name] !== undefined);
    if (!plugin) {
      throw new MemError(
        'CAPABILITY_MISSING',
        `This stack has no ${name} service: give createStack \`services: [${PROVIDED_BY[name]}]\`.`,
        { details: { service: name } },
      );
    }
    const service = (plugin[name] as (ports: ServicePorts) => PluggedServices[K])(ports);
    built.set(name, service);
    return service;
  };
  return {
    require: build,
    get<K extends PluggedService>(name: K): PluggedServices[K] | undefined {
      try {
        return build(name);
      } catch (error) {
        if (MemError.is(error) && error.code === 'CAPABILITY_MISSING') return undefined;
        throw error;
      }
    },
  };
}

/** At most this many runner settings are kept per stack; the oldest is dropped. */
const MAX_RUNNERS = 64;

/**
 * The runners of a stack, one per set of settings (a runner keeps each agent's conversation and the text of its open
 * tasks, so two callers with the same settings share them). A summariser given as an option is part of the settings.
 */
export function runnerPool(stack: () => Stack) {
  const runners = new Map<string, Runner>();
  const summarizerIds = new WeakMap<Summarizer, number>();
  let nextId = 0;
  const keyOf = (o: RunnerOptions): string => {
    let summarizer: number | null = null;
    if (o.summarizer) {
      summarizer = summarizerIds.get(o.summarizer) ?? nextId++;
      summarizerIds.set(o.summarizer, summarizer);
    }
    return JSON.stringify([
      o.model ?? null,
      o.contextWindow ?? null,
      o.threshold ?? null,
      o.strategy ?? null,
      o.reserveTokens ?? null,
      o.recallLimit ?? null,
      o.recallRole ?? null,
      o.distill ?? null,
      o.distillTokens ?? null,
      summarizer,
    ]);
  };
  return {
    runner(options: RunnerOptions = {}): Runner {
      const key = keyOf(options);
      const held = runners.get(key);
      if (held) return held;
      const runner = new Runner(stack(), options);
      runners.set(key, runner);
      if (runners.size > MAX_RUNNERS) runners.delete(runners.keys().next().value as string);
      return runner;
    },
    distillationStats(): DistillationTotals {
      const all = [...runners.values()].map((r) => r.distillationStats()).filter((t) => t !== null);
      return sumTotals(all);
    },
    release(space: string, agentId: string): number {
      let n = 0;
      for (const runner of runners.values()) n += runner.release(space, agentId);
      return n;
    },
  };
}
