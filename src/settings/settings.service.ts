import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { ConfigRepository } from '../store/repositories/config.repository.js';
import { findProblem } from '../validation.js';
import { defaultSettings, settingDefinitions, type Settings } from './schema.js';

/** Stored under this prefix in app_config, one row per dotted key. */
const STORE_PREFIX = 'settings.';

/** Validates one setting's value; returns a message naming the problem, or null. */
export type SettingValidator = (value: unknown, key: string) => string | null;

export type SettingsListener = (settings: Settings, changedKeys: string[]) => void;

export type UpdateResult = { ok: true; settings: Settings; changed: string[] } | { ok: false; errors: string[] };

/**
 * Owns the live settings: validates partial updates given as dotted keys, persists them all-or-nothing, tells
 * subscribers (the actors) what changed so settings apply without a restart, and publishes `settings_changed`
 * (whoever made the change: PUT /api/settings/ or PUT /api/queue/scheduler).
 */
export class SettingsService {
  #current: Settings;
  #listeners = new Set<SettingsListener>();
  #validators = new Map<string, SettingValidator>();
  #normalizers = new Map<string, (value: unknown) => unknown>();
  #updating: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly repo: ConfigRepository,
    private readonly logger: Logger,
    private readonly bus: EventBus,
    initial: Settings,
  ) {
    this.#current = initial;
  }

  /** Loads stored values over the defaults. A stored value that no longer validates is ignored, with a warning. */
  static async load(repo: ConfigRepository, logger: Logger, bus: EventBus): Promise<SettingsService> {
    const settings = defaultSettings();
    const stored = await repo.load(STORE_PREFIX);
    for (const [storedKey, value] of Object.entries(stored)) {
      const key = storedKey.slice(STORE_PREFIX.length);
      const def = settingDefinitions.get(key);
      const problem = def ? findProblem(def.schema, value, key) : `unknown setting '${key}'`;
      if (problem) {
        logger.warn({ key, problem }, 'ignoring a stored setting that is no longer valid; using its default');
        continue;
      }
      setAt(settings, key, value);
    }
    return new SettingsService(repo, logger, bus, settings);
  }

  /**
   * Replaces the generic schema check of one key by a validator with more precise messages (e.g. scheduler
   * rules, where a union's generic error would not say which operator the rule type allows).
   */
  addValidator(key: string, validator: SettingValidator, normalize?: (value: unknown) => unknown): void {
    if (!settingDefinitions.has(key)) throw new TypeError(`addValidator: unknown setting '${key}'`);
    this.#validators.set(key, validator);
    // A valid value in its stored form, e.g. scheduler rules with the default `enabled: true` filled in.
    if (normalize) this.#normalizers.set(key, normalize);
  }

  get(): Settings {
    return structuredClone(this.#current);
  }

  subscribe(listener: SettingsListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Checks every key and value; nothing is applied unless all are valid. Concurrent updates are serialised. */
  update(patch: Record<string, unknown>): Promise<UpdateResult> {
    const run = this.#updating.then(() => this.#apply(patch));
    this.#updating = run.catch(() => undefined);
    return run;
  }

  validate(patch: Record<string, unknown>): string[] {
    const errors: string[] = [];
    for (const [key, value] of Object.entries(patch)) {
      const def = settingDefinitions.get(key);
      if (!def) {
        errors.push(`unknown setting '${key}'; settable keys: ${[...settingDefinitions.keys()].join(', ')}`);
        continue;
      }
      const custom = this.#validators.get(key);
      const problem = custom ? custom(value, key) : findProblem(def.schema, value, key);
      if (problem) errors.push(problem);
    }
    return errors;
  }

  async #apply(patch: Record<string, unknown>): Promise<UpdateResult> {
    const errors = this.validate(patch);
    if (errors.length > 0) return { ok: false, errors };
    const next = structuredClone(this.#current);
    const changed: string[] = [];
    for (const [key, given] of Object.entries(patch)) {
      const value = this.#normalizers.get(key)?.(given) ?? given;
      if (JSON.stringify(getAt(next, key)) !== JSON.stringify(value)) changed.push(key);
      setAt(next, key, structuredClone(value));
    }
    if (changed.length > 0) {
      await this.repo.save(Object.fromEntries(changed.map((k) => [STORE_PREFIX + k, getAt(next, k)])));
      this.#current = next;
      this.bus.publish('settings_changed', { keys: changed, settings: this.get() });
      for (const listener of this.#listeners) {
        try {
          listener(this.get(), changed);
        } catch (err) {
          this.logger.error({ err }, 'a settings subscriber failed');
        }
      }
    }
    return { ok: true, settings: this.get(), changed };
  }
}

function getAt(settings: Settings, key: string): unknown {
  const [section, name] = key.split('.') as [string, string];
  return (settings as unknown as Record<string, Record<string, unknown>>)[section]?.[name];
}

function setAt(settings: Settings, key: string, value: unknown): void {
  const [section, name] = key.split('.') as [string, string];
  const sections = settings as unknown as Record<string, Record<string, unknown>>;
  (sections[section] ??= {})[name] = value;
}
