import { expect } from 'chai';
import { queueSettings } from '../../../src/actors/queue/queue.service.js';
import { IN_FLIGHT_PER_THREAD } from '../../../src/pipeline/pool.js';
import { defaultSettings } from '../../../src/settings/schema.js';

describe('queueSettings', () => {
  it('lets IN_FLIGHT_PER_THREAD items process at once for each pipeline thread, as a bulk run does', () => {
    const settings = defaultSettings();
    settings.queue.max_concurrency = 3;
    settings.queue.cooldown_seconds = 7;
    settings.queue.max_retries = 2;
    expect(IN_FLIGHT_PER_THREAD).to.be.greaterThan(1);
    expect(queueSettings(settings)).to.deep.equal({ cooldownSeconds: 7, maxConcurrency: 3 * IN_FLIGHT_PER_THREAD, maxRetries: 2 });
  });
});
