import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IndexingProcessor } from './actors/queue/processor.js';
import { QueueService } from './actors/queue/queue.service.js';
import type { ReadingsProvider } from './actors/scheduler/readings.js';
import { SchedulerService } from './actors/scheduler/scheduler.service.js';
import { WatchJobs } from './actors/watcher/jobs.js';
import type { WatcherTuning } from './actors/watcher/protocol.js';
import { WatcherService } from './actors/watcher/watcher.service.js';
import type { ServiceConfig } from './config.js';
import { EventBus } from './events/bus.js';
import { FilterEditor } from './filters/filter-editor.js';
import { FilterService } from './filters/filter.service.js';
import { FilterRunner } from './indexing/filter-runner.js';
import { Indexer } from './indexing/indexer.js';
import { IndexingService } from './indexing/indexing.service.js';
import { IndexUpkeep } from './indexing/upkeep.js';
import { OwnDataDir } from './lib/paths.js';
import { createLogger, type Logger } from './logger.js';
import { everyMemorySample } from './lib/thread-memory.js';
import { ModelService } from './models/model.service.js';
import { resolveEmbedder } from './models/resolve.js';
import { PipelinePool, type PipelinePoolOptions } from './pipeline/pool.js';
import { SearchService } from './search/search.service.js';
import { SnippetLane } from './search/snippet-lane.js';
import { SettingsService } from './settings/settings.service.js';
import { StatusService } from './status/status.service.js';
import { spawnStore, type StoreHandle } from './store/spawn.js';
import { beginService, type Begun } from './service-start.js';

export interface Service {
  /** Base URL the service listens on, e.g. http://127.0.0.1:60534 */
  url: string;
  port: number;
  bus: EventBus;
  settings: SettingsService;
  store: StoreHandle;
  pool: PipelinePool;
  indexing: IndexingService;
  /** The index's background upkeep (sealing keyword blocks, statistics). */
  upkeep: IndexUpkeep;
  /** The embedding model: the active embedder, its download, the query lanes (`models.ready`: start-up checks done). */
  models: ModelService;
  watcher: WatcherService;
  queue: QueueService;
  scheduler: SchedulerService;
  /** The thread that cuts result snippets and preview highlights. */
  snippets: SnippetLane;
  /** Hybrid search (the HTTP routes' own instance). */
  search: SearchService;
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
  /** Test seam: other heap limits for the pipeline threads (a small one makes a big file run out). */
  pipelineHeapLimits?: PipelinePoolOptions['heapLimits'];
  /** How often the model folder is checked for a model added or removed while running (default 60 s; 0 = never). */
  modelCheckIntervalMs?: number;
  /** Test seam: where the scheduler's readings come from (default: this machine). */
  schedulerProvider?: ReadingsProvider;
  /** Test seam: watcher batching, rename pairing, polling interval, a simulated watch-limit error. */
  watcherTuning?: Partial<WatcherTuning>;
  /** How long queue changes may wait before they are written (default 250 ms). */
  queueFlushIntervalMs?: number;
  /** Test seam: how long the query embedder's and the snippet threads are kept after their last search (default 5 min). */
  laneIdleMs?: number;
  /** The lock, the port and PGlite's thread, begun before this module loaded (src/cli.ts); begun here when absent. */
  begun?: Promise<Begun>;
}

/**
 * The composition root: starts the store, the services and the actors in dependency order, each given what it
 * needs (nothing refers to something started later), then the HTTP front end; the watched folders are watched
 * and reconciled from the moment the watcher exists, model checks begin once the service listens.
 */
