import { expect } from 'chai';
import { spawnStore, type StoreHandle } from '../../src/store/spawn.js';
import { createLogger } from '../../src/logger.js';
import { defaultSettings } from '../../src/settings/schema.js';
import { SettingsService } from '../../src/settings/settings.service.js';
import { createScratchDatabase, forEachEngine, type ScratchDatabase } from '../helpers/engines.js';
import { EventBus } from '../../src/events/bus.js';

const logger = createLogger('silent');

forEachEngine('SettingsService', (engine) => {
  let store: StoreHandle;
  let scratch: ScratchDatabase | null = null;

  beforeEach(async () => {
    scratch = engine === 'postgres' ? await createScratchDatabase() : null;
    store = await spawnStore({ databaseUrl: scratch?.url ?? null, dataDir: null, logger });
  });
  afterEach(async () => {
    await store.close();
    await scratch?.drop();
  });

  it('starts from the defaults', async () => {
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    expect(settings.get()).to.deep.equal(defaultSettings());
  });

  it('applies a partial dotted update and persists it', async () => {
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    const result = await settings.update({ 'queue.cooldown_seconds': 2.5, 'scheduler.combine_mode': 'ANY' });
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.changed).to.deep.equal(['queue.cooldown_seconds', 'scheduler.combine_mode']);
    expect(result.settings.queue.cooldown_seconds).to.equal(2.5);
    expect(result.settings.queue.max_retries).to.equal(defaultSettings().queue.max_retries);
    const reloaded = await SettingsService.load(store.api.config, logger, new EventBus());
    expect(reloaded.get().scheduler.combine_mode).to.equal('ANY');
    expect(reloaded.get().queue.cooldown_seconds).to.equal(2.5);
  });

  it('applies nothing when any key is invalid, and names every problem', async () => {
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    const result = await settings.update({
      'queue.cooldown_seconds': 10,
      'queue.max_retries': 1.5,
      'queue.bogus': true,
      'scheduler.combine_mode': 'SOME',
    });
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.errors).to.have.length(3);
    expect(result.errors.join('\n')).to.match(/queue\.max_retries must be an integer from 0 to 20, got 1\.5/);
    expect(result.errors.join('\n')).to.match(/unknown setting 'queue\.bogus'/);
    expect(result.errors.join('\n')).to.match(/scheduler\.combine_mode must be one of "ALL", "ANY", got "SOME"/);
    expect(settings.get().queue.cooldown_seconds).to.equal(defaultSettings().queue.cooldown_seconds);
    const reloaded = await SettingsService.load(store.api.config, logger, new EventBus());
    expect(reloaded.get()).to.deep.equal(defaultSettings());
  });

  it('tells subscribers what changed, and only when something did', async () => {
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    const calls: string[][] = [];
    settings.subscribe((_s, keys) => calls.push(keys));
    await settings.update({ 'queue.max_concurrency': 3 });
    await settings.update({ 'queue.max_concurrency': 3 });
    expect(calls).to.deep.equal([['queue.max_concurrency']]);
  });

  it('serialises concurrent updates (the last one wins, none is lost)', async () => {
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    await Promise.all([
      settings.update({ 'queue.max_retries': 5 }),
      settings.update({ 'queue.cooldown_seconds': 9 }),
      settings.update({ 'queue.max_retries': 7 }),
    ]);
    const reloaded = await SettingsService.load(store.api.config, logger, new EventBus());
    expect(reloaded.get().queue).to.include({ max_retries: 7, cooldown_seconds: 9 });
  });

  it('ignores a stored value that no longer validates, keeping the default', async () => {
    await store.api.config.save({ 'settings.queue.max_retries': 999, 'settings.queue.removed_key': 1 });
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    expect(settings.get().queue.max_retries).to.equal(defaultSettings().queue.max_retries);
  });

  it('uses a custom validator instead of the generic schema message when one is registered', async () => {
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    settings.addValidator('scheduler.rules', (value) => (Array.isArray(value) && value.length > 1 ? 'at most one rule here' : null));
    const result = await settings.update({ 'scheduler.rules': [{}, {}] });
    expect(result).to.deep.equal({ ok: false, errors: ['at most one rule here'] });
    expect(() => settings.addValidator('nope.key', () => null)).to.throw(/unknown setting/);
  });
});
