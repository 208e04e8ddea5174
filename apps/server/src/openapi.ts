/** The OpenAPI 3.1 document, derived from the operation table (JSON Schema from zod 4's `z.toJSONSchema`). */
import { jsonValueSchema } from '@mem/core';
import type { Operation } from '@mem/operations';
import { importLine, type JsonSchema, toJsonSchema } from '@mem/operations';
import { z } from 'zod';

const errorSchema = z
  .object({
    code: z
      .string()
      .describe('Stable error code, e.g. INVALID_KEY, FORBIDDEN_KEY, NOT_FOUND, KEY_TAKEN, UNAUTHORIZED.'),
    message: z.string().describe('What was wrong and how to fix it. Never a stack trace.'),
  })
  .describe('Every error of the API.');

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid input, invalid key, a secret in the content, or an embedding mismatch.',
  '401': 'No API key, or an unknown or revoked one.',
  '403': 'The key may not do this (e.g. a worker writing a lead-only /longterm root).',
  '404': 'Not found, or not visible to this key (another agent’s memory, another space).',
  '409': 'Conflict: key taken, already rated in this task, or a concurrent change.',
  '413': 'The request body or the content is too large.',
  '429': 'Too many requests for this key; retry after the Retry-After header.',
  '500': 'Internal error; the message names the request id to look up in the log.',
  '503': 'The store is unavailable or the server is shutting down.',
};

const componentName = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, '_');

function queryParameters(schema: z.ZodObject | undefined): JsonSchema[] {
  if (!schema) return [];
  const json = toJsonSchema(schema);
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = (json.required ?? []) as string[];
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: 'query',
      required: required.includes(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function pathParameters(path: string): JsonSchema[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
    name: m[1]!,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  }));
}

export interface OpenApiOptions {
  version: string;
  title?: string;
}

/** `$ref`s to `#/$defs/<key>` of a definition as `#`, to compare definitions whatever key zod gave them. */
const signature = (key: string, def: unknown) => JSON.stringify(def).replaceAll(`"#/$defs/${key}"`, '"#"');

/** zod's definition of core's JSON value (`z.json()`), as it appears in the `$defs` of a schema that uses it. */
const JSON_VALUE_SIGNATURE = (() => {
  const defs = toJsonSchema(z.object({ value: jsonValueSchema })).$defs as Record<string, JsonSchema>;
  const [key, def] = Object.entries(defs)[0]!;
  return signature(key, def);
})();

/**
 * The JSON value as one component. Its array branch says `items: {}` (any JSON value, which is the same set of
 * values) instead of referring to itself: code generators type `X = … | X[]` inside `components` as a circular
 * type (openapi-typescript: TS2502), while the object branch's self-reference types fine.
 */
const JSON_VALUE_COMPONENT: JsonSchema = {
  description: 'Any JSON value: a string, number, boolean, null, array or object of JSON values.',
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
    { type: 'array', items: {} },
    {
      type: 'object',
      propertyNames: { type: 'string' },
      additionalProperties: { $ref: '#/components/schemas/JsonValue' },
    },
  ],
};

/**
 * Move the `$defs` that zod 4 writes for reused or recursive parts (e.g. a JSON value, as `#/$defs/__schema0`)
 * into components of their own and point the references there: inside the OpenAPI document `#/$defs/…` would
 * resolve against the document root, where nothing is. The JSON value becomes `JsonValue`; other identical
 * `$defs` of several components become one component each (named after the first component that uses them);
 * `#` (a schema referring to itself) points at its component.
 */
