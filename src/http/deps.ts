import type { QueueService } from '../actors/queue/queue.service.js';
import type { SchedulerService } from '../actors/scheduler/scheduler.service.js';
import type { WatchJobs } from '../actors/watcher/jobs.js';
import type { WatcherService } from '../actors/watcher/watcher.service.js';
import type { ServiceConfig } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { FilterEditor } from '../filters/filter-editor.js';
import type { FilterService } from '../filters/filter.service.js';
import type { IndexingService } from '../indexing/indexing.service.js';
import type { OwnDataDir } from '../lib/paths.js';
import type { Logger } from '../logger.js';
import type { SearchService } from '../search/search.service.js';
import type { SnippetLane } from '../search/snippet-lane.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { StatusService } from '../status/status.service.js';
import type { StoreApi } from '../store/store.js';

/** What the HTTP layer may talk to: actors and services (the store for read-only lookups). */
export interface AppDeps {
  config: ServiceConfig;
  logger: Logger;
  bus: EventBus;
  settings: SettingsService;
  status: StatusService;
  store: StoreApi;
  filters: FilterService;
  /** Changes to the filter configuration and their application to the index. */
  filterEditor: FilterEditor;
  jobs: WatchJobs;
  indexing: IndexingService;
  search: SearchService;
  /** Preview highlights are found on its thread. */
  snippets: SnippetLane;
  watcher: WatcherService;
  queue: QueueService;
  scheduler: SchedulerService;
  /** filesift's own data directory: refused wherever a path comes in. */
  ownData: OwnDataDir;
  /** Interval of the SSE heartbeat comment (default 15 s; tests shorten it). */
  sseHeartbeatMs?: number;
}
