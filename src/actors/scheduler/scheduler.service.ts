/**
 * Wires the scheduler actor's core (this folder) into the service. Its configuration lives in settings
 * (`scheduler.*`), so PUT /api/settings/ and PUT /api/queue/scheduler change the same thing and validate rules
 * identically; every change applies at once. Decisions go to subscribers (the queue pauses and resumes) and are
 * published as scheduler_paused / scheduler_resumed.
 *
 * Readings cost a little (systeminformation shells out for the temperature), so nothing is read while the
 * scheduler is disabled and nobody asks: the system provider is created on first use.
 */
import {
  applySchedulerUpdate,
  createScheduler,
  createSystemReadingsProvider,
  DEFAULT_SCHEDULER_CONFIG,
  formatValidationErrors,
  schedulerResponse,
  validateSchedulerConfig,
  validateSchedulerUpdate,
  type Evaluation,
  type ReadingsProvider,
  type Scheduler,
  type SchedulerConfig,
  type SchedulerResponse,
  type ValidationError,
} from './index.js';
import type { EventBus } from '../../events/bus.js';
import type { Logger } from '../../logger.js';
import type { Settings } from '../../settings/schema.js';
import type { SettingsService } from '../../settings/settings.service.js';
import type { ComponentHealth } from '../../status/status.service.js';

export interface SchedulerServiceDeps {
  settings: SettingsService;
  bus: EventBus;
  logger: Logger;
  /** Test seam: where readings come from (default: this machine, see readings.ts). */
  provider?: ReadingsProvider;
}

/** Hears each decision: true when the queue must be held paused, false when it may run. */
export type DecisionListener = (paused: boolean) => void;

export type SchedulerUpdateResult = { ok: true; response: SchedulerResponse } | { ok: false; errors: ValidationError[] };

const SCHEDULER_KEYS = ['enabled', 'combine_mode', 'check_interval_seconds', 'unavailable_policy', 'rules'] as const;

/** Registers the scheduler's rule validator on settings: precise messages, and rules stored with `enabled`. */
export function addSchedulerValidators(settings: SettingsService): void {
  settings.addValidator(
    'scheduler.rules',
    (value) => {
      const checked = validateSchedulerUpdate({ rules: value });
      return checked.ok ? null : checked.errors.map((e) => `scheduler.${e.message}`).join('; ');
    },
    (value) => {
      const checked = validateSchedulerUpdate({ rules: value });
      return checked.ok ? checked.value.rules : value;
    },
  );
}

export class SchedulerService {
  readonly #deps: SchedulerServiceDeps;
  readonly #scheduler: Scheduler;
  #system: (ReadingsProvider & { close(): void }) | null = null;
  #running = false;
  #lastUpdate: Promise<Evaluation> | null = null;
  readonly #unsubscribe: () => void;
  readonly #listeners = new Set<DecisionListener>();

  constructor(deps: SchedulerServiceDeps) {
    this.#deps = deps;
    addSchedulerValidators(deps.settings);
    const provider: ReadingsProvider = deps.provider ?? { read: () => (this.#system ??= createSystemReadingsProvider()).read() };
    this.#scheduler = createScheduler({
      provider,
      config: this.#configFrom(deps.settings.get()),
      onDecision: (paused, evaluation) => {
        for (const listener of this.#listeners) listener(paused);
        deps.bus.publish(paused ? 'scheduler_paused' : 'scheduler_resumed', {
          conditions_met: evaluation.conditions_met,
          detail: evaluation.detail,
          checked_at: evaluation.checked_at,
          rules: evaluation.rules,
        });
        deps.logger.info({ paused, detail: evaluation.detail }, paused ? 'scheduler pauses the queue' : 'scheduler releases the queue');
      },
      onError: (err) => deps.logger.error({ err }, 'scheduler check failed'),
    });
    this.#unsubscribe = deps.settings.subscribe((next, keys) => {
      if (keys.some((k) => k.startsWith('scheduler.'))) this.#lastUpdate = this.#apply(this.#configFrom(next));
    });
  }

  get config(): SchedulerConfig {
    return this.#scheduler.current().config;
  }

  /** Decisions from now on (the first one comes with start(), when the rules fail then). */
  subscribe(listener: DecisionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The `scheduler` component of GET /api/status/. */
  health(): ComponentHealth {
    const c = this.config;
    return { ok: true, enabled: c.enabled, paused_queue: this.paused, combine_mode: c.combine_mode, rules: c.rules.length, check_interval_seconds: c.check_interval_seconds };
  }

  /** Whether the scheduler holds the queue paused now. */
  get paused(): boolean {
    return this.#scheduler.current().paused;
  }

  /**
   * Before the queue starts: whether it must start paused (an enabled scheduler whose rules fail now), so a
   * restart never processes items the scheduler would have held.
   */
  async initialPause(): Promise<boolean> {
    if (!this.config.enabled) return false;
    const evaluation = await this.#scheduler.checkNow();
    return !evaluation.conditions_met;
  }

  /** Starts periodic checks (only while enabled; enabling later starts them). */
  start(): void {
    if (!this.config.enabled) return;
    this.#running = true;
    this.#scheduler.start();
  }

  /** GET /api/queue/scheduler: the configuration with fresh readings and verdicts. */
  async response(): Promise<SchedulerResponse> {
    const evaluation = await this.#scheduler.checkNow();
    return schedulerResponse(this.config, evaluation, this.paused);
  }

  /** PUT /api/queue/scheduler: only the fields given change; a given `rules` replaces the list. */
  async update(body: unknown): Promise<SchedulerUpdateResult> {
    const checked = validateSchedulerUpdate(body);
    if (!checked.ok) return checked;
    const next = applySchedulerUpdate(this.config, checked.value);
    const patch: Record<string, unknown> = {};
    for (const key of SCHEDULER_KEYS) if (checked.value[key] !== undefined) patch[`scheduler.${key}`] = next[key];
    this.#lastUpdate = null;
    const result = Object.keys(patch).length > 0 ? await this.#deps.settings.update(patch) : null;
    if (result && !result.ok) return { ok: false, errors: result.errors.map((message) => ({ path: '', message })) };
    const evaluation = await (this.#lastUpdate ?? this.#scheduler.checkNow());
    return { ok: true, response: schedulerResponse(this.config, evaluation, this.paused) };
  }

  async stop(): Promise<void> {
    this.#unsubscribe();
    await this.#scheduler.stop();
    this.#system?.close();
  }

  #apply(config: SchedulerConfig): Promise<Evaluation> {
    if (config.enabled && !this.#running) {
      // Enabling starts the actor first, so the check of the new configuration below signals its decision.
      this.#running = true;
      this.#scheduler.start();
    }
    return this.#scheduler.update(config);
  }

  #configFrom(settings: Settings): SchedulerConfig {
    const checked = validateSchedulerConfig({ ...settings.scheduler });
    if (checked.ok) return checked.value;
    this.#deps.logger.error({ errors: formatValidationErrors(checked.errors) }, 'stored scheduler settings are invalid; the scheduler is off');
    return { ...DEFAULT_SCHEDULER_CONFIG, rules: [] };
  }
}
