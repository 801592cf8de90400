/** The settings' computed defaults (src/settings/schema.ts): the pipeline threads. */
import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { defaultConcurrency, defaultSettings } from '../../src/settings/schema.js';

describe('default pipeline threads', () => {
  it('leaves one core to the store: one fewer than the cores, at least one, at most 256', () => {
    expect([1, 2, 3, 4, 8, 16, 257, 1024].map((cores) => defaultConcurrency(cores))).to.deep.equal([1, 1, 2, 3, 7, 15, 256, 256]);
  });

  it('is what the settings start with on this machine', () => {
    expect(defaultSettings().queue.max_concurrency).to.equal(defaultConcurrency(availableParallelism()));
  });
});
