/** Builds a started queue on the port fakes and tears it down after each test. */
import { createQueue, type QueueApi, type QueueOptions } from '../../../src/actors/queue/queue.js';
import type { QueueEvent, QueueItem, QueueSettings } from '../../../src/actors/queue/types.js';
import { ControlledProcessor, FakeClock, MemoryPersistence } from './fakes.js';

export interface Harness {
  queue: QueueApi;
  clock: FakeClock;
  persistence: MemoryPersistence;
  processor: ControlledProcessor;
  events: QueueEvent[];
  errors: unknown[];
}

const live: Harness[] = [];

export const BASE_SETTINGS = { cooldownSeconds: 5, maxConcurrency: 2, maxRetries: 3 };

export type HarnessOptions = Omit<Partial<QueueOptions>, 'settings' | 'persistence' | 'clock'> & {
  settings?: Partial<QueueSettings>;
  persistence?: MemoryPersistence;
  clock?: FakeClock;
};

/** A started queue on fakes; BASE_SETTINGS unless overridden. `processor` is the queue's unless one is given. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = options.clock ?? new FakeClock();
  const persistence = options.persistence ?? new MemoryPersistence();
  const processor = options.processor instanceof ControlledProcessor ? options.processor : new ControlledProcessor();
  const events: QueueEvent[] = [];
  const errors: unknown[] = [];
  const queue = createQueue({
    processor,
    onEvent: (event) => events.push(event),
    onError: (error) => errors.push(error),
    ...options,
    settings: { ...BASE_SETTINGS, ...options.settings },
    persistence,
    clock,
  });
  await queue.start();
  const harness = { queue, clock, persistence, processor, events, errors };
  live.push(harness);
  return harness;
}

/** Finishes whatever is still processing and closes every queue a test started. */
export async function closeHarnesses(): Promise<void> {
  for (const harness of live.splice(0)) {
    const closing = harness.queue.close();
    await harness.processor.finishAll();
    await closing;
  }
}

/** Items as short strings, sorted: "index /w/a", "move /w/a -> /w/b". */
export function summary(items: QueueItem[]): string[] {
  return items
    .map((item) => (item.dest_path === null ? `${item.action} ${item.file_path}` : `${item.action} ${item.file_path} -> ${item.dest_path}`))
    .sort();
}

export function eventTypes(events: QueueEvent[]): string[] {
  return events.map((event) => event.type);
}
