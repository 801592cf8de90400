/**
 * The first steps of a start, in a module light enough to load in a few ms: the data directory's lock, the port
 * (answering 503 until the routes are ready) and PGlite's thread. The CLI runs them before it loads the rest of
 * the service (src/cli.ts), so the store's open (~0.8 s on its own thread) overlaps the ~0.3 s this thread spends
 * loading modules instead of following it; startService (service.ts) takes over what they started.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import type { ServiceConfig } from './config.js';
import { startingListener } from './http/starting.js';
import { acquireInstanceLock, type InstanceLock } from './lib/instance-lock.js';
import { realPathOf } from './lib/paths.js';
import { openStoreThread, storeThreadData, type StoreThread } from './store/thread.js';

export interface Begun {
  lock: InstanceLock;
  server: Server;
  /** Replaces what the port answers (the routes, once they are ready). */
  serve(handler: RequestListener): void;
  /** PGlite's thread, opening; null with a PostgreSQL server (spawnStore connects to it). */
  storeThread: Promise<StoreThread> | null;
}

export async function beginService(config: ServiceConfig): Promise<Begun> {
  // Nothing is created or opened before we know we are the only service on this data directory and the port is
  // ours: a second start is refused in a line naming the first (InstanceLockedError), or EADDRINUSE.
  const lock = await acquireInstanceLock(await realPathOf(config.dataDir));
  let handler: RequestListener = startingListener();
  let server: Server | null = null;
  try {
    server = await listen((req, res) => handler(req, res), config.host, config.port);
    await mkdir(config.dataDir, { recursive: true });
  } catch (err) {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await lock.release();
    throw err;
  }
  const storeThread = config.databaseUrl ? null : openStoreThread(storeThreadData(config));
  storeThread?.catch(() => undefined); // thrown where it is awaited (spawnStore)
  return { lock, server, serve: (next) => (handler = next), storeThread };
}

function listen(handler: RequestListener, host: string, port: number): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
