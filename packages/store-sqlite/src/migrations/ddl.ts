/** Pieces of DDL that several SQLite schema steps write the same way. */

/**
 * The DDL of an external-content FTS5 index over `columns` of `table` (porter stemming over unicode61): the text is
 * stored once, in the table, and three triggers keep the index in step with it on insert, delete and an update of
 * those columns. Lines after the first start with `indent`, so that the text reads as it is written in a step.
 */
export function ftsIndexDdl(table: string, columns: readonly string[], indent: string): string {
  const fts = `${table}_fts`;
  const cols = columns.join(', ');
  const added = `INSERT INTO ${fts} (rowid, ${cols}) VALUES (${['new.rid', ...columns.map((c) => `new.${c}`)].join(', ')});`;
  const removed = `INSERT INTO ${fts} (${fts}, rowid, ${cols}) VALUES (${["'delete'", 'old.rid', ...columns.map((c) => `old.${c}`)].join(', ')});`;
  return [
    `CREATE VIRTUAL TABLE ${fts} USING fts5 (`,
    `  ${cols},`,
    `  content = '${table}', content_rowid = 'rid',`,
    `  tokenize = 'porter unicode61'`,
    ');',
    `CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${table} BEGIN`,
    `  ${added}`,
    'END;',
    `CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${table} BEGIN`,
    `  ${removed}`,
    'END;',
    `CREATE TRIGGER ${fts}_update AFTER UPDATE OF ${cols} ON ${table} BEGIN`,
    `  ${removed}`,
    `  ${added}`,
    'END;',
  ].join(`\n${indent}`);
}

/**
 * The DDL of the tag table of `table` (one row per tag of a row, `${owner}_rid` pointing at the row and removed with
 * it) and its index by tag. Lines after the first start with `indent`.
 */
export function tagTableDdl(owner: string, table: string, indent: string): string {
  const rid = `${owner}_rid`;
  const tags = `${owner}_tags`;
  return [
    `CREATE TABLE ${tags} (`,
    `  ${rid} INTEGER NOT NULL REFERENCES ${table} (rid) ON DELETE CASCADE,`,
    `  ${'tag'.padEnd(rid.length)} TEXT    NOT NULL,`,
    `  PRIMARY KEY (${rid}, tag)`,
    ') WITHOUT ROWID;',
    `CREATE INDEX ${tags}_tag ON ${tags} (tag, ${rid});`,
  ].join(`\n${indent}`);
}
