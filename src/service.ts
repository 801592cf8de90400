import { createServer, type RequestListener, type Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { spawnStore, type StoreHandle } from './actors/store/index.js';
import type { ServiceConfig } from './config.js';
import { EventBus } from './events/bus.js';
import { createApp } from './http/app.js';
import { createLogger, type Logger } from './logger.js';
import { FilterService } from './filters/filter.service.js';
import { defaultModelDir, resolveEmbedder } from './indexing/embedder.js';
import { EmbedderManager } from './indexing/embedder-manager.js';
import { embedderStatus } from './indexing/embedder-status.js';
import { AutoModelPull } from './indexing/model-pull.js';
import { isTransformerDir } from './pipeline/embedders/index.js';
import { pullPlan } from './pipeline/embedders/pull-plan.js';
import { FilterApplier } from './filters/filters-apply.js';
import { FilterEditor } from './filters/filter-editor.js';
import { QueryLanes } from './search/query-lanes.js';
import { SearchService } from './search/search.service.js';
import { Indexer } from './indexing/indexer.js';
import { IndexingService } from './indexing/indexing.service.js';
import { JobsService } from './jobs/jobs.service.js';
import { PipelinePool } from './pipeline/pool.js';
import { SettingsService } from './settings/settings.service.js';
import { StatusService } from './status/status.service.js';
import type { ReadingsProvider } from './actors/scheduler/readings.js';
import type { WatcherTuning } from './actors/watcher/protocol.js';
import { IndexingProcessor } from './queue/processor.js';
import { QueueService } from './queue/queue.service.js';
import { SchedulerService } from './scheduler/scheduler.service.js';
import { WatchService } from './watch/watch.service.js';

export interface Service {
  /** Base URL the service listens on, e.g. http://127.0.0.1:60534 */
  url: string;
  port: number;
  bus: EventBus;
  settings: SettingsService;
  store: StoreHandle;
  pool: PipelinePool;
  indexing: IndexingService;
  /** The active embedder, and switching it when the model changes. */
  embedders: EmbedderManager;
  /** Resolves when the start-up checks of the embedder are done (the transformer probed, a re-embed started). */
  embedderReady: Promise<void>;
  /** The automatic model download (FILESIFT_MODEL_PULL=auto), when one was started. */
  modelPull: AutoModelPull | null;
  watch: WatchService;
  queue: QueueService;
  scheduler: SchedulerService;
  logger: Logger;
  /** Graceful stop: no new requests, event streams ended, actors drained, database closed. Idempotent. */
  close(reason?: string): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** SSE heartbeat interval (default 15 s). */
  sseHeartbeatMs?: number;
  /** How many events are kept for replay to reconnecting clients (default 1000). */
  eventReplayCapacity?: number;
  /** Test seam: another pipeline worker file (e.g. one that hangs or crashes on purpose). */
  pipelineWorker?: string;
  /** How often the model folder is checked for a model added or removed while running (default 60 s; 0 = never). */
  modelCheckIntervalMs?: number;
  /** Test seam: where the scheduler's readings come from (default: this machine). */
  schedulerProvider?: ReadingsProvider;
  /** Test seam: watcher batching, rename pairing, polling interval, a simulated watch-limit error. */
  watcherTuning?: Partial<WatcherTuning>;
  /** How long queue changes may wait before they are written (default 250 ms). */
  queueFlushIntervalMs?: number;
}

/** The composition root: starts the actors in dependency order and the HTTP front end last. */
export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(config.logLevel);
  await mkdir(config.dataDir, { recursive: true });
  const store = await spawnStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  const stack: (() => Promise<void>)[] = [() => store.close()];
  try {
    const bus = new EventBus({ replayCapacity: options.eventReplayCapacity ?? 1000 });
    const settings = await SettingsService.load(store.api.config, logger.child({ actor: 'settings' }));
    const status = new StatusService(store, config.version);
    const filters = await FilterService.load(store.api.config, logger.child({ actor: 'filters' }));
    const jobs = await JobsService.load(store.api);

    const embedder = resolveEmbedder(config);
    if (!embedder.description.ok) logger.warn({ reason: embedder.description.reason }, 'no embedder: search will be keyword-only');
    const pool = new PipelinePool({
      ...(options.pipelineWorker ? { workerFile: options.pipelineWorker } : {}),
      threads: settings.get().queue.max_concurrency,
      modelDir: embedder.modelDir,
      builtinDir: embedder.builtinDir,
    });
    stack.push(() => pool.close());
    settings.subscribe((next, keys) => {
      if (keys.includes('queue.max_concurrency')) void pool.resize(next.queue.max_concurrency);
    });
    const embedders: EmbedderManager = new EmbedderManager(
      {
        config,
        pool,
        bus,
        logger: logger.child({ actor: 'embedder' }),
        // A model change (or files of another model found at start): re-embed them in the background.
        onChange: (): Promise<unknown> => indexing.startReembed().catch((err: unknown) => logger.error({ err }, 'cannot start re-embedding')),
      },
      embedder,
    );
    const indexer = new Indexer({
      store: store.api,
      pool,
      settings,
      bus,
      logger: logger.child({ actor: 'indexer' }),
      embeddingModel: () => embedders.active.identity,
      jobFor: (p) => jobs.jobFor(p)?.id ?? null,
      apiKeys: {
        openai: process.env.FILESIFT_OPENAI_API_KEY ?? process.env.OPENAI_API_KEY ?? null,
        ollama: process.env.FILESIFT_OLLAMA_API_KEY ?? null,
      },
    });
    const indexing = new IndexingService({
      indexer,
      store: store.api,
      pool,
      filters,
      bus,
      logger: logger.child({ actor: 'indexing' }),
      ownDataDir: config.dataDir,
      embeddingModel: () => embedders.active.identity,
      embeddingDimension: () => embedders.active.dimension,
    });
    stack.push(() => indexing.close());
    const modelPull = autoModelPull(config, bus, logger, () => embedders.refresh('the model was downloaded'));
    status.register('embedder', () => embedderStatus(config, embedders, indexing, modelPull));
    const filterApplier = new FilterApplier({
      filters,
      jobs,
      files: store.api.files,
      indexing,
      logger: logger.child({ actor: 'filters' }),
      ownDataDir: config.dataDir,
    });
    const filterEditor = new FilterEditor({ filters, applier: filterApplier, jobs, bus });
    // The queue: the scheduler's first decision comes before the queue starts, so a restart never processes
    // items the scheduler would hold.
    const processor = new IndexingProcessor({ indexer, filters, jobs, bus, ownDataDir: config.dataDir });
    let queueRef: QueueService | null = null;
    const scheduler = new SchedulerService({
      settings,
      bus,
      logger: logger.child({ actor: 'scheduler' }),
      ...(options.schedulerProvider ? { provider: options.schedulerProvider } : {}),
      onPause: (paused) => queueRef?.setSchedulerPaused(paused),
    });
    const schedulerPaused = await scheduler.initialPause().catch((err: unknown) => {
      logger.error({ err }, 'first scheduler check failed');
      return false;
    });
    const queue = await QueueService.start({
      store: store.api,
      settings,
      bus,
      logger: logger.child({ actor: 'queue' }),
      processor,
      schedulerPaused,
      ...(options.queueFlushIntervalMs !== undefined ? { flushIntervalMs: options.queueFlushIntervalMs } : {}),
    });
    queueRef = queue;
    stack.push(() => queue.close());
    scheduler.start();
    stack.push(() => scheduler.stop());
    const watch = await WatchService.start({
      store: store.api,
      jobs,
      filters,
      indexing,
      queue,
      processor,
      bus,
      logger: logger.child({ actor: 'watch' }),
      ownDataDir: config.dataDir,
      ...(options.watcherTuning ? { watcherTuning: options.watcherTuning } : {}),
    });
    stack.push(() => watch.close());
    status.register('watcher', () => watch.health());
    status.register('queue', () => ({ ok: true, ...queue.status() }));
    status.register('scheduler', () => {
      const c = scheduler.config;
      return { ok: true, enabled: c.enabled, paused_queue: scheduler.paused, combine_mode: c.combine_mode, rules: c.rules.length, check_interval_seconds: c.check_interval_seconds };
    });
    status.register('worker_pool', () => {
      const s = pool.stats();
      return { ok: true, threads: s.threads, max_threads: s.maxThreads, queued_tasks: s.queued, completed_tasks: s.completed, utilization: s.utilization, active_runs: indexing.activeRuns.length };
    });

    // Queries are embedded on a lane of their own, always with the model the index is built with.
    const queryLanes = new QueryLanes({ active: () => embedders.active, logger: logger.child({ actor: 'search' }) });
    queryLanes.current(); // start loading now, not at the first search
    stack.push(() => queryLanes.close());
    const search = new SearchService({ store: store.api, settings, logger: logger.child({ actor: 'search' }), embedder: () => queryLanes.current() });

    const { app, sessions } = createApp({
      config,
      logger,
      bus,
      settings,
      status,
      store: store.api,
      filters,
      filterEditor,
      jobs,
      indexing,
      watch,
      queue,
      scheduler,
      search,
      sseHeartbeatMs: options.sseHeartbeatMs,
    });

    stack.push(async () => {
      await modelPull?.stop();
      await embedders.close();
    });

    const server = await listen(app.callback(), config.host, config.port);
    stack.push(() => closeServer(server, () => sessions.closeAll()));
    const port = (server.address() as AddressInfo).port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    bus.publish('service_started', { version: config.version, engine: store.engine });
    // In the background, after start-up: probe a transformer, re-embed files of another model, fetch the model.
    const embedderReady = embedders.start().catch((err: unknown) => logger.error({ err }, 'embedder start-up check failed'));
    embedders.watch(options.modelCheckIntervalMs ?? 60_000);
    modelPull?.start();
    // Watch every active job again and catch up on what changed while the service was down.
    watch.reconcileAll();
    logger.info({ url, engine: store.engine, location: store.location, dataDir: config.dataDir }, 'filesift is listening');

    let closing: Promise<void> | null = null;
    return {
      url,
      port,
      bus,
      settings,
      store,
      pool,
      indexing,
      embedders,
      embedderReady,
      modelPull,
      watch,
      queue,
      scheduler,
      logger,
      close(reason = 'shutdown') {
        closing ??= (async () => {
          logger.info({ reason }, 'filesift is stopping');
          bus.publish('service_stopping', { reason });
          await unwind(stack, logger);
        })();
        return closing;
      },
    };
  } catch (err) {
    await unwind(stack, logger);
    throw err;
  }
}

