/**
 * Who a request is: its bearer key's principal, or the default principal while the server runs open (`--open`, which
 * ends for good once a key exists), for the end user `X-Mem-User` names. Failed key checks are limited per client address and per key id, with a tarpit.
 */
import type { IncomingMessage } from 'node:http';
import { checkName, MemError, type Principal } from '@mem/core';
import { HttpError } from './errors.js';
import { KeyStore } from './keys.js';
import type { ServerLogger } from './log.js';
import { RateLimiter } from './rate-limit.js';
import type { RequestState } from './request.js';
import { DEFAULT_AUTH_FAILURES, type ServerOptions } from './server-options.js';

export interface Authenticator {
  /** The principal of a request (recorded in its state); 401 or 429 when it has none. */
  authenticate(req: IncomingMessage, state: RequestState): Promise<Principal>;
  /** Whether the server still runs open, as of the last check. */
  readonly open: boolean;
}

/**
 * The end user a request acts for: the `X-Mem-User` header (an agent serving many users names one per request), else
 * the one the principal came with. A malformed name is a 400 that says what a name may hold.
 */
function forUser(principal: Principal, req: IncomingMessage): Principal {
  const header = req.headers['x-mem-user'];
  const user = Array.isArray(header) ? header[0] : header;
  if (user === undefined || user === '') return principal;
  try {
    checkName(user, 'user');
  } catch (e) {
    throw new HttpError(400, 'INVALID_INPUT', `X-Mem-User: ${(e as Error).message}`);
  }
  return { ...principal, userId: user };
}

export function createAuthenticator(
  options: Pick<ServerOptions, 'open' | 'authFailures' | 'defaultPrincipal'>,
  keys: KeyStore | null,
  logger: ServerLogger,
): Authenticator {
  const failureLimit = options.authFailures === false ? null : (options.authFailures ?? DEFAULT_AUTH_FAILURES);
  const failureDelayMs = failureLimit ? (failureLimit.delayMs ?? DEFAULT_AUTH_FAILURES.delayMs) : 0;
  if (!(Number.isInteger(failureDelayMs) && failureDelayMs >= 0 && failureDelayMs <= 60_000)) {
    throw new MemError(
      'INVALID_INPUT',
      `authFailures.delayMs must be a whole number of ms from 0 to 60000 (got ${failureDelayMs}).`,
    );
  }
  const failures = new RateLimiter(
    failureLimit
      ? { ratePerSecond: failureLimit.perMinute / 60, burst: failureLimit.burst }
      : { ratePerSecond: 0, burst: 0 },
  );

  /** Open mode ends for good once a key exists: revoking it later does not re-open the server. */
  let openNow = options.open === true;
  const isOpen = async (): Promise<boolean> => {
    if (!openNow) return false;
    if (keys !== null && (await keys.activeCount()) > 0) {
      openNow = false;
      logger.log('warn', 'open mode ended: an API key exists, every request needs a key from now on', {});
    }
    return openNow;
  };

  /**
   * Verify a key, counting failures per client address and per key id. A check reserves one failure token from
   * both before scrypt runs (so a flood of wrong secrets runs out instead of holding the thread pool) and gives it
   * back when the key is good. A token already verified (cached, no scrypt) passes even while its id is limited.
   */
  async function checkKey(req: IncomingMessage, token: string) {
    if (!keys) return null;
    if (keys.isCached(token)) return keys.verify(token);
    const address = `addr:${req.socket.remoteAddress ?? 'unknown'}`;
    const id = KeyStore.idOf(token);
    // A tarpit: the refusal waits and then closes the connection, so that cheap refusals do not let a flood
    // send (and cost) more requests than the checks it replaced.
    const tooMany = async (retry: number, what: string) => {
      await new Promise((done) => setTimeout(done, failureDelayMs));
      return new HttpError(
        429,
        'RATE_LIMITED',
        `Too many failed key checks ${what}; retry in ${retry} s with a valid key.`,
        {
          'retry-after': String(retry),
          connection: 'close',
        },
      );
    };
    const a = failures.take(address);
    if (!a.ok) throw await tooMany(a.retryAfterSeconds, 'from this address');
    if (id !== null) {
      const b = failures.take(`id:${id}`);
      if (!b.ok) {
        failures.refund(address);
        throw await tooMany(b.retryAfterSeconds, 'for this key id');
      }
    }
    const verified = await keys.verify(token);
    if (verified) {
      failures.refund(address);
      if (id !== null) failures.refund(`id:${id}`);
    }
    return verified;
  }

  async function authenticate(req: IncomingMessage, state: RequestState): Promise<Principal> {
    const principal = forUser(await keyPrincipal(req, state), req);
    state.principal = principal;
    return principal;
  }

  async function keyPrincipal(req: IncomingMessage, state: RequestState): Promise<Principal> {
    const token = bearer(req);
    if (token === null) {
      if (await isOpen()) return options.defaultPrincipal;
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        'An API key is required: send "Authorization: Bearer <key>" (create one with mem keys create).',
        {
          'www-authenticate': 'Bearer realm="mem"',
        },
      );
    }
    const verified = await checkKey(req, token);
    if (!verified) {
      throw new HttpError(401, 'UNAUTHORIZED', 'The API key is unknown, malformed or revoked.', {
        'www-authenticate': 'Bearer realm="mem", error="invalid_token"',
      });
    }
    state.keyId = verified.keyId;
    return verified.principal;
  }

  return {
    authenticate,
    get open() {
      return openNow;
    },
  };
}

function bearer(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  if (h === undefined) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  if (!m)
    throw new HttpError(401, 'UNAUTHORIZED', 'The Authorization header must read "Bearer <key>".', {
      'www-authenticate': 'Bearer realm="mem"',
    });
  return m[1]!;
}
