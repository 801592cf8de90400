import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { webAppDir } from '../../../src/paths.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/** fetch() will not send a forged Host header, so this uses node:http directly. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('the web app and the API description, served by the service', () => {
  let t: TestService;
  const token = 'web-app-token';
  before(async () => {
    t = await startTestService('pglite', { FILESIFT_API_TOKEN: token });
  });
  after(() => t.destroy());

  it('serves the page (never cached) and its hashed assets (cached a year) at /, with a strict content policy', async () => {
    const page = await fetch(`${t.url}/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    expect(page.headers.get('content-security-policy')).to.equal(
      "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, 'the page loads its bundle').to.be.a('string');
    expect(readdirSync(path.join(webAppDir, 'assets'))).to.include(path.basename(script!));
    const asset = await fetch(t.url + script!);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('cache-control')).to.match(/max-age=31536000.*immutable/);
    expect(asset.headers.get('content-type')).to.match(/javascript/);
  });

  it('needs no token for the app and the description, and still does for the API', async () => {
    for (const route of ['/', '/favicon.svg', '/api/openapi.json', '/api/docs']) expect((await fetch(t.url + route)).status, route).to.equal(200);
    expect((await fetch(`${t.url}/api/status/`)).status).to.equal(401);
    expect((await fetch(`${t.url}/api/files/stats`, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);
  });

  it('applies the Host and Origin checks to the app too', async () => {
    expect(await statusWithHost(`${t.url}/`, 'attacker.example')).to.equal(403);
    expect((await fetch(`${t.url}/`, { headers: { origin: 'https://evil.example' } })).status).to.equal(403);
  });

  it('answers anything else outside /api with the JSON 404, and never serves a file outside the app', async () => {
    for (const route of ['/assets/nope.js', '/package.json', '/assets/..%2F..%2Fpackage.json', '/assets/%2E%2E/%2E%2E/package.json']) {
      const res = await fetch(t.url + route, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, route).to.equal(404);
      expect(((await res.json()) as { code: string }).code, route).to.equal('route_not_found');
    }
  });
});
