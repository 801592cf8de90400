import type { ActiveEmbedder } from './resolve.js';
import type { Logger } from '../logger.js';
import { IdleTimer } from '../lib/idle-timer.js';
import { QueryEmbedder } from './query-embedder.js';

/** The query embedder to use now, or why semantic search is unavailable. */
export type QueryLane = { embedder: QueryEmbedder } | { embedder: null; reason: string };

export interface QueryLanesDeps {
  /** The embedder the index is being built with (EmbedderManager.active): queries must use the same model. */
  active: () => ActiveEmbedder;
  logger: Logger;
  /** How long the lane's thread is kept after its last search (default QUERY_LANE_IDLE_MS). */
  idleMs?: number;
}

/**
 * A lane unused this long ends its thread, which holds its own copy of the model (measured with the snippet
 * thread's end, on a 1,060-file index: 536 → 458 MB RSS); the next search starts it again (that search answered
 * in 371 ms instead of 130).
 */
export const QUERY_LANE_IDLE_MS = 5 * 60_000;

/**
 * Keeps the query lane on the model the index uses. The lane's thread loads in the background; a search that
 * arrives meanwhile waits for it. When the active embedder changes (a model pulled, removed, or failing to load),
 * the next search starts a lane on the new model and the old one closes once its queries in flight are answered.
 */
export class QueryLanes {
  #key: string | null = null;
  #lane: Promise<QueryLane> | null = null;
  #closed = false;
  #starts = 0;
  /** Ends an unused lane; its queries in flight are answered first (#closeLane). */
  readonly #idle: IdleTimer;

  constructor(private readonly deps: QueryLanesDeps) {
    this.#idle = new IdleTimer(deps.idleMs ?? QUERY_LANE_IDLE_MS, () => {
      const lane = this.#lane;
      this.#lane = null;
      this.#key = null;
      if (lane) QueryLanes.#closeLane(lane).catch((err: unknown) => this.deps.logger.warn({ err }, 'the idle query lane did not close cleanly'));
    });
  }

  /** The lane for the active embedder (started now if the embedder changed since the last call). */
  current(): Promise<QueryLane> {
    if (this.#closed) return Promise.resolve({ embedder: null, reason: 'the service is stopping' });
    const active = this.deps.active();
    const key = `${active.identity ?? ''}\0${active.modelDir ?? ''}`;
    if (this.#lane === null || key !== this.#key) {
      const previous = this.#lane;
      this.#key = key;
      this.#lane = this.#start(active);
      this.#starts++;
      if (previous) {
        QueryLanes.#closeLane(previous).catch((err: unknown) => this.deps.logger.warn({ err }, 'the previous query lane did not close cleanly'));
      }
    }
    this.#idle.arm();
    return this.#lane;
  }

  /** Whether a lane is started, and how many were so far (tests). */
  get started(): boolean {
    return this.#lane !== null;
  }

  get starts(): number {
    return this.#starts;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#idle.cancel();
    const lane = this.#lane;
    this.#lane = null;
    if (lane) await QueryLanes.#closeLane(lane);
  }

  #start(active: ActiveEmbedder): Promise<QueryLane> {
    const { description } = active;
    if (!description.ok) return Promise.resolve({ embedder: null, reason: description.reason });
    return QueryEmbedder.start({ modelDir: active.modelDir, builtinDir: active.builtinDir }).then(
      (embedder): QueryLane => ({ embedder }),
      (err: unknown): QueryLane => {
        this.deps.logger.error({ err }, 'the query embedder failed to load: search is keyword-only');
        return { embedder: null, reason: `the embedding model failed to load (${err instanceof Error ? err.message : String(err)})` };
      },
    );
  }

  static async #closeLane(lane: Promise<QueryLane>): Promise<void> {
    const { embedder } = await lane;
    await embedder?.close();
  }
}
