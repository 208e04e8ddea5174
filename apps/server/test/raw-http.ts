export { type RawAnswer, rawRequest } from '@mem/testkit/attack';

/** A JSON-RPC tools/call message for the stateless MCP endpoint. */
export function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
