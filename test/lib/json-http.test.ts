import { expect } from 'chai';
import { errorOf, jsonRequest, readJson } from '../../src/lib/json-http.js';

describe('jsonRequest', () => {
  it('sends a JSON body with its type, and the token when there is one', () => {
    const post = jsonRequest('POST', { query: 'x' }, 'tok');
    expect(post).to.deep.include({ method: 'POST', body: '{"query":"x"}' });
    expect(post.headers).to.deep.equal({ Accept: 'application/json', 'Content-Type': 'application/json', Authorization: 'Bearer tok' });
    const get = jsonRequest('GET', undefined, null);
    expect(get).to.not.have.property('body');
    expect(get.headers).to.deep.equal({ Accept: 'application/json' });
  });
});

describe('readJson and errorOf', () => {
  it('reads JSON, and answers null for an empty body or one that is not JSON', async () => {
    expect(await readJson(new Response('{"code":"not_found","message":"No file"}'))).to.deep.equal({ code: 'not_found', message: 'No file' });
    expect(await readJson(new Response(''))).to.equal(null);
    expect(await readJson(new Response('<html>Bad gateway</html>'))).to.equal(null);
    expect(errorOf({ code: 'x', message: 'y' })).to.deep.equal({ code: 'x', message: 'y' });
    expect(errorOf(null)).to.deep.equal({});
  });
});
