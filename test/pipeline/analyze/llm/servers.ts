/**
 * Small real HTTP servers on 127.0.0.1 (port 0) standing in for a remote model: they receive the real request
 * (recorded for inspection) and answer with a scripted reply, optionally after a delay. Only the model's words
 * are scripted; the protocol on the wire is the real one.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface ScriptedReply {
  status?: number;
  /** An object is sent as JSON; a string is sent as is. */
  body: unknown;
  contentType?: string;
  delayMs?: number;
}

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startServer(reply: (request: RecordedRequest) => ScriptedReply): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // keep the raw text
      }
      const request: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      const scripted = reply(request);
      const send = (): void => {
        const payload = typeof scripted.body === 'string' ? scripted.body : JSON.stringify(scripted.body);
        res.writeHead(scripted.status ?? 200, { 'content-type': scripted.contentType ?? 'application/json' });
        res.end(payload);
      };
      if (scripted.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) send();
        }, scripted.delayMs);
        timers.add(timer);
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 with nothing listening (a server was there a moment ago and is closed). */
export async function closedPortUrl(): Promise<string> {
  const server = await startServer(() => ({ body: {} }));
  await server.close();
  return server.url;
}

/** Ollama's /api/chat reply (stream: false) carrying `content` as the assistant message. */
export function ollamaReply(content: string, model = 'llama3.2'): Record<string, unknown> {
  return {
    model,
    created_at: '2026-11-22T12:00:00.000Z',
    message: { role: 'assistant', content },
    done_reason: 'stop',
    done: true,
    total_duration: 1_000_000,
    prompt_eval_count: 100,
    eval_count: 50,
  };
}

/** OpenAI's /chat/completions reply carrying `content` as the first choice's message. */
export function openaiReply(content: string | null, model = 'gpt-4o-mini'): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_790_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
  };
}
