import type { HttpMethod, Operation } from '@mem/operations';

interface CompiledRoute {
  op: Operation;
  method: HttpMethod;
  segments: ({ literal: string } | { param: string })[];
  /** Literal segments first: `/v1/memories/search` beats `/v1/memories/{id}`. */
  specificity: number;
}

export type RouteMatch =
  | { kind: 'found'; op: Operation; params: Record<string, string> }
  | { kind: 'method'; allowed: HttpMethod[] }
  | { kind: 'none' };

/** Matches a method and a path against the HTTP bindings of the operations. */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  constructor(operations: readonly Operation[]) {
    const seen = new Set<string>();
    for (const op of operations) {
      if (!op.http) continue;
      const id = `${op.http.method} ${op.http.path}`;
      if (seen.has(id)) throw new Error(`two operations bind ${id}`);
      seen.add(id);
      const segments = op.http.path
        .split('/')
        .filter(Boolean)
        .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s }));
      this.routes.push({
        op,
        method: op.http.method,
        segments,
        specificity: segments.reduce((n, s, i) => n + ('literal' in s ? 2 ** (20 - i) : 0), 0),
      });
    }
    this.routes.sort((a, b) => b.specificity - a.specificity);
  }

  match(method: string, pathname: string): RouteMatch {
    const parts = pathname.split('/').filter(Boolean);
    const allowed = new Set<HttpMethod>();
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if ('literal' in seg) ok = seg.literal === part;
        else {
          try {
            params[seg.param] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        }
      }
      if (!ok) continue;
      if (route.method === method) return { kind: 'found', op: route.op, params };
      allowed.add(route.method);
    }
    if (allowed.size > 0) return { kind: 'method', allowed: [...allowed] };
    return { kind: 'none' };
  }
}
