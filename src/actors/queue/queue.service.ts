/**
 * Wires the queue actor's core (this folder) into the service: its items persist in the store (queue_items),
 * its work runs through the indexer (processor.ts), its settings follow `queue.*` live, its manual pause
 * survives restarts (app_config), and its events go to the event bus.
 */
import { createQueue, type QueueApi, type QueueEvent, type QueueFileEvent, type QueueItem, type QueueProcessor, type QueueStatus } from './index.js';
import type { EventBus } from '../../events/bus.js';
import { IN_FLIGHT_PER_THREAD } from '../../pipeline/pool.js';
import type { Logger } from '../../logger.js';
import type { Settings } from '../../settings/schema.js';
import type { SettingsService } from '../../settings/settings.service.js';
import type { ComponentHealth } from '../../status/status.service.js';
import type { StoreApi } from '../../store/store.js';

/** app_config key of the queue's own state (the manual pause). */
export const QUEUE_STATE_KEY = 'queue_state';

export interface QueueServiceDeps {
  store: StoreApi;
  settings: SettingsService;
  bus: EventBus;
  logger: Logger;
  processor: QueueProcessor & { abort?(): void };
  /** Start paused by the scheduler (its first check already said so). */
  schedulerPaused?: boolean;
  /** Persistence batching (tests shorten it). */
  flushIntervalMs?: number;
}

/**
 * The queue core's settings. Items processing at once: IN_FLIGHT_PER_THREAD for each pipeline thread
 * (queue.max_concurrency), as in a bulk run, so that a burst of changes (a checkout, an unpacked archive) keeps the
 * threads fed while other items wait on the store, instead of one item per thread.
 */
export function queueSettings(settings: Settings) {
  return {
    cooldownSeconds: settings.queue.cooldown_seconds,
    maxConcurrency: settings.queue.max_concurrency * IN_FLIGHT_PER_THREAD,
    maxRetries: settings.queue.max_retries,
  };
}

export class QueueService {
  readonly #queue: QueueApi;
  readonly #unsubscribe: () => void;
  #stateWrite: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly deps: QueueServiceDeps,
    queue: QueueApi,
  ) {
    this.#queue = queue;
    this.#unsubscribe = deps.settings.subscribe((next, keys) => {
      if (keys.some((k) => k.startsWith('queue.'))) this.#queue.updateSettings(queueSettings(next));
    });
  }

  static async start(deps: QueueServiceDeps): Promise<QueueService> {
    const stored = (await deps.store.config.load(QUEUE_STATE_KEY))[QUEUE_STATE_KEY] as { manually_paused?: unknown } | undefined;
    const log = deps.logger;
    const queue = createQueue({
      persistence: deps.store.queue,
      processor: deps.processor,
      settings: queueSettings(deps.settings.get()),
      manuallyPaused: stored?.manually_paused === true,
      schedulerPaused: deps.schedulerPaused ?? false,
      onEvent: (event) => publish(deps.bus, event),
      onError: (err, context) => log.error({ err }, `queue: ${context}`),
      ...(deps.flushIntervalMs !== undefined ? { persistenceOptions: { flushIntervalMs: deps.flushIntervalMs } } : {}),
    });
    await queue.start();
    const status = queue.status();
    if (status.total_items > 0) log.info({ ...status }, 'queue items restored');
    return new QueueService(deps, queue);
  }

  status(): QueueStatus {
    return this.#queue.status();
  }

  /** The `queue` component of GET /api/status/. */
  health(): ComponentHealth {
    return { ok: true, ...this.#queue.status() };
  }

  items(): QueueItem[] {
    return this.#queue.items();
  }

  enqueueMany(events: readonly QueueFileEvent[]): number {
    return this.#queue.enqueueMany(events);
  }

  /** POST /api/queue/pause: the flag is stored before answering, so it survives a restart. */
  async pause(): Promise<QueueStatus> {
    const status = this.#queue.pause();
    await this.#saveManualFlag();
    return status;
  }

  async resume(): Promise<QueueStatus> {
    const status = this.#queue.resume();
    await this.#saveManualFlag();
    return status;
  }

  setSchedulerPaused(paused: boolean): QueueStatus {
    return this.#queue.setSchedulerPaused(paused);
  }

  /** Removes an item and writes that down before answering (the client is told it is gone). */
  async remove(id: string): Promise<boolean> {
    if (!this.#queue.remove(id)) return false;
    const flushed = await this.#queue.flush();
    if (!flushed.ok) this.deps.logger.warn({ reason: flushed.reason }, 'queue: removal not written yet; it will be retried');
    return true;
  }

  /** Drops the items of a directory (its watch job is being deleted); answers how many. */
  removeUnder(directory: string): number {
    return this.#queue.removeUnder(directory);
  }

  flush(): Promise<unknown> {
    return this.#queue.flush();
  }

  async close(): Promise<void> {
    this.#unsubscribe();
    this.deps.processor.abort?.();
    await this.#queue.close();
    await this.#stateWrite;
  }

  #saveManualFlag(): Promise<unknown> {
    // Writes in order, each with the flag as it is when it runs: the last write always holds the latest value.
    this.#stateWrite = this.#stateWrite
      .catch(() => undefined)
      .then(() => this.deps.store.config.save({ [QUEUE_STATE_KEY]: { manually_paused: this.#queue.status().manually_paused } }));
    return this.#stateWrite;
  }
}

function publish(bus: EventBus, event: QueueEvent): void {
  switch (event.type) {
    case 'queue_item_added':
    case 'queue_item_updated':
    case 'queue_item_processing':
    case 'queue_item_completed':
      bus.publish(event.type, { item: event.item });
      return;
    case 'queue_item_failed':
      bus.publish(event.type, { item: event.item, reason: event.reason });
      return;
    case 'queue_item_removed':
      bus.publish(event.type, { item: event.item, cause: event.cause });
      return;
    case 'queue_paused':
    case 'queue_resumed':
      bus.publish(event.type, { ...event.status });
      return;
  }
}
