/**
 * One service per data directory. The lock is a local socket only the holder listens on: the kernel gives it to
 * one process at a time and takes it back when that process ends, however it ends (kill -9 included), so there
 * is no stale lock file to clean up and no check-then-create race. Whoever connects to it is told who holds it,
 * so a second start is refused with a line naming the running one.
 *
 * - Linux: an abstract socket (no file), named after the data directory's real path.
 * - Windows: a named pipe, likewise.
 * - macOS and other Unixes: a socket file in the data directory. A file left by a crash refuses connections: it
 *   is removed and the bind tried once more.
 * Socket names are per network namespace on Linux: two containers sharing one data volume do not see each other.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export interface LockHolder {
  pid: number;
  /** The holder's URL when it already listens, else null. */
  url: string | null;
  started_at: string;
  data_dir: string;
}

export class InstanceLockedError extends Error {
  override name = 'InstanceLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    const who = holder
      ? `filesift process ${holder.pid}${holder.url ? ` (${holder.url})` : ''}, running since ${holder.started_at}`
      : 'another filesift process';
    super(`the data directory ${dataDir} is in use by ${who}; stop it first, or set FILESIFT_DATA_DIR to another folder`);
  }
}

export interface InstanceLock {
  /** Tells later comers the URL this service listens on. */
  setUrl(url: string): void;
  release(): Promise<void>;
}

/** The socket address of a data directory's lock (by its real path). */
export function lockAddress(realDataDir: string): string {
  const id = createHash('sha256').update(realDataDir).digest('hex').slice(0, 32);
  if (process.platform === 'linux') return `\0filesift-${id}`;
  if (process.platform === 'win32') return `\\\\.\\pipe\\filesift-${id}`;
  return path.join(realDataDir, 'filesift.lock.sock');
}

function listen(server: net.Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(address, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Asks the holder who it is; null when nobody answers (a socket file left by a crash). */
function askHolder(address: string): Promise<LockHolder | null | 'unknown'> {
  return new Promise((resolve) => {
    const socket = net.connect(address);
    let data = '';
    const done = (value: LockHolder | null | 'unknown') => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(2000, () => done('unknown'));
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
      if (data.includes('\n')) {
        try {
          done(JSON.parse(data.slice(0, data.indexOf('\n'))) as LockHolder);
        } catch {
          done('unknown');
        }
      }
    });
    socket.on('end', () => done('unknown'));
    socket.on('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? null : 'unknown'));
  });
}

/**
 * Takes the data directory's lock, or throws InstanceLockedError naming the process that holds it.
 * `realDataDir` must be the real path (links resolved), so two spellings of one folder share one lock.
 */
export async function acquireInstanceLock(realDataDir: string): Promise<InstanceLock> {
  const address = lockAddress(realDataDir);
  const isFile = !address.startsWith('\0') && !address.startsWith('\\\\');
  if (isFile) await mkdir(realDataDir, { recursive: true });
  const me: LockHolder = { pid: process.pid, url: null, started_at: new Date().toISOString(), data_dir: realDataDir };
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(`${JSON.stringify(me)}\n`);
  });
  for (let attempt = 0; ; attempt++) {
    try {
      await listen(server, address);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const holder = await askHolder(address);
      if (holder === null && isFile && attempt === 0) {
        await rm(address, { force: true }); // left behind by a process that ended without closing it
        continue;
      }
      throw new InstanceLockedError(realDataDir, holder === 'unknown' ? null : holder);
    }
  }
  server.unref(); // the lock never keeps the process alive by itself
  let released = false;
  return {
    setUrl(url) {
      me.url = url;
    },
    async release() {
      if (released) return;
      released = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
