import type { ServiceConfig } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { StatusService } from '../status/status.service.js';

/** What the HTTP layer may talk to: actors and services, never the database directly. */
export interface AppDeps {
  config: ServiceConfig;
  logger: Logger;
  bus: EventBus;
  settings: SettingsService;
  status: StatusService;
  /** Interval of the SSE heartbeat comment (default 15 s; tests shorten it). */
  sseHeartbeatMs?: number;
}
