/** JSON Schema from the operations' zod schemas (zod 4's own generator), for OpenAPI 3.1 and MCP. */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of a zod schema, without the `$schema` marker. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * A union of object schemas (e.g. `{id} | {key, scope}`) as one object schema with every property optional:
 * MCP requires a tool's input schema to be an object, and some clients refuse a top-level `anyOf`.
 * Derived from the union, never written by hand; the service still validates the exact union.
 */
export function flattenUnionSchema(schema: z.ZodType): JsonSchema {
  const json = toJsonSchema(schema);
  const options = (json.anyOf ?? json.oneOf) as JsonSchema[] | undefined;
  if (!options) return json;
  const properties: Record<string, unknown> = {};
  const alternatives: string[] = [];
  for (const option of options) {
    const props = (option.properties ?? {}) as Record<string, unknown>;
    Object.assign(properties, props);
    const required = (option.required ?? []) as string[];
    alternatives.push(
      `{${Object.keys(props)
        .map((k) => (required.includes(k) ? k : `${k}?`))
        .join(', ')}}`,
    );
  }
  return {
    type: 'object',
    properties,
    additionalProperties: false,
    description: `Give one of: ${alternatives.join(' or ')}.`,
  };
}
