import { MemError } from '../errors.js';
import type { Role, Scope, Source } from '../types.js';

/** Most characters a key may have. */
export const MAX_KEY_LENGTH = 200;

const FIRST_SEGMENT = /^[a-z0-9-]+$/;
const LATER_SEGMENT = /^[a-z0-9._-]+$/;

/** One entry of the closed list of `/longterm` roots. */
export interface LongtermRoot {
  /** The root path, e.g. `/longterm/facts`. */
  path: string;
  /** Path weight applied to every key at or under this root. */
  weight: number;
  /** Weight when the memory carries the `superseded` tag (decisions only). */
  supersededWeight?: number;
  leadOnly: boolean;
  /** Segments required after the root, named for messages, e.g. ['topic', 'slug']. */
  slots: string[];
  /** One valid example key. */
  example: string;
}

export const LONGTERM_PREFIX = '/longterm';

/** The closed list (docs/keys-and-roots.md). Entity roots are listed per allowed entity type. */
export const LONGTERM_ROOTS: readonly LongtermRoot[] = [
  { path: '/longterm/company-story', weight: 1.4, leadOnly: true, slots: [], example: '/longterm/company-story' },
  {
    path: '/longterm/entities/people',
    weight: 1.3,
    leadOnly: true,
    slots: ['slug'],
    example: '/longterm/entities/people/ada-lovelace',
  },
  {
    path: '/longterm/entities/customers',
    weight: 1.3,
    leadOnly: true,
    slots: ['slug'],
    example: '/longterm/entities/customers/acme-corp',
  },
  {
    path: '/longterm/facts',
    weight: 1.2,
    leadOnly: false,
    slots: ['topic', 'slug'],
    example: '/longterm/facts/billing/invoice-cycle',
  },
  {
    path: '/longterm/decisions',
    weight: 1.1,
    supersededWeight: 0.3,
    leadOnly: false,
    slots: ['slug'],
    example: '/longterm/decisions/use-postgres',
  },
  {
    path: '/longterm/workstreams',
    weight: 1.0,
    leadOnly: false,
    slots: ['slug'],
    example: '/longterm/workstreams/q3-migration',
  },
  {
    path: '/longterm/timeline',
    weight: 0.8,
    leadOnly: true,
    slots: ['period', 'slug'],
    example: '/longterm/timeline/2026-q3/launch',
  },
];

export const ENTITY_TYPES = ['people', 'customers'] as const;

const ROOT_LIST = LONGTERM_ROOTS.map(
  (r) => `${r.path}${r.slots.map((s) => `/<${s}>`).join('')}${r.leadOnly ? ' (lead only)' : ''}`,
).join(', ');
const WORKER_ROOTS = LONGTERM_ROOTS.filter((r) => !r.leadOnly)
  .map((r) => `${r.path}${r.slots.map((s) => `/<${s}>`).join('')}`)
  .join(', ');

export function isLongtermKey(key: string): boolean {
  return key === LONGTERM_PREFIX || key.startsWith(`${LONGTERM_PREFIX}/`);
}

function under(key: string, root: string): boolean {
  return key === root || key.startsWith(`${root}/`);
}

/** The `/longterm` root a key falls under (longest match), or undefined. */
export function longtermRootOf(key: string): LongtermRoot | undefined {
  let best: LongtermRoot | undefined;
  for (const root of LONGTERM_ROOTS) {
    if (under(key, root.path) && (!best || root.path.length > best.path.length)) best = root;
  }
  return best;
}

/** Path weight of a key: the weight of the longest matching root; any other key 1.0. */
export function pathWeight(
  key: string,
  tags: readonly string[] = [],
  roots: readonly LongtermRoot[] = LONGTERM_ROOTS,
): number {
  let best: LongtermRoot | undefined;
  for (const root of roots) {
    if (under(key, root.path) && (!best || root.path.length > best.path.length)) best = root;
  }
  if (!best) return 1.0;
  if (best.supersededWeight !== undefined && tags.includes('superseded')) return best.supersededWeight;
  return best.weight;
}

function invalid(key: string, rule: string, example = '/projects/alpha/notes'): MemError {
  return new MemError(
    'INVALID_KEY',
    `Invalid key "${truncate(key)}": ${rule}. Keys start with "/", the first segment uses [a-z0-9-], later segments [a-z0-9._-], segments are joined by "/", with no trailing "/" and at most ${MAX_KEY_LENGTH} characters. Example: ${example}`,
    { details: { key: truncate(key), rule } },
  );
}

function truncate(key: string): string {
  return key.length > 220 ? `${key.slice(0, 220)}…` : key;
}

