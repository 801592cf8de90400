/**
 * Turns a batch of watcher events into queue items (in order) and file events for clients. The job of a path
 * is looked up now (the deepest active job containing it): an event for a path no job covers any more (its
 * job was deleted while the event was on its way) is dropped.
 */
import type { QueueFileEvent } from '../queue/types.js';
import type { WatcherEvent, WatchMode } from './protocol.js';
import type { EventBus } from '../../events/bus.js';
import type { WatchJobs } from './jobs.js';
import type { StoreApi } from '../../store/store.js';
import { readKnownUnder } from '../../store/repositories/known-under.js';

export interface RouteDeps {
  jobs: Pick<WatchJobs, 'jobFor'>;
  store: Pick<StoreApi, 'files'>;
  bus: EventBus;
  enqueue: (events: QueueFileEvent[]) => void;
  onMode: (jobId: number, mode: WatchMode, reason: string) => void;
  onError: (jobId: number, code: string, message: string) => void;
}

export async function routeWatcherEvents(events: readonly WatcherEvent[], deps: RouteDeps): Promise<void> {
  const { bus } = deps;
  let pending: QueueFileEvent[] = [];
  const flush = () => {
    if (pending.length > 0) deps.enqueue(pending);
    pending = [];
  };
  const jobOf = (p: string) => deps.jobs.jobFor(p)?.id ?? null;

  for (const event of events) {
    switch (event.type) {
      case 'add':
      case 'change': {
        const jobId = jobOf(event.path);
        if (jobId === null) break;
        pending.push({ path: event.path, action: 'index', jobId });
        bus.publish(event.type === 'add' ? 'file_created' : 'file_modified', { job_id: jobId, path: event.path });
        break;
      }
      case 'unlink': {
        const jobId = jobOf(event.path);
        if (jobId === null) break;
        pending.push({ path: event.path, action: 'delete', jobId });
        bus.publish('file_deleted', { job_id: jobId, path: event.path });
        break;
      }
      case 'move': {
        const from = jobOf(event.path);
        const to = jobOf(event.dest);
        if (from !== null && to !== null) {
          pending.push({ path: event.path, action: 'move', destPath: event.dest, jobId: to });
          bus.publish('file_moved', { job_id: from, path: event.path, dest_path: event.dest, dest_job_id: to });
        } else if (to !== null) {
          pending.push({ path: event.dest, action: 'index', jobId: to });
          bus.publish('file_created', { job_id: to, path: event.dest });
        } else if (from !== null) {
          pending.push({ path: event.path, action: 'delete', jobId: from });
          bus.publish('file_deleted', { job_id: from, path: event.path });
        }
        break;
      }
      case 'unlinkDir': {
        // Every indexed file under the folder leaves, whether or not the watcher reported each one.
        const jobId = jobOf(event.path);
        if (jobId === null) break;
        flush(); // keep the order: events before the folder went are queued first
        const known = await readKnownUnder(deps.store.files, event.path);
        for (const file of known) pending.push({ path: file.path, action: 'delete', jobId });
        bus.publish('folder_deleted', { job_id: jobId, path: event.path, files: known.length });
        break;
      }
      case 'mode':
        deps.onMode(event.jobId, event.mode, event.reason);
        break;
      case 'error':
        bus.publish('watch_error', { job_id: event.jobId, path: event.path, code: event.code, error: event.message });
        deps.onError(event.jobId, event.code, event.message);
        break;
    }
  }
  flush();
}
