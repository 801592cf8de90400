/** The queue actor's interface and construction options. */
import type { FlushResult } from './persist-buffer.js';
import type {
  QueueClock,
  QueueEvent,
  QueueFileEvent,
  QueueItem,
  QueuePersistence,
  QueuePersistenceOptions,
  QueueProcessor,
  QueueSettings,
  QueueStatus,
  StoredQueueItem,
} from './types.js';

export interface QueueOptions {
  persistence: QueuePersistence;
  processor: QueueProcessor;
  /** cooldownSeconds, maxConcurrency and maxRetries are required; the retry delays have defaults. */
  settings: Pick<QueueSettings, 'cooldownSeconds' | 'maxConcurrency' | 'maxRetries'> & Partial<QueueSettings>;
  onEvent?: (event: QueueEvent) => void;
  /** Unexpected trouble that must not stop the queue: a throwing processor or listener, a failed write. */
  onError?: (error: unknown, context: string) => void;
  clock?: QueueClock;
  persistenceOptions?: Partial<QueuePersistenceOptions>;
  /** Pause flags to start with (the service keeps the manual flag across restarts, if it wants). */
  manuallyPaused?: boolean;
  schedulerPaused?: boolean;
}

export interface QueueApi {
  /** Loads the persisted items (`processing` comes back `ready`) and starts scheduling. Call once. */
  start(): Promise<void>;
  /** Adds or coalesces one file event. False once the queue is closing. */
  enqueue(event: QueueFileEvent): boolean;
  /** Same for many events; returns how many were taken. */
  enqueueMany(events: readonly QueueFileEvent[]): number;
  /** Manual pause (POST /api/queue/pause); answers the new status. */
  pause(): QueueStatus;
  /** Clears the manual pause; the queue stays paused while the scheduler pauses it. */
  resume(): QueueStatus;
  setSchedulerPaused(paused: boolean): QueueStatus;
  status(): QueueStatus;
  /** All items in the queue, oldest first, in the API's shape. */
  items(): QueueItem[];
  /** One item with its internal fields, or undefined. */
  get(id: string): StoredQueueItem | undefined;
  /** Removes an item; one that is processing has its signal aborted. False when there is no such item. */
  remove(id: string): boolean;
  /** Removes every item the predicate accepts; returns how many. */
  removeWhere(predicate: (item: StoredQueueItem) => boolean): number;
  /** Removes the items whose path (or move destination) lies in `directory`; returns how many. */
  removeUnder(directory: string): number;
  /** Applies settings live; answers the full settings. Throws naming a bad field. */
  updateSettings(changes: Partial<QueueSettings>): QueueSettings;
  settings(): QueueSettings;
  /** Writes pending changes to the persistence port now. */
  flush(): Promise<FlushResult>;
  /** Starts nothing new, waits for the items in flight, writes everything. The queue is done afterwards. */
  close(): Promise<void>;
}
