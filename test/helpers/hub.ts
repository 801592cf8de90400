import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** A local stand-in for a model hub: serves files by path on 127.0.0.1, port 0. */
export interface Hub {
  base: string;
  /** Paths requested, in order. */
  requests: string[];
  /** Holds every response until release() (to observe a download in progress). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function startHub(content: Map<string, Buffer>): Promise<Hub> {
  const requests: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => undefined;
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(req.url ?? '').replace(/^\/+/, '');
    requests.push(name);
    void gate.then(() => {
      const body = content.get(name);
      if (body === undefined) res.writeHead(404).end('not found');
      else res.writeHead(200, { 'content-length': body.length }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      open();
      gate = Promise.resolve();
    },
    close: () =>
      new Promise<void>((resolve) => {
        open();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The files of a model folder as a hub serves them, and a pull manifest (written to `manifestFile`) listing
 * them with their real hashes: what `--manifest` / FILESIFT_MODEL_MANIFEST take.
 */
export function hubForModelDir(modelDir: string, manifestFile: string, corrupt: string[] = []): Map<string, Buffer> {
  const names = ['vocab.txt', 'config.json', 'model.onnx'];
  const content = new Map<string, Buffer>();
  const files = names.map((name) => {
    const bytes = readFileSync(path.join(modelDir, name));
    const served = corrupt.includes(name) ? Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from([bytes[bytes.length - 1]! ^ 1])]) : bytes;
    content.set(`repo/${name}`, served);
    return { name: `repo/${name}`, saveAs: name, sha256: sha256(bytes), bytes: bytes.length };
  });
  writeFileSync(manifestFile, JSON.stringify({ model: 'small-bert', files }));
  return content;
}
