import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import type { Analysis } from '../../../src/pipeline/types.js';
import type { AnalyzeOptions } from '../../../src/pipeline/stages/analyze.js';
import { analyze } from '../../../src/pipeline/stages/analyze.js';
import { SYSTEM_PROMPT } from '../../../src/pipeline/analyze/llm/prompt.js';
import { docFrom, flat, scifact } from '../analyze/helpers.js';
import type { TestServer } from '../analyze/llm/servers.js';
import { closedPortUrl, ollamaReply, openaiReply, startServer } from '../analyze/llm/servers.js';

/** Runs analyze() in a real worker thread, as the pipeline pool does. */
async function analyzeInWorker(doc: unknown, options: AnalyzeOptions): Promise<Analysis> {
  const worker = new Worker(new URL('./fixtures/analyze-worker.js', import.meta.url), { workerData: { doc, options } });
  try {
    return await new Promise<Analysis>((resolve, reject) => {
      worker.once('message', (message: Analysis) => resolve(message));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`worker exited with code ${code} before answering`)));
    });
  } finally {
    await worker.terminate();
  }
}

const LOCAL: AnalyzeOptions = { provider: 'local', model: 'extractive', timeoutMs: 2000, maxInputChars: 100_000 };
const GOOD_REPLY = {
  title: 'Dendritic arbor homeostasis',
  summary: 'Neurons adjust dendrite growth to their synaptic input.',
  keywords: ['dendrites', 'synaptic input', 'homeostasis', 'Drosophila', 'aCC motoneuron'],
};

