/** Mastra's message listing (filters, order, pages, `include` with context) over a thread's messages. */
import type { MastraDBMessage } from '@mastra/core/agent/message-list';
import type { StorageListMessagesInput } from '@mastra/core/storage';
import { MemError } from '@mem/core';

/** A checked page and page size (`false`: everything). */
export function pageOf(page: unknown, perPage: unknown, where: string): { page: number; perPage: number | false } {
  const p = page ?? 0;
  if (!(typeof p === 'number' && Number.isInteger(p) && p >= 0))
    throw new MemError('INVALID_INPUT', `${where}: page must be a whole number ≥ 0 (got ${JSON.stringify(page)}).`);
  if (perPage !== false && !(typeof perPage === 'number' && Number.isInteger(perPage) && perPage >= 0))
    throw new MemError(
      'INVALID_INPUT',
      `${where}: perPage must be a whole number ≥ 0 or false for all (got ${JSON.stringify(perPage)}).`,
    );
  return { page: p, perPage: perPage as number | false };
}

export function listMessages(all: readonly MastraDBMessage[], args: StorageListMessagesInput) {
  const { page, perPage } = pageOf(args.page, args.perPage ?? 40, 'recall');
  const range = args.filter?.dateRange;
  const meta = args.filter?.metadata;
  const after = (d: Date) =>
    !range?.start || (range.startExclusive ? d.getTime() > range.start.getTime() : d >= range.start);
  const before = (d: Date) => !range?.end || (range.endExclusive ? d.getTime() < range.end.getTime() : d <= range.end);
  const matching = all.filter(
    (m) =>
      (args.resourceId === undefined || m.resourceId === undefined || m.resourceId === args.resourceId) &&
      after(m.createdAt) &&
      before(m.createdAt) &&
      (!meta ||
        Object.entries(meta).every(
          ([k, v]) => (m.content?.metadata as Record<string, unknown> | undefined)?.[k] === v,
        )),
  );
  const sign = args.orderBy?.direction === 'DESC' ? -1 : 1;
  // Stable: equal times keep the thread's order.
  const sorted = matching
    .map((m, i) => ({ m, i }))
    .sort((a, b) => sign * (a.m.createdAt.getTime() - b.m.createdAt.getTime() || a.i - b.i))
    .map((x) => x.m);
  const start = perPage === false ? 0 : page * perPage;
  const pageMessages = perPage === false ? sorted : sorted.slice(start, start + perPage);
  const out = [...pageMessages];
  const have = new Set(out.map((m) => m.id));
  for (const inc of args.include ?? []) {
    const at = all.findIndex((m) => m.id === inc.id);
    if (at < 0) continue;
    const from = Math.max(0, at - (inc.withPreviousMessages ?? 0));
    const to = Math.min(all.length - 1, at + (inc.withNextMessages ?? 0));
    for (let i = from; i <= to; i++) {
      const m = all[i]!;
      if (!have.has(m.id)) {
        have.add(m.id);
        out.push(m);
      }
    }
  }
  if (out.length > pageMessages.length) out.sort((a, b) => sign * (a.createdAt.getTime() - b.createdAt.getTime()));
  return {
    messages: out,
    total: sorted.length,
    page,
    perPage,
    hasMore: start + pageMessages.length < sorted.length,
  };
}
