import { expect } from 'chai';

/** Awaits a promise that must reject, and checks the error's message (RegExp) or class. */
export async function expectRejection(
  promise: Promise<unknown>,
  expected: RegExp | (new (...args: never[]) => Error),
): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    if (expected instanceof RegExp) expect((err as Error).message).to.match(expected);
    else expect(err).to.be.instanceOf(expected);
    return err as Error;
  }
  return expect.fail('expected a rejection');
}

/** Polls until check() returns a truthy value (or throws the last failure after timeoutMs). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 20_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      lastError = new Error('condition still false');
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw lastError;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
