import { createServer, type Server, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';

export interface PgliteServer {
  url: string;
  stop(): Promise<void>;
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'

const ERROR_RESPONSE = 0x45; // 'E'
const READY_FOR_QUERY = 0x5a; // 'Z'

/**
 * PGlite answers an error inside an extended-protocol sequence (Parse/Bind/Execute) with ErrorResponse *and* an
 * immediate ReadyForQuery, then another ReadyForQuery for the Sync that ends the sequence. A real server sends only
 * the second; the first makes a client think the *next* query has finished (postgres.js then returns an empty
 * result for it and every later result one query late). Drop a ReadyForQuery that directly follows an error unless
 * the message was a Sync or a simple Query.
 */
function dropEarlyReadyForQuery(out: Uint8Array): Uint8Array {
  const buf = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  const keep: Buffer[] = [];
  let previous = -1;
  for (let i = 0; i + 5 <= buf.length; ) {
    const type = buf[i] as number;
    const end = i + 1 + buf.readInt32BE(i + 1);
    if (!(type === READY_FOR_QUERY && previous === ERROR_RESPONSE)) keep.push(buf.subarray(i, end));
    previous = type;
    i = end;
  }
  return keep.length === 1 && keep[0]?.length === buf.length ? out : new Uint8Array(Buffer.concat(keep));
}

/**
 * Who may talk to the one PGlite backend. pglite-socket's own queue hands the backend to the next *message*
 * of any connection, so two pools interleave extended-protocol messages (one connection's Bind lands on another's
 * unnamed statement) and their `BEGIN … COMMIT` blocks. This queue gives the backend to one connection from its
 * first message until it is back at a protocol boundary (Sync or a simple Query) *and* outside a transaction,
 * so every query and every transaction runs whole. Connections still run concurrently in the sense that matters
 * to the tests: two independent postgres.js pools, each with its own connections, racing for the same rows.
 */
class ConnectionQueue {
  private owner: number | null = null;
  private waiters: { id: number; wake: () => void; fail: (error: Error) => void }[] = [];

  constructor(private readonly db: PGlite) {}

  private async acquire(id: number): Promise<void> {
    if (this.owner === null || this.owner === id) {
      this.owner = id;
      return;
    }
    await new Promise<void>((wake, fail) => this.waiters.push({ id, wake, fail }));
    this.owner = id;
  }

  private release(): void {
    this.owner = null;
    const next = this.waiters.shift();
    if (next) {
      this.owner = next.id;
      next.wake();
    }
  }

  private tails = new Map<number, Promise<unknown>>();

  /** Messages of one connection run strictly one after another, in the order the handler read them. */
  enqueue(id: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const previous = this.tails.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.process(id, message, onData));
    this.tails.set(
      id,
      next.catch(() => undefined),
    );
    return next;
  }

  private async process(id: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const type = message[0];
    if (type === TERMINATE) {
      await this.clearTransactionIfNeeded(id);
      return 0;
    }
    await this.acquire(id);
    let out: Uint8Array;
    try {
      out = await this.db.runExclusive(() => this.db.execProtocolRaw(message));
    } catch (error) {
      this.release();
      throw error;
    }
    if (type !== SYNC && type !== QUERY) out = dropEarlyReadyForQuery(out);
    if (out.length > 0) onData(out);
    // The startup packet has no type byte (it starts with its length, whose first byte is 0).
    const boundary = type === SYNC || type === QUERY || type === 0;
    if (boundary && !this.db.isInTransaction()) this.release();
    return out.length;
  }

  getQueueLength(): number {
    return this.waiters.length;
  }

  clearQueueForHandler(id: number): void {
    this.tails.delete(id);
    const mine = this.waiters.filter((w) => w.id === id);
    this.waiters = this.waiters.filter((w) => w.id !== id);
    for (const w of mine) w.fail(new Error('Handler disconnected'));
  }

  async clearTransactionIfNeeded(id: number): Promise<void> {
    if (this.owner !== id) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.release();
  }
}

/**
 * An in-process PostgreSQL (PGlite, WebAssembly) served over the wire protocol on a loopback port through
 * pglite-socket's connection handler, so postgres.js connects to it like to any server. PGlite runs one
 * backend; `ConnectionQueue` shares it between any number of client connections safely.
 */
export async function startPgliteServer(options: { withVector?: boolean } = {}): Promise<PgliteServer> {
  const withVector = options.withVector ?? true;
  const db = await PGlite.create(withVector ? { extensions: { vector } } : {});
  if (withVector) await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const queue = new ConnectionQueue(db);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const handler = new PGLiteSocketHandler({
      queryQueue: queue as unknown as PGLiteSocketHandlerOptions['queryQueue'],
      closeOnDetach: true,
    });
    handler.attach(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('PGlite server: no address');
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
