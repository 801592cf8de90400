/**
 * The OpenAPI document: valid OpenAPI 3.1, served as generated, listing exactly the router's routes; and the
 * conformance check that every route test's exchanges go through (helpers/openapi.ts) really catches a mismatch.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { createApp } from '../../src/http/app.js';
import type { AppDeps } from '../../src/http/deps.js';
import { openApiDocument, openApiPath, operations } from '../../src/http/openapi.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { conformanceProblem } from '../helpers/openapi.js';
import { startTestService, type TestService } from '../helpers/service.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Method and path of every route the router serves, as the document writes them. */
function routerRoutes(): string[] {
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', FILESIFT_DATA_DIR: '/nonexistent' });
  // Routes are registered without touching their dependencies (only the description reads the version).
  const { router } = createApp({ config, logger: createLogger('silent') } as AppDeps);
  return router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m.toLowerCase()} ${openApiPath(String(layer.path))}`),
  );
}

describe('OpenAPI document', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService('pglite');
  });
  after(() => t.destroy());

  it('is served at /api/openapi.json, as generated from the route schemas', async () => {
    const res = await t.request('GET', '/api/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(openApiDocument(t.config.version))));
  });

  it('validates as OpenAPI 3.1', async () => {
    const document = (await t.request('GET', '/api/openapi.json')).body;
    expect(document.openapi).to.equal('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('holds only schemas that are valid JSON Schema 2020-12 (the dialect of OpenAPI 3.1)', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    const schemas: [string, unknown][] = [];
    const visit = (where: string, node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'schema') schemas.push([where, value]);
        else visit(`${where}/${key}`, value);
      }
    };
    visit('#', openApiDocument('1.2.3').paths);
    expect(schemas.length).to.be.greaterThan(40);
    for (const [where, schema] of schemas) {
      expect(ajv.validateSchema(schema as object), `${where}: ${ajv.errorsText()}`).to.equal(true);
      expect(() => ajv.compile(schema as object), where).not.to.throw();
    }
  });

  it('lists every route of the router, and nothing else', () => {
    const documented = operations.map((op) => `${op.method} ${openApiPath(op.path)}`).sort();
    const served = routerRoutes().sort();
    expect(served.length).to.be.greaterThan(30);
    expect(documented).to.deep.equal(served);
    expect(new Set(documented).size).to.equal(documented.length);
  });

  it('gives every operation a summary, a tag the document describes and an error answer', () => {
    const document = openApiDocument('1.2.3');
    const tags = new Set((document.tags as { name: string }[]).map((tag) => tag.name));
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, { summary?: string; tags: string[]; responses: Record<string, unknown> }>)) {
        expect(op.summary, `${method} ${path}`).to.be.a('string').and.not.equal('');
        expect(tags.has(op.tags[0]!), `${method} ${path} tag`).to.equal(true);
        expect(op.responses, `${method} ${path}`).to.have.property('default');
      }
    }
  });

  it('the conformance check refuses an answer, a request and an error body the document does not describe', () => {
    const exchange = { method: 'GET', route: '/api/queue/status', requestBody: undefined, status: 200, contentType: 'application/json' };
    const good = { paused: false, manually_paused: false, scheduler_paused: false, total_items: 0, cooling_down: 0, ready: 0, processing: 0 };
    expect(conformanceProblem({ ...exchange, responseBody: good })).to.equal(null);
    expect(conformanceProblem({ ...exchange, responseBody: { ...good, paused: 'no' } })).to.match(/does not match the document/);
    expect(conformanceProblem({ ...exchange, responseBody: { ...good, extra: 1 } })).to.match(/additional properties/);
    expect(conformanceProblem({ ...exchange, status: 201, responseBody: good })).to.match(/a status the document does not list/);
    const search = { method: 'POST', route: '/api/search/', status: 200, contentType: 'application/json', responseBody: {} };
    expect(conformanceProblem({ ...search, requestBody: { query: 'x', color: 'red' } })).to.match(/does not match the documented request/);
    const unknown = { method: 'GET', route: '/api/nope', requestBody: undefined, status: 404, contentType: 'application/json' };
    expect(conformanceProblem({ ...unknown, responseBody: { success: false, code: 'route_not_found', message: 'No such endpoint' } })).to.equal(null);
    expect(conformanceProblem({ ...unknown, responseBody: { error: 'not found' } })).to.match(/error schema/);
  });

  it('has an offline reference page at /api/docs, with its own scripts and a strict content policy', async () => {
    const page = await fetch(`${t.url}/api/docs`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.match(/default-src 'self'/);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.every((s) => s.startsWith('/api/docs/')), sources.join(' ')).to.equal(true);
    for (const source of sources) expect((await fetch(t.url + source)).status, source).to.equal(200);
    expect((await fetch(`${t.url}/api/docs/package.json`)).status).to.equal(404);
    expect((await fetch(`${t.url}/api/docs/..%2Fpackage.json`)).status).to.equal(404);
  });
});