/**
 * FILESIFT_MODEL_PULL=auto: a background download of the default model into the data directory, when no model
 * folder was configured and the default one has no model yet. Null when there is nothing to download.
 */
function autoModelPull(config: ServiceConfig, bus: EventBus, logger: Logger, onPulled: () => Promise<unknown>): AutoModelPull | null {
  if (config.modelPull !== 'auto') return null;
  if (config.modelDir) {
    logger.info({ modelDir: config.modelDir }, 'FILESIFT_MODEL_DIR is set: no automatic model download');
    return null;
  }
  const dir = defaultModelDir(config.dataDir);
  if (isTransformerDir(dir)) return null;
  const plan = pullPlan({ variant: config.modelVariant, baseUrl: config.modelBaseUrl, manifest: config.modelManifest });
  if (!plan.ok) {
    logger.error({ reason: plan.reason }, 'automatic model download not possible');
    return null;
  }
  return new AutoModelPull({ dir, plan: plan.plan, bus, logger: logger.child({ actor: 'model-pull' }), onPulled });
}

/** Stops what was started, newest first; one failure does not keep the rest open. */
async function unwind(stack: (() => Promise<void>)[], logger: Logger): Promise<void> {
  while (stack.length > 0) {
    const stop = stack.pop()!;
    try {
      await stop();
    } catch (err) {
      logger.error({ err }, 'error while stopping');
    }
  }
}

async function listen(handler: RequestListener, host: string, port: number): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

async function closeServer(server: Server, endStreams: () => void): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  endStreams();
  server.closeIdleConnections();
  // Requests in flight get a moment to finish; then the remaining connections are cut.
  const timer = setTimeout(() => server.closeAllConnections(), 5000);
  await closed;
  clearTimeout(timer);
}