export function hoistDefs(schemas: Record<string, JsonSchema>): void {
  const hoisted = new Map<string, Map<string, string>>();
  const unique = (wanted: string) => {
    let name = wanted;
    for (let i = 2; name in schemas; i++) name = `${wanted}${i}`;
    return name;
  };
  let jsonValue: string | undefined;
  for (const owner of Object.keys(schemas)) {
    const { $defs, ...schema } = schemas[owner]!;
    if (!$defs || typeof $defs !== 'object') continue;
    const defs = $defs as Record<string, JsonSchema>;
    const json = JSON.stringify(defs);
    // Definitions that refer to their root (`#`) belong to that root alone.
    const fingerprint = json.includes('"$ref":"#"') ? `${owner}\n${json}` : json;
    const known = hoisted.get(fingerprint);
    const names = known ?? new Map<string, string>();
    if (!known) {
      for (const [key, def] of Object.entries(defs)) {
        if (signature(key, def) === JSON_VALUE_SIGNATURE) {
          jsonValue ??= unique('JsonValue');
          schemas[jsonValue] = JSON_VALUE_COMPONENT;
          names.set(key, jsonValue);
        } else {
          const name = unique(`${owner}.${key.replace(/^_+/, '')}`);
          schemas[name] = {};
          names.set(key, name);
        }
      }
      hoisted.set(fingerprint, names);
    }
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      return Object.fromEntries(
        Object.entries(node).map(([k, v]) => {
          if (k !== '$ref' || typeof v !== 'string') return [k, rewrite(v)];
          if (v === '#') return [k, `#/components/schemas/${owner}`];
          const m = /^#\/\$defs\/([^/]+)(.*)$/.exec(v);
          const target = m && names.get(m[1]!.replace(/~1/g, '/').replace(/~0/g, '~'));
          return [k, target ? `#/components/schemas/${target}${m[2]}` : v];
        }),
      );
    };
    if (!known) {
      for (const [key, name] of names) if (name !== jsonValue) schemas[name] = rewrite(defs[key]) as JsonSchema;
    }
    schemas[owner] = rewrite(schema) as JsonSchema;
  }
}

