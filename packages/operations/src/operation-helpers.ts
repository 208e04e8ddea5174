/** Small helpers the operation files share: dropping undefined fields, query numbers, the HTTP id binding. */
import { z } from 'zod';
import type { HttpParts } from './operation.js';

/** The object without its undefined fields (so that port filters see only what was given). */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A query parameter that must be a whole number (query values are strings). */
export const wholeQuery = (what: string) => z.string().regex(/^\d+$/, `${what} must be a whole number`);

/** A checked whole-number query parameter as a number. */
export const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/** HTTP: the body plus the id from the path (`…/{id}`). */
export const withId = ({ params, body }: HttpParts) => ({ ...(body as object | undefined), id: params.id });

/** A whole number from 1 to `max` in an input schema. */
export const whole = (what: string, max: number) =>
  z
    .number()
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be at least 1`)
    .max(max, `${what} must be at most ${max}`);

/** The ranks a hybrid search result carries (OpenAPI and MCP output schemas). */
export const ranks = {
  keywordRank: z.number().nullable(),
  vectorRank: z.number().nullable(),
  similarity: z.number().nullable(),
};

/** HTTP status of a store: 201 for a new memory, 200 when the content was already remembered. */
export const createdUnlessDeduplicated = (r: unknown) => ((r as { deduplicated?: boolean }).deduplicated ? 200 : 201);
