import { expect } from 'chai';
import { formatSeconds, postJson, snippet } from '../../../../src/pipeline/analyze/llm/http.js';
import type { TestServer } from './servers.js';
import { closedPortUrl, startServer } from './servers.js';

describe('postJson', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('posts JSON with the given headers and returns the parsed reply', async () => {
    server = await startServer(() => ({ body: { answer: 42 } }));
    const outcome = await postJson(`${server.url}/x`, { question: 'why' }, { headers: { 'x-test': 'yes' }, timeoutMs: 2000 });
    expect(outcome).to.deep.equal({ ok: true, status: 200, body: { answer: 42 } });
    expect(server.requests[0]).to.deep.include({ method: 'POST', path: '/x', body: { question: 'why' } });
    expect(server.requests[0]?.headers['x-test']).to.equal('yes');
    expect(server.requests[0]?.headers['content-type']).to.equal('application/json');
  });

  it('reports HTTP errors with the status and the message inside the body', async () => {
    server = await startServer(() => ({ status: 503, body: 'overloaded, try later', contentType: 'text/plain' }));
    expect(await postJson(server.url, {}, { timeoutMs: 2000 })).to.deep.equal({
      ok: false,
      reason: 'HTTP 503 Service Unavailable: overloaded, try later',
    });
  });

  it('reports a reply that is not JSON', async () => {
    server = await startServer(() => ({ body: 'plain words', contentType: 'text/plain' }));
    expect(await postJson(server.url, {}, { timeoutMs: 2000 })).to.deep.equal({ ok: false, reason: 'reply was not JSON: plain words' });
  });

  it('gives up at the deadline', async () => {
    server = await startServer(() => ({ body: {}, delayMs: 2000 }));
    expect(await postJson(server.url, {}, { timeoutMs: 100 })).to.deep.equal({ ok: false, reason: 'timed out after 0.1 s' });
  });

  it('reports a refused connection with the address', async () => {
    const url = await closedPortUrl();
    expect(await postJson(`${url}/api/chat`, {}, { timeoutMs: 2000 })).to.deep.equal({
      ok: false,
      reason: `connection refused at ${url}`,
    });
  });

  it('reports cancellation from outside as such', async () => {
    server = await startServer(() => ({ body: {}, delayMs: 2000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    expect(await postJson(server.url, {}, { timeoutMs: 5000, signal: controller.signal })).to.deep.equal({ ok: false, reason: 'cancelled' });
  });
});

describe('formatSeconds', () => {
  it('prints milliseconds as seconds without trailing zeros', () => {
    expect([formatSeconds(30_000), formatSeconds(250), formatSeconds(1500)]).to.deep.equal(['30 s', '0.25 s', '1.5 s']);
  });
});

describe('snippet', () => {
  it('flattens whitespace and cuts long text', () => {
    expect(snippet('  a \n b ')).to.equal('a b');
    expect(snippet('')).to.equal('(empty)');
    expect(snippet('x'.repeat(300))).to.have.length(201);
  });
});
