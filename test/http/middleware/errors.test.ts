import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('HTTP error behaviour', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService('pglite');
  });
  after(() => t.destroy());

  function expectJsonError(res: { status: number; body: Record<string, unknown>; headers: Headers }, status: number, code: string) {
    expect(res.status).to.equal(status);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    expect(res.body).to.include({ success: false, code });
    expect(res.body.message).to.be.a('string').and.not.match(/\n\s+at /); // never a stack trace
  }

  it('answers malformed JSON with 400', async () => {
    expectJsonError(await t.request('PUT', '/api/settings/', '{"queue.cooldown_seconds": '), 400, 'invalid_json');
  });

  it('answers a body that is not application/json with 415', async () => {
    const res = await t.request('PUT', '/api/settings/', 'queue.cooldown_seconds=5', { 'content-type': 'application/x-www-form-urlencoded' });
    expectJsonError(res, 415, 'unsupported_media_type');
    expectJsonError(await t.request('PUT', '/api/settings/', 'x', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });

  it('answers a body over 1 MB with 413', async () => {
    const big = JSON.stringify({ 'summarizer.model': 'x'.repeat(1024 * 1024 + 10) });
    expectJsonError(await t.request('PUT', '/api/settings/', big), 413, 'payload_too_large');
  });

  it('answers an unknown route with 404 and a wrong method with 405 listing the allowed ones', async () => {
    expectJsonError(await t.request('GET', '/api/nothing-here'), 404, 'route_not_found');
    expectJsonError(await t.request('GET', '/nothing-here'), 404, 'route_not_found');
    const res = await t.request('DELETE', '/api/settings/');
    expectJsonError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).to.match(/GET/).and.match(/PUT/);
    expect(res.body.allowed_methods).to.include.members(['GET', 'PUT']);
    expectJsonError(await t.request('PATCH', '/api/status/'), 405, 'method_not_allowed');
  });

  it('still serves requests after all of that', async () => {
    expect((await t.request('GET', '/api/status/')).status).to.equal(200);
  });
});
