import { expect } from 'chai';
import { askModel, DEFAULT_BASE_URLS } from '../../../../src/pipeline/analyze/llm/providers.js';
import { docFrom } from '../helpers.js';
import type { TestServer } from './servers.js';
import { ollamaReply, openaiReply, startServer } from './servers.js';

const ANSWER = { title: 'Tides', summary: 'About tides.', keywords: ['tides', 'moon'] };

describe('askModel', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const doc = docFrom('tides.txt', 'Tides follow the moon.');

  it('talks to Ollama at /api/chat, tolerating a trailing slash in the base URL', async () => {
    server = await startServer(() => ({ body: ollamaReply(JSON.stringify(ANSWER)) }));
    const outcome = await askModel('ollama', doc, { model: 'qwen2.5', baseUrl: `${server.url}/`, timeoutMs: 2000, excerptChars: 100 });
    expect(outcome).to.deep.equal({ ok: true, reply: ANSWER });
    expect(server.requests[0]?.path).to.equal('/api/chat');
    expect(server.requests[0]?.body).to.deep.include({ model: 'qwen2.5', format: 'json', stream: false });
  });

  it('talks to an OpenAI-compatible server at {base}/chat/completions', async () => {
    server = await startServer(() => ({ body: openaiReply(JSON.stringify(ANSWER)) }));
    const outcome = await askModel('openai', doc, { model: 'local-model', baseUrl: `${server.url}/v1`, apiKey: 'k', timeoutMs: 2000, excerptChars: 100 });
    expect(outcome).to.deep.equal({ ok: true, reply: ANSWER });
    expect(server.requests[0]?.path).to.equal('/v1/chat/completions');
    expect(server.requests[0]?.body).to.deep.include({ model: 'local-model', response_format: { type: 'json_object' } });
    expect(server.requests[0]?.headers.authorization).to.equal('Bearer k');
  });

  it('reports an OpenAI reply without content', async () => {
    server = await startServer(() => ({ body: openaiReply(null) }));
    const outcome = await askModel('openai', doc, { model: 'm', baseUrl: server.url, timeoutMs: 2000, excerptChars: 100 });
    expect(outcome).to.deep.equal({ ok: false, reason: 'model returned no content' });
  });

  it('does not call without a model name', async () => {
    server = await startServer(() => ({ body: ollamaReply(JSON.stringify(ANSWER)) }));
    const outcome = await askModel('ollama', doc, { model: ' ', baseUrl: server.url, timeoutMs: 2000, excerptChars: 100 });
    expect(outcome).to.deep.equal({ ok: false, reason: 'no model configured' });
    expect(server.requests).to.have.length(0);
  });

  it('defaults to the providers’ usual endpoints', () => {
    expect(DEFAULT_BASE_URLS).to.deep.equal({ ollama: 'http://127.0.0.1:11434', openai: 'https://api.openai.com/v1' });
  });
});
