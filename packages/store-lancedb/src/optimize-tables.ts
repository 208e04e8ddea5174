import type { LanceOptimizeReport } from './options.js';
import { FTS_COLUMN } from './schema.js';
import type { ManagedTable } from './upkeep.js';

/**
 * Maintenance of a port's tables, under the lock: unused vector columns of the searchable table dropped, its
 * full-text index created if missing, every table compacted (indexes refreshed with the new rows, old versions
 * removed), then ANN indexes built where a vector column reached `minRows`.
 */
export async function optimizeTables(
  main: ManagedTable,
  others: readonly ManagedTable[],
  options: { cleanupOlderThan?: Date } = {},
): Promise<LanceOptimizeReport> {
  const report: LanceOptimizeReport = {
    compaction: {},
    prunedVersions: {},
    indexesCreated: [],
    droppedVectorColumns: [],
  };
  report.droppedVectorColumns.push(...(await main.dropUnusedVectorColumns()));
  if (await main.ensureFtsIndex()) report.indexesCreated.push(`${FTS_COLUMN}_idx`);
  for (const managed of [main, ...others])
    report.indexesCreated.push(...(await managed.ensureScalarIndexes()).map((c) => `${c}_idx`));
  for (const managed of [main, ...others]) {
    const s = await managed.optimize(options);
    report.compaction[managed.name] = {
      fragmentsRemoved: s.compaction.fragmentsRemoved,
      fragmentsAdded: s.compaction.fragmentsAdded,
    };
    report.prunedVersions[managed.name] = s.prune.oldVersionsRemoved;
  }
  // The compaction above folded new rows into the ANN index as one more delta and left apart the fragments that
  // different deltas cover: retrain a split index whole, then compact again, which can now merge every fragment.
  const retrained = await main.retrainSplitVectorIndexes(1);
  if (retrained.length > 0) {
    report.indexesCreated.push(...retrained.map((c) => `${c}_idx`));
    const again = await main.optimize(options);
    const c = report.compaction[main.name]!;
    c.fragmentsRemoved += again.compaction.fragmentsRemoved;
    c.fragmentsAdded += again.compaction.fragmentsAdded;
    report.prunedVersions[main.name]! += again.prune.oldVersionsRemoved;
  }
  report.indexesCreated.push(...(await main.buildVectorIndexes()).map((c) => `${c}_idx`));
  await main.refreshIndexInfo();
  return report;
}
