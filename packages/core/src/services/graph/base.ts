/** What the graph service's reads and writes share: its context, times, views, checks and new records. */
import { checkEntityName, checkedEntityKey } from '../../domain/graph.js';
import { newId } from '../../domain/ids.js';
import { guardFields, type PersonalDataSetting, personalDataPolicy } from '../../domain/secrets.js';
import type { Clock } from '../../ports/clock.js';
import type { Embedder } from '../../ports/embedder.js';
import type { EntityResolver } from '../../ports/entity-resolver.js';
import type { GraphStore, GraphView } from '../../ports/graph-store.js';
import type { Logger } from '../../ports/logger.js';
import type { SecretScanner } from '../../ports/secret-scanner.js';
import type { Principal, Scope } from '../../types.js';
import type { EntityRecord, GraphDecision, GraphLogEntry, ObservationRecord } from '../../types-graph.js';
import { scanFields } from '../secret-scan.js';
import type { ResolutionMode } from './resolve.js';
import { resolveNames } from './resolve.js';

export interface GraphContext {
  store: GraphStore;
  clock: Clock;
  secretScanner?: SecretScanner | undefined;
  personalData?: PersonalDataSetting | undefined;
  /** Confirms similar names in resolution (`findSimilar`); without it the spelling rule alone decides. */
  embedder?: Embedder | undefined;
  /** Resolution's last step (docs/graph.md): a model asked when the rules join a new name to nothing. */
  resolver?: EntityResolver | undefined;
  /** Where a failed resolver is logged. */
  logger?: Logger | undefined;
}

/** How a write is made: the scope of new records, the messages it rests on, who decided, how names resolve. */
export interface GraphWriteOptions {
  /** Scope of the records it creates (default `agent`: private to the principal's agent). */
  scope?: Scope | undefined;
  evidence?: readonly string[] | undefined;
  /** The operation or extractor that decided, for the log (default: the operation's name). */
  by?: string | undefined;
  /** `key` (default): exact name, normalised name, alias; `exact`: only the exact name. */
  resolution?: ResolutionMode | undefined;
  /** World time the relations it creates start to hold (default null: from when they are recorded). */
  validFrom?: string | null | undefined;
  /** World time the relations it closes stop holding (default: the write's time). */
  validTo?: string | null | undefined;
  /** With `key`: a new entity of a known type may resolve to a similar name of the same type (default true). */
  similar?: boolean | undefined;
}

/** A read's time: what is current (default), what held at `asOf`, or every record with `history`. */
export interface GraphReadOptions {
  asOf?: string | undefined;
  history?: boolean | undefined;
}

/** An entity relation endpoint that no entity had yet is created without a type: no MCP view shows it. */
export const IMPLICIT = '';
export const PAGE = 1000;

export class GraphBase {
  constructor(protected readonly ctx: GraphContext) {}

  protected now(): string {
    return this.ctx.clock.now().toISOString();
  }

  protected view(p: Principal, read: GraphReadOptions = {}): GraphView {
    return {
      viewerAgentId: p.agentId,
      ...(p.userId !== undefined ? { userId: p.userId } : {}),
      now: this.now(),
      ...(read.asOf !== undefined ? { asOf: new Date(read.asOf).toISOString() } : {}),
      ...(read.history ? { history: true } : {}),
    };
  }

  protected async guard(p: Principal, fields: Record<string, readonly string[]>): Promise<void> {
    guardFields(fields, personalDataPolicy(this.ctx.personalData, p.space) === 'allow' ? 'allow' : 'refuse');
    await scanFields(this.ctx.secretScanner, fields);
  }

  protected logLine(
    p: Principal,
    record: { id: string },
    kind: GraphLogEntry['kind'],
    decision: GraphDecision,
    o: GraphWriteOptions,
    by: string,
    detail: Record<string, unknown> = {},
  ): GraphLogEntry {
    const at = this.now();
    return {
      id: newId(),
      space: p.space,
      recordId: record.id,
      kind,
      decision,
      at,
      by: o.by ?? by,
      agentId: p.agentId,
      evidence: [...(o.evidence ?? [])],
      detail,
    };
  }

  protected newEntity(p: Principal, name: string, entityType: string, o: GraphWriteOptions): EntityRecord {
    const at = this.now();
    return {
      id: newId(),
      space: p.space,
      scope: o.scope ?? 'agent',
      agentId: p.agentId,
      userId: p.userId ?? null,
      name,
      entityType,
      aliases: [],
      keys: [checkedEntityKey(name)],
      searchText: '',
      mergedInto: null,
      validFrom: null,
      validTo: null,
      recordedAt: at,
      invalidatedAt: null,
      evidence: [...(o.evidence ?? [])],
      updatedAt: at,
    };
  }

  protected newObservation(p: Principal, entity: EntityRecord, text: string, o: GraphWriteOptions): ObservationRecord {
    return {
      id: newId(),
      space: p.space,
      entityId: entity.id,
      text,
      agentId: p.agentId,
      recordedAt: this.now(),
      invalidatedAt: null,
      evidence: [...(o.evidence ?? [])],
    };
  }

  /** The current observation texts of entities, by entity id. */
  protected async observationTexts(p: Principal, ids: readonly string[], read: GraphReadOptions = {}) {
    const out = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    for (const o of await this.ctx.store.observations(p.space, ids, this.view(p, read)))
      out.get(o.entityId)?.push(o.text);
    return out;
  }

  /** Typed (non-implicit) current entities by name, resolved by every step. */
  protected async named(p: Principal, names: readonly string[], read: GraphReadOptions = {}) {
    for (const n of names) checkEntityName(n);
    const hits = await resolveNames(this.ctx.store, p.space, names, this.view(p, read), 'key');
    const out = new Map<string, EntityRecord>();
    for (const [name, r] of hits) if (r.entity.entityType !== IMPLICIT) out.set(name, r.entity);
    return out;
  }
}
