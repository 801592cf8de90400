/** Loopback ports for tests that start a real service process. */
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now (the system's pick; another process may take it later, so start soon). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}
