/**
 * The embedding model's life on the main thread, in one place: which embedder is active and switching it when
 * the model folder changes (manager.ts, resolve.ts), the automatic download (auto-pull.ts), the query lanes
 * that embed search text with the same model (query-lanes.ts), and the re-embedding a change calls for (done by
 * the indexing service, reported here). The code that runs a model inside the threads is pipeline/embedders/.
 */
import type { ServiceConfig } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { IndexRun } from '../indexing/run.js';
import type { Logger } from '../logger.js';
import { isTransformerDir } from '../pipeline/embedders/index.js';
import type { PipelinePool } from '../pipeline/pool.js';
import type { ComponentHealth } from '../status/status.service.js';
import { AutoModelPull } from './auto-pull.js';
import { EmbedderManager } from './manager.js';
import { pullPlan } from './pull-plan.js';
import { QueryLanes, type QueryLane } from './query-lanes.js';
import { defaultModelDir, type ActiveEmbedder } from './resolve.js';
import { embedderStatus } from './status.js';

/** Who re-embeds the index with the active model (the indexing service). */
export interface Reembedder {
  /** Starts re-embedding the files another model embedded; null when there are none. */
  startReembed(): Promise<IndexRun | null>;
}

export interface ModelServiceDeps {
  config: ServiceConfig;
  /** The pipeline threads, started with `initial`'s location. */
  pool: PipelinePool;
  /** The embedder resolved at start-up (resolveEmbedder). */
  initial: ActiveEmbedder;
  bus: EventBus;
  logger: Logger;
  /** How long the query lane's thread is kept after its last search (default QUERY_LANE_IDLE_MS). */
  queryLaneIdleMs?: number;
}

export class ModelService {
  readonly #manager: EmbedderManager;
  readonly #pull: AutoModelPull | null;
  readonly #lanes: QueryLanes;
  #reembedder: Reembedder | null = null;
  #reembed: IndexRun | null = null;
  #ready: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ModelServiceDeps) {
    const { config, pool, bus, logger } = deps;
    this.#manager = new EmbedderManager(
      { config, pool, bus, logger: logger.child({ actor: 'embedder' }), onChange: () => this.#reembedAll() },
      deps.initial,
    );
    this.#pull = autoModelPull(config, bus, logger, () => this.#manager.refresh('the model was downloaded'));
    // Queries are embedded on a lane of their own, always with the model the index is built with.
    this.#lanes = new QueryLanes({
      active: () => this.#manager.active,
      logger: logger.child({ actor: 'search' }),
      ...(deps.queryLaneIdleMs !== undefined ? { idleMs: deps.queryLaneIdleMs } : {}),
    });
    // The lane loads at the first search (which waits for it, ~1 s for the built-in model), not at every start:
    // most starts are a restart at login with nothing to search yet, and the lane holds its own model in memory;
    // for the same reason it ends after a while without searches.
  }

  /** The embedder the index is built with (identity and dimension null when there is none). */
  get active(): ActiveEmbedder {
    return this.#manager.active;
  }

  /** The automatic download (FILESIFT_MODEL_PULL=auto), when one was planned. */
  get pull(): AutoModelPull | null {
    return this.#pull;
  }

  /** Resolves when the start-up checks are done (a transformer probed, a re-embed started). */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** The query lane of the active embedder (waiting while it loads), or why semantic search is unavailable. */
  queryLane(): Promise<QueryLane> {
    return this.#lanes.current();
  }

  /** Whether the query lane's thread is started, and how many lanes were started so far (tests). */
  get queryLaneStarted(): boolean {
    return this.#lanes.started;
  }

  get queryLaneStarts(): number {
    return this.#lanes.starts;
  }

  /**
   * In the background, after start-up: probes a transformer, re-embeds files of another model with `reembedder`,
   * looks at the model folder every `checkIntervalMs` (0: never) and starts the automatic download.
   */
  start(reembedder: Reembedder, checkIntervalMs: number): void {
    this.#reembedder = reembedder;
    this.#ready = this.#manager.start().catch((err: unknown) => this.deps.logger.error({ err }, 'embedder start-up check failed'));
    this.#manager.watch(checkIntervalMs);
    this.#pull?.start();
  }

  /** The `embedder` component of GET /api/status/. */
  health(): ComponentHealth {
    return embedderStatus(this.deps.config, this.#manager, this.#reembed, this.#pull);
  }

  async close(): Promise<void> {
    await this.#pull?.stop();
    await this.#manager.close();
    await this.#lanes.close();
  }

  async #reembedAll(): Promise<void> {
    if (!this.#reembedder) return;
    try {
      const run = await this.#reembedder.startReembed();
      if (run) this.#reembed = run;
    } catch (err) {
      this.deps.logger.error({ err }, 'cannot start re-embedding');
    }
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
  const dir = defaultModelDir(config.dataDir, config.model);
  if (isTransformerDir(dir)) return null;
  const plan = pullPlan({ model: config.model, variant: config.modelVariant, baseUrl: config.modelBaseUrl, manifest: config.modelManifest });
  if (!plan.ok) {
    logger.error({ reason: plan.reason }, 'automatic model download not possible');
    return null;
  }
  return new AutoModelPull({ dir, plan: plan.plan, bus, logger: logger.child({ actor: 'model-pull' }), onPulled });
}