describe('analyze', () => {
  context('local provider', () => {
    for (const id of ['10009203', '10015292', '1006165']) {
      it(`titles, summarises and keywords SciFact ${id} from its own text`, async () => {
        const { doc, titleLine, body } = scifact(id);
        const analysis = await analyze(doc, LOCAL);
        expect(analysis.provider).to.equal('local');
        expect(analysis.fallbackReason).to.equal(undefined);
        expect(analysis.title).to.equal(titleLine);
        expect(analysis.summary.length).to.be.within(1, 400);
        expect(flat(body)).to.include(analysis.summary.split(/(?<=[.!?]) /)[0]);
        expect(analysis.keywords.length).to.be.within(5, 10);
        const lowerBody = body.toLowerCase() + titleLine.toLowerCase();
        for (const keyword of analysis.keywords) expect(lowerBody).to.include(keyword.toLowerCase());
      });
    }

    it('gives the same analysis in a worker thread as in the main thread', async () => {
      const { doc } = scifact('10024681');
      expect(await analyzeInWorker(doc, LOCAL)).to.deep.equal(await analyze(doc, LOCAL));
    });

    it('never contacts anything, whatever baseUrl says', async () => {
      const server = await startServer(() => ({ body: ollamaReply(JSON.stringify(GOOD_REPLY)) }));
      try {
        await analyze(scifact('10009203').doc, { ...LOCAL, baseUrl: server.url });
        expect(server.requests).to.have.length(0);
      } finally {
        await server.close();
      }
    });
  });

  for (const provider of ['ollama', 'openai'] as const) {
    context(`${provider} provider`, () => {
      let server: TestServer | undefined;
      afterEach(async () => {
        await server?.close();
        server = undefined;
      });

      const reply = (content: string | null): Record<string, unknown> =>
        provider === 'ollama' ? ollamaReply(content ?? '') : openaiReply(content);
      const options = (url: string, extra: Partial<AnalyzeOptions> = {}): AnalyzeOptions => ({
        provider,
        model: provider === 'ollama' ? 'llama3.2' : 'gpt-4o-mini',
        baseUrl: provider === 'ollama' ? url : `${url}/v1`,
        apiKey: 'sk-test-123',
        timeoutMs: 2000,
        maxInputChars: 100_000,
        ...extra,
      });

      it('sends the real chat request and uses the validated JSON answer', async () => {
        server = await startServer(() => ({ body: reply(JSON.stringify(GOOD_REPLY)) }));
        const { doc } = scifact('10009203');
        const analysis = await analyze(doc, options(server.url, { excerptChars: 500 }));

        expect(analysis).to.deep.equal({ ...GOOD_REPLY, provider });
        expect(server.requests).to.have.length(1);
        const request = server.requests[0];
        expect(request?.method).to.equal('POST');
        expect(request?.path).to.equal(provider === 'ollama' ? '/api/chat' : '/v1/chat/completions');
        expect(request?.headers['content-type']).to.equal('application/json');
        expect(request?.headers.authorization).to.equal('Bearer sk-test-123');
        const body = request?.body as Record<string, unknown> & { messages: Array<{ role: string; content: string }> };
        expect(body.model).to.equal(provider === 'ollama' ? 'llama3.2' : 'gpt-4o-mini');
        if (provider === 'ollama') {
          expect(body.format).to.equal('json');
          expect(body.stream).to.equal(false);
        } else {
          expect(body.response_format).to.deep.equal({ type: 'json_object' });
        }
        expect(body.messages.map((message) => message.role)).to.deep.equal(['system', 'user']);
        expect(body.messages[0]?.content).to.equal(SYSTEM_PROMPT);
        const user = body.messages[1]?.content ?? '';
        expect(user).to.include('File name: 10009203.txt');
        expect(user).to.include('Structural Homeostasis');
        expect(user).to.include(`the first`); // the excerpt is bounded and says so
        expect(user.length).to.be.below(800);
      });

      it('works from a worker thread, falling back there too', async () => {
        server = await startServer(() => ({ body: reply(JSON.stringify(GOOD_REPLY)) }));
        const { doc } = scifact('10009203');
        expect(await analyzeInWorker(doc, options(server.url))).to.deep.equal({ ...GOOD_REPLY, provider });
        const url = await closedPortUrl();
        const fallback = await analyzeInWorker(doc, options(url));
        expect(fallback.fallbackReason).to.equal(`${provider}: connection refused at ${url}`);
        expect(fallback.provider).to.equal('local');
      });

      it('sends no Authorization header without a key', async () => {
        server = await startServer(() => ({ body: reply(JSON.stringify(GOOD_REPLY)) }));
        await analyze(docFrom('a.txt', 'Some text about tides.'), options(server.url, { apiKey: null }));
        expect(server.requests[0]?.headers.authorization).to.equal(undefined);
      });

      it('falls back to local when the server is slower than the timeout', async () => {
        server = await startServer(() => ({ body: reply(JSON.stringify(GOOD_REPLY)), delayMs: 3000 }));
        const { doc, titleLine } = scifact('10009203');
        const analysis = await analyze(doc, options(server.url, { timeoutMs: 250 }));
        expect(analysis.provider).to.equal('local');
        expect(analysis.fallbackReason).to.equal(`${provider}: timed out after 0.25 s`);
        expect(analysis.title).to.equal(titleLine);
        expect(analysis.keywords.length).to.be.within(5, 10);
      });

      it('falls back to local when nothing listens', async () => {
        const url = await closedPortUrl();
        const analysis = await analyze(scifact('10009203').doc, options(url));
        expect(analysis.provider).to.equal('local');
        expect(analysis.fallbackReason).to.equal(`${provider}: connection refused at ${url}`);
      });

      it('falls back to local on an HTTP error, quoting the server', async () => {
        const error =
          provider === 'ollama'
            ? { error: 'model "llama3.2" not found, try pulling it first' }
            : { error: { message: 'Incorrect API key provided: sk-test-123', type: 'invalid_request_error' } };
        server = await startServer(() => ({ status: provider === 'ollama' ? 404 : 401, body: error }));
        const analysis = await analyze(scifact('10009203').doc, options(server.url));
        expect(analysis.provider).to.equal('local');
        expect(analysis.fallbackReason).to.equal(
          provider === 'ollama'
            ? 'ollama: HTTP 404 Not Found: model "llama3.2" not found, try pulling it first'
            : 'openai: HTTP 401 Unauthorized: Incorrect API key provided: sk-test-123',
        );
      });

      it('falls back to local when the reply is not JSON', async () => {
        server = await startServer(() => ({ body: '<html>Bad gateway</html>', contentType: 'text/html' }));
        const analysis = await analyze(scifact('10009203').doc, options(server.url));
        expect(analysis.fallbackReason).to.equal(`${provider}: reply was not JSON: <html>Bad gateway</html>`);
      });

      it("falls back to local when the model's message is not JSON", async () => {
        server = await startServer(() => ({ body: reply('Sure! Here is a summary of the file.') }));
        const analysis = await analyze(scifact('10009203').doc, options(server.url));
        expect(analysis.provider).to.equal('local');
        expect(analysis.fallbackReason).to.equal(`${provider}: model reply was not JSON: Sure! Here is a summary of the file.`);
      });

      it("falls back to local when the model's JSON lacks a field", async () => {
        server = await startServer(() => ({ body: reply(JSON.stringify({ title: 'Only a title', summary: 'x' })) }));
        const analysis = await analyze(scifact('10009203').doc, options(server.url));
        expect(analysis.provider).to.equal('local');
        expect(analysis.fallbackReason).to.match(new RegExp(`^${provider}: model reply is not \\{title, summary, keywords\\}: .*keywords`));
      });

      it('falls back to local when the envelope is not the protocol', async () => {
        server = await startServer(() => ({ body: { unexpected: true } }));
        const analysis = await analyze(scifact('10009203').doc, options(server.url));
        expect(analysis.fallbackReason).to.match(new RegExp(`^${provider}: unexpected reply`));
      });

      it('does not ask the model about a file without text', async () => {
        server = await startServer(() => ({ body: reply(JSON.stringify(GOOD_REPLY)) }));
        const analysis = await analyze(docFrom('scan_0001.png', '', { format: 'image' }), options(server.url));
        expect(server.requests).to.have.length(0);
        expect(analysis).to.deep.include({ title: 'scan 0001', summary: '', keywords: [], provider: 'local' });
        expect(analysis.fallbackReason).to.equal(`${provider}: not asked, the file has no text`);
      });

      it('falls back to local when cancelled mid-request', async () => {
        server = await startServer(() => ({ body: reply(JSON.stringify(GOOD_REPLY)), delayMs: 3000 }));
        const controller = new AbortController();
        const pending = analyze(scifact('10009203').doc, options(server.url, { signal: controller.signal }));
        setTimeout(() => controller.abort(), 50);
        const analysis = await pending;
        expect(analysis.provider).to.equal('local');
        expect(analysis.fallbackReason).to.equal(`${provider}: cancelled`);
      });
    });
  }
});