/** Build the document. Every operation with an HTTP binding appears once, under its operationId. */
export function buildOpenApi(operations: readonly Operation[], options: OpenApiOptions): JsonSchema {
  const schemas: Record<string, JsonSchema> = {
    Error: toJsonSchema(errorSchema, 'output'),
    ImportLine: toJsonSchema(importLine),
  };
  const errorResponses = Object.fromEntries(
    Object.keys(ERROR_STATUSES).map((status) => [status, { $ref: `#/components/responses/Error${status}` }]),
  );
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const http = op.http;
    if (!http) continue;
    const method = http.method.toLowerCase();
    const parameters = [...pathParameters(http.path), ...queryParameters(http.query)];
    let requestBody: JsonSchema | undefined;
    const optionalBody = http.method === 'DELETE' && http.body !== undefined;
    if (http.method === 'POST' || http.method === 'PATCH' || http.method === 'PUT' || optionalBody) {
      if (http.bodyType === 'ndjson') {
        requestBody = {
          required: true,
          description: 'JSON Lines: one `ImportLine` object per line.',
          content: {
            'application/x-ndjson': { schema: { type: 'string' } },
            'text/plain': { schema: { type: 'string' } },
          },
        };
      } else {
        const name = `${componentName(op.name)}.body`;
        schemas[name] = toJsonSchema(http.body ?? op.input);
        const empty = Object.keys((schemas[name].properties ?? {}) as object).length === 0;
        requestBody = {
          required: !empty && !optionalBody,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        };
      }
    }
    let success: JsonSchema;
    if (http.responseType === 'ndjson') {
      success = {
        description: 'JSON Lines, streamed: one `ImportLine`-compatible object per line.',
        content: { 'application/x-ndjson': { schema: { type: 'string' } } },
      };
    } else {
      let schema: JsonSchema = { type: 'object' };
      if (op.output) {
        const name = `${componentName(op.name)}.result`;
        schemas[name] = toJsonSchema(op.output, 'output');
        schema = { $ref: `#/components/schemas/${name}` };
      }
      success = { description: 'Success.', content: { 'application/json': { schema } } };
    }
    const responses: Record<string, unknown> = {};
    const statuses = http.successStatus ?? [];
    if (statuses.length === 0 || http.status) responses['200'] = success;
    for (const s of statuses) responses[String(s)] = success;
    Object.assign(responses, errorResponses);
    paths[http.path] ??= {};
    paths[http.path]![method] = {
      operationId: op.name,
      summary: op.summary,
      description: op.description,
      tags: [op.group],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
      ...(op.tool ? { 'x-mcp-tool': op.tool.name } : {}),
    };
  }

  const publicGet = (summary: string, description: string, content: JsonSchema) => ({
    get: {
      operationId: summary,
      summary: description,
      tags: ['service'],
      security: [],
      responses: { '200': { description: 'OK', content } },
    },
  });
  hoistDefs(schemas);

  paths['/healthz'] = publicGet('healthz', 'Liveness: the process answers.', {
    'application/json': { schema: { type: 'object', properties: { status: { type: 'string' } } } },
  });
  paths['/readyz'] = {
    get: {
      ...publicGet('readyz', 'Readiness: the store answers and the server is not shutting down.', {
        'application/json': { schema: { type: 'object', properties: { status: { type: 'string' } } } },
      }).get,
      responses: {
        '200': { description: 'Ready.' },
        '503': { $ref: '#/components/responses/Error503' },
      },
    },
  };
  paths['/openapi.json'] = publicGet('openapi', 'This document.', {
    'application/json': { schema: { type: 'object' } },
  });
  paths['/'] = publicGet('inspector', 'The web inspector (a static page that uses this API).', {
    'text/html': { schema: { type: 'string' } },
  });
  /** An MCP endpoint: stateless JSON-RPC over POST. */
  const mcpPath = (operationId: string, summary: string, description: string) => ({
    post: {
      operationId,
      summary,
      description,
      tags: ['mcp'],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': {
          description: 'A JSON-RPC response (JSON or an event stream).',
          content: {
            'application/json': { schema: { type: 'object' } },
            'text/event-stream': { schema: { type: 'string' } },
          },
        },
        '401': { $ref: '#/components/responses/Error401' },
        '429': { $ref: '#/components/responses/Error429' },
      },
    },
  });
  paths['/mcp'] = mcpPath(
    'mcp',
    'MCP over streamable HTTP (stateless): JSON-RPC requests of the Model Context Protocol.',
    'The tools are the operations marked with x-mcp-tool. Authenticate with the same bearer key; the key decides space, agent and role.',
  );
  paths['/mcp/memory-server'] = mcpPath(
    'mcp-memory-server',
    'MCP over streamable HTTP with exactly the nine tools of the MCP memory server (create_entities … open_nodes).',
    'A drop-in for the MCP memory server: its nine tools with their argument and result shapes, on the memory graph. Authenticate with the same bearer key. 501 CAPABILITY_MISSING when the stores have no graph.',
  );

  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'mem — long-term memory for LLM agents',
      version: options.version,
      description:
        'HTTP API of mem. Every request (except the service routes) carries `Authorization: Bearer <key>`; the key is bound to a space, an agent and a role, which decide what the request may see and change. Errors are `{code, message}`.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    tags: [
      { name: 'knowledge', description: 'Knowledge memory (docs/ranking.md).' },
      { name: 'conversation', description: 'Conversation memory (docs/conversations.md).' },
      { name: 'notebook', description: 'Agent notebooks (docs/notebooks.md).' },
      { name: 'structured', description: 'Facts about users, episodes and procedures (docs/structured.md).' },
      { name: 'graph', description: 'The memory graph: entities, observations, relations (docs/graph.md).' },
      { name: 'admin', description: 'Stats, gc, export and import.' },
      { name: 'service', description: 'Health, readiness, this document, the inspector.' },
      { name: 'mcp', description: 'Model Context Protocol.' },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key `mem_<id>_<secret>` from `mem keys create --space S --agent A --role R`.',
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_STATUSES).map(([status, description]) => [
          `Error${status}`,
          {
            description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
      schemas,
    },
  };
}