/** Check the shape of a key (docs/keys-and-roots.md) without the `/longterm` rules. Throws `INVALID_KEY`. */
export function checkKeyShape(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw invalid(String(key), 'the key is empty');
  if (key.length > MAX_KEY_LENGTH)
    throw invalid(key, `it is ${key.length} characters long, over the limit of ${MAX_KEY_LENGTH}`);
  if (!key.startsWith('/')) throw invalid(key, 'it does not start with "/"');
  if (key.endsWith('/')) throw invalid(key, 'it ends with "/"');
  const segments = key.slice(1).split('/');
  segments.forEach((segment, i) => {
    if (segment.length === 0) throw invalid(key, `segment ${i + 1} is empty ("//")`);
    if (segment === '.' || segment === '..')
      throw invalid(key, `segment ${i + 1} is "${segment}", which is not allowed`);
    const re = i === 0 ? FIRST_SEGMENT : LATER_SEGMENT;
    if (!re.test(segment)) {
      const allowed = i === 0 ? '[a-z0-9-]' : '[a-z0-9._-]';
      throw invalid(key, `segment ${i + 1} "${segment}" has characters outside ${allowed} (lower case only)`);
    }
  });
}

/**
 * Check a key fully: shape, the closed list of `/longterm` roots and entity types, and who may write it.
 * Throws `INVALID_KEY` or `FORBIDDEN_KEY` with a message that says how to fix it.
 */
export function checkKey(key: string, role: Role, roots: readonly LongtermRoot[] = LONGTERM_ROOTS): void {
  checkKeyShape(key);
  if (!isLongtermKey(key)) return;
  if (key.startsWith('/longterm/entities')) {
    const type = key.split('/')[3];
    if (type === undefined || !ENTITY_TYPES.includes(type as (typeof ENTITY_TYPES)[number])) {
      throw new MemError(
        'INVALID_KEY',
        `Invalid key "${truncate(key)}": ${type === undefined ? 'no entity type given' : `unknown entity type "${type}"`}. The entity types are: ${ENTITY_TYPES.join(', ')}. Example: /longterm/entities/people/ada-lovelace`,
        { details: { key, rule: 'entity-type', allowed: [...ENTITY_TYPES] } },
      );
    }
  }
  const root = longtermRootOf(key);
  if (!root || !roots.includes(root)) {
    throw new MemError(
      'INVALID_KEY',
      `Invalid key "${truncate(key)}": "${key.split('/').slice(0, 3).join('/')}" is not a /longterm root. The allowed roots are: ${ROOT_LIST}. Example: /longterm/facts/billing/invoice-cycle`,
      { details: { key, rule: 'longterm-root', allowed: roots.map((r) => r.path) } },
    );
  }
  const rest = key === root.path ? [] : key.slice(root.path.length + 1).split('/');
  if (rest.length < root.slots.length) {
    const missing = root.slots
      .slice(rest.length)
      .map((s) => `<${s}>`)
      .join('/');
    throw new MemError(
      'INVALID_KEY',
      `Invalid key "${truncate(key)}": under ${root.path} a key needs ${root.slots.map((s) => `/<${s}>`).join('')} (missing ${missing}). Example: ${root.example}`,
      { details: { key, rule: 'longterm-slots', root: root.path } },
    );
  }
  if (root.leadOnly && role !== 'lead') {
    throw new MemError(
      'FORBIDDEN_KEY',
      `Key "${truncate(key)}" is under ${root.path}, which only a lead may write (lead-only roots: ${roots
        .filter((r) => r.leadOnly)
        .map((r) => r.path)
        .join(', ')}). A worker may write under ${WORKER_ROOTS}, or any key outside /longterm. Example: ${
        roots.find((r) => !r.leadOnly)?.example ?? '/projects/alpha/notes'
      }`,
      { details: { key, rule: 'lead-only', root: root.path } },
    );
  }
}

/** The key segment for a source in automatic keys (keys allow no underscore in that place). */
export function sourceSegment(source: Source): string {
  return source.replace(/_/g, '-');
}

/** Automatic key `/<scope>/<source>/<id>` for a memory stored without a key. */
export function autoKey(scope: Scope, source: Source, id: string): string {
  return `/${scope}/${sourceSegment(source)}/${id.toLowerCase()}`;
}

/**
 * Turn a document's source path (`docs/Runbook.md`, `./ops/deploy.md`) into a key: lower case, characters
 * outside the key alphabet become `-`. The result is then checked like any key (no side door into `/longterm`).
 */
export function keyFromSourcePath(sourcePath: string): string {
  const trimmed = sourcePath.trim().replace(/\\/g, '/');
  const raw = trimmed.split('/');
  if (raw.includes('..') || sourcePath.includes('\u0000')) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid source path "${sourcePath}": give a relative path such as docs/runbook.md, without "..".`,
    );
  }
  const segments = trimmed
    .split('/')
    .filter((s) => s.length > 0 && s !== '.')
    .map((s, i) => {
      const lower = s.toLowerCase();
      const cleaned = i === 0 ? lower.replace(/[^a-z0-9-]+/g, '-') : lower.replace(/[^a-z0-9._-]+/g, '-');
      return cleaned.replace(/-+/g, '-');
    });
  if (segments.length === 0 || segments.some((s) => s === '..')) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid source path "${sourcePath}": give a relative path such as docs/runbook.md, without "..".`,
    );
  }
  return `/${segments.join('/')}`;
}
