import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { checkHealth } from '../../src/cli/health.js';

/** A stand-in for the service's GET /api/status/ on a loopback port, answering `body` (the status is always 200). */
async function statusServer(body: unknown): Promise<{ server: Server; port: number; auth: () => string | undefined }> {
  let auth: string | undefined;
  const server = createServer((req, res) => {
    auth = req.headers.authorization;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, auth: () => auth };
}

function capture(): { io: { stdout: Writable; stderr: Writable }; out: () => string } {
  let text = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((text += String(chunk)), done()) });
  return { io: { stdout: sink, stderr: sink }, out: () => text };
}

describe('filesift health', () => {
  it('is healthy only when the status says the database is reachable (a 200 alone is not enough)', async () => {
    const up = await statusServer({ status: 'ok', ready: true, database: { reachable: true } });
    const lost = await statusServer({ status: 'degraded', ready: true, database: { reachable: false, error: 'connection refused' } });
    try {
      const ok = capture();
      expect(await checkHealth({ HOST: '0.0.0.0', PORT: String(up.port), FILESIFT_API_TOKEN: 'a'.repeat(32) }, ok.io)).to.equal(0);
      expect(ok.out()).to.match(/^healthy/);
      expect(up.auth()).to.equal(`Bearer ${'a'.repeat(32)}`);
      const bad = capture();
      expect(await checkHealth({ HOST: '127.0.0.1', PORT: String(lost.port) }, bad.io)).to.equal(1);
      expect(bad.out()).to.match(/unhealthy: the database is unreachable \(connection refused\)/);
    } finally {
      up.server.close();
      lost.server.close();
    }
  });

  it('is unhealthy when nothing answers', async () => {
    const probe = await statusServer({});
    const port = probe.port;
    await new Promise((r) => probe.server.close(r));
    const c = capture();
    expect(await checkHealth({ HOST: '127.0.0.1', PORT: String(port) }, c.io)).to.equal(1);
    expect(c.out()).to.match(/did not answer/);
  });
});
