import type { ServiceConfig } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { FilterEditor } from '../filters/filter-editor.js';
import type { FilterService } from '../filters/filter.service.js';
import type { IndexingService } from '../indexing/indexing.service.js';
import type { JobsService } from '../jobs/jobs.service.js';
import type { Logger } from '../logger.js';
import type { SearchService } from '../search/search.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { StatusService } from '../status/status.service.js';
import type { StoreApi } from '../store/store.js';
import type { QueueService } from '../queue/queue.service.js';
import type { SchedulerService } from '../scheduler/scheduler.service.js';
import type { WatchService } from '../watch/watch.service.js';

/** What the HTTP layer may talk to: actors and services (the store actor for read-only lookups). */
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
  jobs: JobsService;
  indexing: IndexingService;
  search: SearchService;
  watch: WatchService;
  queue: QueueService;
  scheduler: SchedulerService;
  /** Interval of the SSE heartbeat comment (default 15 s; tests shorten it). */
  sseHeartbeatMs?: number;
}
