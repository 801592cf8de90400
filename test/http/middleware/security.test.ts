import { expect } from 'chai';
import http from 'node:http';
import { startTestService, type TestService } from '../../helpers/service.js';

/** fetch() will not send a forged Host header, so this uses node:http directly. */
function getWithHost(url: string, host: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
  });
}

describe('HTTP security', () => {
  describe('default (loopback, no token, no CORS)', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService('pglite');
    });
    after(() => t.destroy());

    it('refuses a Host header that is not a loopback name (DNS rebinding)', async () => {
      const refused = await getWithHost(`${t.url}/api/status/`, 'attacker.example:60534');
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ success: false, code: 'forbidden_host' });
      for (const host of ['localhost:1', '127.0.0.1', '[::1]:8080']) {
        expect((await getWithHost(`${t.url}/api/status/`, host)).status, host).to.equal(200);
      }
    });

    it('sends no CORS headers and refuses cross-origin requests', async () => {
      const same = await t.request('GET', '/api/status/');
      expect(same.headers.get('access-control-allow-origin')).to.equal(null);
      const foreign = await t.request('GET', '/api/status/', undefined, { origin: 'https://evil.example' });
      expect(foreign.status).to.equal(403);
      expect(foreign.body.code).to.equal('forbidden_origin');
      const sameOrigin = await t.request('GET', '/api/status/', undefined, { origin: t.url });
      expect(sameOrigin.status).to.equal(200);
    });
  });

  describe('with a token, allowed hosts and CORS origins configured', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService('pglite', {
        FILESIFT_API_TOKEN: 's3cret-token',
        FILESIFT_ALLOWED_HOSTS: 'filesift.lan',
        FILESIFT_CORS_ORIGINS: 'http://app.example',
      });
    });
    after(() => t.destroy());

    it('requires the bearer token on every request', async () => {
      const none = await t.request('GET', '/api/status/');
      expect(none.status).to.equal(401);
      expect(none.body.code).to.equal('unauthorized');
      expect((await t.request('GET', '/api/status/', undefined, { authorization: 'Bearer wrong' })).status).to.equal(401);
      expect((await t.request('GET', '/api/status/', undefined, { authorization: 'Bearer s3cret-token' })).status).to.equal(200);
      expect((await t.request('GET', '/api/updates', undefined, {})).status).to.equal(401);
    });

    it('accepts a configured Host name', async () => {
      const res = await new Promise<number>((resolve, reject) => {
        http
          .get(`${t.url}/api/status/`, { headers: { host: 'filesift.lan:60534', authorization: 'Bearer s3cret-token' } }, (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          })
          .on('error', reject);
      });
      expect(res).to.equal(200);
    });

    it('answers CORS for the configured origin only, including preflight', async () => {
      const ok = await t.request('GET', '/api/status/', undefined, { origin: 'http://app.example', authorization: 'Bearer s3cret-token' });
      expect(ok.headers.get('access-control-allow-origin')).to.equal('http://app.example');
      const preflight = await fetch(`${t.url}/api/settings/`, {
        method: 'OPTIONS',
        headers: { origin: 'http://app.example', 'access-control-request-method': 'PUT' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-methods')).to.match(/PUT/);
      const other = await t.request('GET', '/api/status/', undefined, { origin: 'http://other.example', authorization: 'Bearer s3cret-token' });
      expect(other.status).to.equal(403);
    });
  });
});
