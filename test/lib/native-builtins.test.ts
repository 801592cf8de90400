import { expect } from 'chai';
import { keepingNativeBuiltins } from '../../src/lib/native-builtins.js';

describe('keepingNativeBuiltins', () => {
  it('puts back the built-ins a load replaced, keeps what it added, and returns its value', async () => {
    const push = Array.prototype.push;
    const parse = JSON.parse;
    const added = Symbol('added by the load');
    try {
      const value = await keepingNativeBuiltins(async () => {
        // What core-js does to a built-in V8 already has, and to one it lacks.
        Object.defineProperty(Array.prototype, 'push', { value: function push() { return 0; }, writable: true, configurable: true });
        JSON.parse = () => 'polyfilled';
        (Map.prototype as unknown as Record<symbol, unknown>)[added] = () => 'new';
        return 42;
      });
      expect(value).to.equal(42);
      expect(Array.prototype.push).to.equal(push);
      expect(Object.getOwnPropertyDescriptor(Array.prototype, 'push')?.enumerable).to.equal(false);
      expect(JSON.parse).to.equal(parse);
      expect(typeof (Map.prototype as unknown as Record<symbol, unknown>)[added]).to.equal('function');
    } finally {
      Object.defineProperty(Array.prototype, 'push', { value: push, writable: true, configurable: true, enumerable: false });
      JSON.parse = parse;
      delete (Map.prototype as unknown as Record<symbol, unknown>)[added];
    }
  });

  it('puts them back when the load fails too', async () => {
    const stringify = JSON.stringify;
    let failure = '';
    await keepingNativeBuiltins(async () => {
      JSON.stringify = () => 'polyfilled';
      throw new Error('load failed');
    }).catch((err: Error) => (failure = err.message));
    expect(failure).to.equal('load failed');
    expect(JSON.stringify).to.equal(stringify);
  });
});
