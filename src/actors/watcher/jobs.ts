import { findRoot } from '../../filters/paths.js';
import type { StoreApi } from '../../store/store.js';
import type { WatchJob } from '../../store/repositories/jobs.repository.js';

/**
 * The watched directories, kept in memory for the hot questions every file event asks: which job does this
 * path belong to, and which roots anchor the filters.
 */
export class WatchJobs {
  #jobs: WatchJob[] = [];

  private constructor(private readonly store: StoreApi) {}

  static async load(store: StoreApi): Promise<WatchJobs> {
    const service = new WatchJobs(store);
    await service.refresh();
    return service;
  }

  async refresh(): Promise<void> {
    this.#jobs = await this.store.jobs.list();
  }

  list(): WatchJob[] {
    return this.#jobs.map((j) => ({ ...j }));
  }

  /** Roots of the active jobs. */
  roots(): string[] {
    return this.#jobs.filter((j) => j.is_active).map((j) => j.path);
  }

  /** The active job whose directory is the deepest one containing the path, or null. */
  jobFor(absolutePath: string): WatchJob | null {
    const found = findRoot(this.roots(), absolutePath);
    return found ? (this.#jobs.find((j) => j.path === found.root) ?? null) : null;
  }
}
