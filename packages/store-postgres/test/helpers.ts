import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { MemError, type MemErrorCode } from '@mem/core';
import type { MemoryRecord } from '@mem/core/adapter';
import { memoryRecord } from '@mem/testkit';
import postgres from 'postgres';
import { inject } from 'vitest';

export const url = inject('postgresUrl');
export const backend = inject('postgresBackend');

/** A schema name no other test uses. */
export function freshSchema(prefix = 't'): string {
  return `mem_${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** A postgres.js client for test bookkeeping (dropping schemas, creating roles). */
export function adminClient(max = 2): postgres.Sql {
  return postgres(url, { max, onnotice: () => {} });
}

export async function dropSchema(sql: postgres.Sql, schema: string): Promise<void> {
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

let counter = 0;

/** A one-chunk memory for port-level tests (the testkit's `memoryRecord`, with ids unique across processes). */
export function record(overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  counter++;
  const id = overrides.id ?? `c${process.pid}x${counter}x${randomBytes(3).toString('hex')}`;
  return memoryRecord({
    id,
    docId: id,
    key: `/notes/n-${counter}`,
    name: `note ${counter}`,
    content: `note number ${counter}`,
    contentHash: `hash-${id}`,
    ...overrides,
  });
}

/** A deterministic pseudo-random unit vector (mulberry32). */
export function randomVector(dims: number, seed: number): Float32Array {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = next();
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

/** A loopback port where nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address !== 'object') throw new Error('no port');
  return address.port;
}

export async function expectCode(promise: Promise<unknown>, code: MemErrorCode): Promise<MemError> {
  try {
    await promise;
  } catch (error) {
    if (!MemError.is(error)) throw error;
    if (error.code !== code) throw new Error(`expected ${code}, got ${error.code}: ${error.message}`);
    return error;
  }
  throw new Error(`expected MemError ${code}, but the call succeeded`);
}

/** Tables of the port families other than knowledge, children first (for wiping between tests). */
export const PORT_TABLES = [
  'transcript_archive_messages',
  'transcript_archives',
  'transcript_messages',
  'transcripts',
  'notebook_files',
  'messages',
  'facts',
  'goals',
  'summaries',
  'users',
  'session_state',
  'phases',
  'tool_events',
  'episodes',
  'procedures',
  'graph_entities',
  'graph_keys',
  'graph_observations',
  'graph_relations',
  'graph_log',
];

/**
 * One migrated schema for a whole test file and a pool on it, for suites that need an empty store per test: `wipe()`
 * deletes every row of the port tables (much faster than a schema per test, above all on PGlite).
 */
export interface SharedSchema {
  schema: string;
  sql: postgres.Sql;
  wipe(): Promise<void>;
  drop(): Promise<void>;
}

export async function sharedSchema(prefix: string): Promise<SharedSchema> {
  const { runMigrations } = await import('../src/migrations.js');
  const schema = freshSchema(prefix);
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  await runMigrations(sql, { schema });
  const wipe = PORT_TABLES.map((t) => `DELETE FROM "${schema}".${t};`).join('\n');
  return {
    schema,
    sql,
    async wipe() {
      await sql.unsafe(wipe);
    },
    async drop() {
      await dropSchema(sql, schema);
      await sql.end({ timeout: 5 });
    },
  };
}