export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const startedAt = Date.now();
  // Start-up phases, in ms since the process began (module loading comes before this line): logged once idle.
  const phases: Record<string, number> = { modules_loaded_ms: Math.round(performance.now()) };
  // The lock, the port and PGlite's thread: begun by the CLI before this module loaded, else here.
  const begun = await (options.begun ?? beginService(config));
  const { lock, server } = begun;
  const stack: (() => Promise<void>)[] = [() => lock.release()];
  let sessions: { closeAll(): void } | null = null;
  const stopServer = () => closeServer(server, () => sessions?.closeAll());
  try {
    // The HTTP front end (Koa, the routes and their schemas: most of the modules a start loads) loads on this
    // thread while the store opens on its own; it is needed only once the services exist.
    const httpModule = import('./http/app.js');
    httpModule.catch(() => undefined); // a failure is thrown where it is awaited, below
    const store = await spawnStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      sharedBuffersMb: config.sharedBuffersMb,
      logger,
      ...(begun.storeThread ? { thread: begun.storeThread } : {}),
    });
    stack.push(() => store.close());
    phases.store_open_ms = Math.round(performance.now());
    const ownData = new OwnDataDir(config.dataDir);
    const bus = new EventBus({ replayCapacity: options.eventReplayCapacity ?? 1000 });
    const settings = await SettingsService.load(store.api.config, logger.child({ actor: 'settings' }), bus);
    const filters = await FilterService.load(store.api.config, logger.child({ actor: 'filters' }));
    const jobs = await WatchJobs.load(store.api);

    // The pipeline threads, and the embedding model they (and search queries) use.
    const embedder = resolveEmbedder(config);
    if (!embedder.description.ok) logger.warn({ reason: embedder.description.reason }, 'no embedder: search will be keyword-only');
    const pool = new PipelinePool({
      ...(options.pipelineWorker ? { workerFile: options.pipelineWorker } : {}),
      ...(options.pipelineHeapLimits ? { heapLimits: options.pipelineHeapLimits } : {}),
      threads: settings.get().queue.max_concurrency,
      modelDir: embedder.modelDir,
      builtinDir: embedder.builtinDir,
    });
    stack.push(() => pool.close());
    settings.subscribe((next, keys) => {
      if (keys.includes('queue.max_concurrency')) void pool.resize(next.queue.max_concurrency);
    });
    const models = new ModelService({ config, pool, initial: embedder, bus, logger, ...(options.laneIdleMs !== undefined ? { queryLaneIdleMs: options.laneIdleMs } : {}) });
    stack.push(() => models.close());

    // Indexing: the per-file flow, the runs, the index's upkeep after them, and filter changes brought to the index.
    const upkeep = new IndexUpkeep({ store: store.api, logger: logger.child({ actor: 'upkeep' }) });
    stack.push(() => upkeep.close());
    // Its periodic check looks for work only while runs go on (the queue's included) or after one: at rest it
    // leaves the database, and the store's thread, alone.
    const unsubscribeUpkeep = bus.subscribe((event) => {
      if (event.type === 'index_run_started') upkeep.runStarted();
      else if (event.type === 'index_run_completed') upkeep.runEnded();
    });
    stack.push(async () => {
      unsubscribeUpkeep();
    });
    const indexer = new Indexer({
      store: store.api,
      pool,
      settings,
      bus,
      logger: logger.child({ actor: 'indexer' }),
      embeddingModel: () => models.active.identity,
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
      ownData,
      embeddingModel: () => models.active.identity,
      upkeep,
    });
    stack.push(() => indexing.close());
    const filterRunner = new FilterRunner({ filters, jobs, files: store.api.files, indexing, logger: logger.child({ actor: 'filters' }), ownData });
    const filterEditor = new FilterEditor({ filters, applier: filterRunner, jobs, bus });

    // The actors. The scheduler's first decision comes before the queue starts, so a restart never processes
    // items the scheduler would hold; its later decisions reach the queue through the subscription.
    const scheduler = new SchedulerService({
      settings,
      bus,
      logger: logger.child({ actor: 'scheduler' }),
      ...(options.schedulerProvider ? { provider: options.schedulerProvider } : {}),
    });
    const schedulerPaused = await scheduler.initialPause().catch((err: unknown) => {
      logger.error({ err }, 'first scheduler check failed');
      return false;
    });
    const processor = new IndexingProcessor({ indexer, filters, jobs, bus, ownData, logger: logger.child({ actor: 'queue' }) });
    const queue = await QueueService.start({
      store: store.api,
      settings,
      bus,
      logger: logger.child({ actor: 'queue' }),
      processor,
      schedulerPaused,
      ...(options.queueFlushIntervalMs !== undefined ? { flushIntervalMs: options.queueFlushIntervalMs } : {}),
    });
    stack.push(() => queue.close());
    const unsubscribe = scheduler.subscribe((paused) => queue.setSchedulerPaused(paused));
    scheduler.start();
    stack.push(async () => {
      unsubscribe();
      await scheduler.stop();
    });
    const watcher = await WatcherService.start({
      store: store.api,
      jobs,
      filters,
      indexing,
      queue,
      processor,
      bus,
      logger: logger.child({ actor: 'watch' }),
      ownData,
      ...(options.watcherTuning ? { watcherTuning: options.watcherTuning } : {}),
    });
    stack.push(() => watcher.close());
    // Every active job is watched again, and then diffed against the disk (files changed while the service was
    // down, or since it started, are caught up): begun now, so the watcher's thread lists the folders while this
    // one builds the HTTP front end.
    const reconcile = watcher.reconcileAll(startedAt);
    let listened = (): void => undefined;
    void logStartUpPhases(logger, phases, reconcile, new Promise<void>((resolve) => (listened = resolve)));

    const snippets = SnippetLane.start(options.laneIdleMs);
    stack.push(() => snippets.close());
    const search = new SearchService({ store: store.api, settings, logger: logger.child({ actor: 'search' }), embedder: () => models.queryLane(), snippets });
    const status = new StatusService(store, config.version, { embedder: models, worker_pool: indexing, watcher, queue, scheduler }, () => watcher.ready);
    const { createApp } = await httpModule;
    const http = createApp({
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
      watcher,
      queue,
      scheduler,
      search,
      snippets,
      ownData,
      sseHeartbeatMs: options.sseHeartbeatMs,
    });
    sessions = http.sessions;
    begun.serve(http.app.callback());

    const port = (server.address() as AddressInfo).port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    lock.setUrl(url);
    bus.publish('service_started', { version: config.version, engine: store.engine });
    // In the background, after start-up: probe a transformer, re-embed files of another model, fetch the model.
    models.start(indexing, options.modelCheckIntervalMs ?? 60_000);
    phases.listening_ms = Math.round(performance.now());
    logger.info({ url, engine: store.engine, location: store.location, dataDir: config.dataDir }, 'filesift is listening');
    listened();
    if (config.memoryLogMs !== null) {
      const stopMemoryLog = everyMemorySample(config.memoryLogMs, (sample) => logger.info(sample, 'memory'));
      stack.push(async () => stopMemoryLog());
      // The same diagnostics say, as the service stops, what the store's calls cost over its life (bench:corpus
      // prints it): which call to cut, by the store thread's own time.
      stack.push(async () => logger.info({ calls: await store.calls() }, 'store calls'));
    }

    let closing: Promise<void> | null = null;
    return {
      url,
      port,
      bus,
      settings,
      store,
      pool,
      indexing,
      upkeep,
      models,
      watcher,
      queue,
      scheduler,
      snippets,
      search,
      logger,
      close(reason = 'shutdown') {
        closing ??= (async () => {
          logger.info({ reason }, 'filesift is stopping');
          bus.publish('service_stopping', { reason });
          // No new requests first; then the actors, newest first; the data directory's lock last.
          await stopServer().catch((err: unknown) => logger.error({ err }, 'error while stopping the HTTP server'));
          await unwind(stack, logger);
        })();
        return closing;
      },
    };
  } catch (err) {
    await stopServer().catch(() => undefined);
    await unwind(stack, logger);
    throw err;
  }
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

async function closeServer(server: Server, endStreams: () => void): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  endStreams();
  server.closeIdleConnections();
  // Requests in flight get a moment to finish; then the remaining connections are cut.
  const timer = setTimeout(() => server.closeAllConnections(), 5000);
  await closed;
  clearTimeout(timer);
}

/**
 * One info line once every watched folder is watched and reconciled and the service listens: where the start went,
 * phase by phase (ms since the process began, each taken when it happened), and the process's CPU seconds so far
 * (all its threads), so a slow start shows which phase grew.
 */
async function logStartUpPhases(
  logger: Logger,
  phases: Record<string, number>,
  reconcile: { watching: Promise<void>; reconciled: Promise<void> },
  listening: Promise<void>,
): Promise<void> {
  await reconcile.watching;
  phases.watching_ms = Math.round(performance.now());
  await reconcile.reconciled;
  phases.reconciled_ms = Math.round(performance.now());
  await listening;
  const cpu = process.cpuUsage();
  logger.info({ ...phases, cpu_seconds: Math.round((cpu.user + cpu.system) / 1e4) / 100 }, 'start-up phases: watched folders watched and reconciled');
}
