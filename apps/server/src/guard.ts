/**
 * What a request must look like before anything else happens, so that a web page in a browser cannot use the
 * server (CSRF, DNS rebinding): a `Host` the server answers to, no foreign `Origin`, and the content type the
 * route reads (a browser sends `text/plain` or a form without asking the server first; JSON it does not).
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.js';

export interface RequestGuardOptions {
  /** The address the server listens on (allowed as a Host when it is not a wildcard). */
  listenHost: string;
  /** Extra Host names (no port) the server answers to; `*` answers to any. */
  allowedHosts?: readonly string[];
  /** Extra Origins (`https://app.example.com`) allowed to call the server from a browser; `*` allows any. */
  allowedOrigins?: readonly string[];
}

const LOOPBACK_NAME = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/** The host name of a Host header value, lower case, without the port (`[::1]` keeps its brackets). */
export function hostName(value: string): string | null {
  const v = value.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.exec(v);
  return m ? m[1]! : null;
}

export function createRequestGuard(options: RequestGuardOptions) {
  const extra = new Set((options.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter(Boolean));
  const listen = options.listenHost.toLowerCase();
  if (listen !== '0.0.0.0' && listen !== '::' && listen !== '[::]')
    extra.add(listen.includes(':') && !listen.startsWith('[') ? `[${listen}]` : listen);
  const anyHost = extra.has('*');
  const origins = new Set((options.allowedOrigins ?? []).map((o) => o.trim().toLowerCase().replace(/\/+$/, '')));
  const anyOrigin = origins.has('*');

  function hostAllowed(name: string): boolean {
    return anyHost || LOOPBACK_NAME.test(name) || extra.has(name);
  }

  /** Refuse a request whose Host or Origin the server does not answer to (403). */
  function checkSource(req: IncomingMessage): void {
    const hostHeader = req.headers.host;
    const name = hostHeader === undefined ? null : hostName(hostHeader);
    if (name === null || !hostAllowed(name)) {
      throw new HttpError(
        403,
        'FORBIDDEN_HOST',
        `This server does not answer to the Host "${hostHeader ?? ''}": use 127.0.0.1 or localhost, or start it with --allowed-hosts ${name ?? 'NAME'} (a name that resolves to it only for you; a DNS-rebinding page also sends a foreign Host).`,
      );
    }
    const origin = req.headers.origin;
    if (origin === undefined) return;
    const normalised = origin.trim().toLowerCase();
    if (anyOrigin || origins.has(normalised)) return;
    let sameHost = false;
    try {
      const url = new URL(normalised);
      sameHost = (url.protocol === 'http:' || url.protocol === 'https:') && url.host === hostHeader!.toLowerCase();
    } catch {
      sameHost = false;
    }
    if (!sameHost) {
      throw new HttpError(
        403,
        'FORBIDDEN_ORIGIN',
        `Requests from the web page origin "${origin}" are refused: only the server's own pages (the inspector) may call it from a browser. To allow a web app, start the server with --allowed-origins ${origin}.`,
      );
    }
  }

  return { checkSource, hostAllowed };
}

/** True when the request announces a body (a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json$/;
const NDJSON_TYPES = new Set([
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
]);

/**
 * Refuse (415) a body of another type than the route reads. A request with neither a body nor a Content-Type
 * passes (e.g. `POST /v1/gc` with no options).
 */
export function requireContentType(req: IncomingMessage, kind: 'json' | 'ndjson'): void {
  const header = req.headers['content-type'];
  if (header === undefined && !hasBody(req)) return;
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  const ok = kind === 'json' ? JSON_TYPE.test(type) : NDJSON_TYPES.has(type);
  if (ok) return;
  throw new HttpError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    kind === 'json'
      ? `This route reads JSON: send the body with "Content-Type: application/json" (got "${header ?? 'none'}").`
      : `This route reads JSON Lines: send the body with "Content-Type: application/x-ndjson" (got "${header ?? 'none'}").`,
  );
}
