/**
 * A model of the disk and the index to check the queue against. File operations change the model disk and
 * send the matching event; the processor applies each item to the model index strictly (an index reads the
 * disk when it starts and needs the file; a move relocates the source's record, which must exist; nothing
 * checks content hashes). If coalescing, ordering or retries ever lose or reorder a change, the index ends
 * up different from the disk, or a strict check trips.
 */
import { createQueue } from '../../../src/actors/queue/queue.js';
import type { ProcessOutcome, QueueProcessor, StoredQueueItem } from '../../../src/actors/queue/types.js';
import { seededRandom as random } from '../../../scripts/lib/seeded-random.js';
import { FakeClock, MemoryPersistence, settle } from './fakes.js';

interface OpenCall {
  item: StoredQueueItem;
  read: number | undefined;
  finish(ok: boolean): void;
}

const touches = (item: StoredQueueItem, path: string): boolean => item.file_path === path || item.dest_path === path;

class ModelProcessor implements QueueProcessor {
  readonly open: OpenCall[] = [];
  constructor(
    private readonly disk: Map<string, number>,
    private readonly index: Map<string, number>,
    private readonly violations: string[],
  ) {}

  process(item: StoredQueueItem): Promise<ProcessOutcome> {
    const label = `${item.action} ${item.file_path}${item.dest_path === null ? '' : ` -> ${item.dest_path}`}`;
    for (const other of this.open) {
      if (touches(other.item, item.file_path) || (item.dest_path !== null && touches(other.item, item.dest_path))) {
        this.violations.push(`${label} started while ${other.item.action} ${other.item.file_path} runs`);
      }
    }
    const read = item.action === 'index' ? this.disk.get(item.file_path) : undefined;
    if (item.action === 'index' && read === undefined) this.violations.push(`${label}: file is not on disk`);
    return new Promise<ProcessOutcome>((resolve) => {
      const call: OpenCall = {
        item,
        read,
        finish: (ok) => {
          this.open.splice(this.open.indexOf(call), 1);
          if (!ok) return resolve({ ok: false, retryable: true, reason: 'model failure' });
          if (item.action === 'index' && read !== undefined) this.index.set(item.file_path, read);
          if (item.action === 'delete') this.index.delete(item.file_path);
          if (item.action === 'move' && item.dest_path !== null) {
            const record = this.index.get(item.file_path);
            if (record === undefined) this.violations.push(`${label}: no record to move`);
            else this.index.set(item.dest_path, record);
            this.index.delete(item.file_path);
          }
          resolve({ ok: true });
        },
      };
      this.open.push(call);
    });
  }
}

export interface ModelOutcome {
  violations: string[];
  index: Record<string, number>;
  disk: Record<string, number>;
  log: string[];
}

export async function runModel(seed: number, steps: number): Promise<ModelOutcome> {
  const rand = random(seed);
  const pick = <T>(values: T[]): T => values[Math.floor(rand() * values.length)] as T;
  const paths = ['/m/p0', '/m/p1', '/m/p2', '/m/p3', '/m/p4'];
  const disk = new Map<string, number>([['/m/p0', 1], ['/m/p1', 2]]);
  const index = new Map(disk);
  const violations: string[] = [];
  const log: string[] = [];
  const processor = new ModelProcessor(disk, index, violations);
  const clock = new FakeClock();
  const queue = createQueue({
    persistence: new MemoryPersistence(),
    processor,
    clock,
    settings: { cooldownSeconds: 1, maxConcurrency: 2, maxRetries: 1000, retryBaseSeconds: 0.5, retryMaxSeconds: 2 },
    onError: (error) => violations.push(`onError: ${String(error)}`),
  });
  await queue.start();
  let version = 100;

  for (let step = 0; step < steps; step++) {
    const r = rand();
    const existing = [...disk.keys()];
    if (r < 0.3) {
      const path = pick(paths);
      disk.set(path, ++version);
      log.push(`write ${path}`);
      queue.enqueue({ path, action: 'index' });
    } else if (r < 0.42 && existing.length > 0) {
      const path = pick(existing);
      disk.delete(path);
      log.push(`delete ${path}`);
      queue.enqueue({ path, action: 'delete' });
    } else if (r < 0.62 && existing.length > 0) {
      const path = pick(existing);
      const dest = pick(paths.filter((p) => p !== path));
      disk.set(dest, disk.get(path) as number);
      disk.delete(path);
      log.push(`rename ${path} -> ${dest}`);
      queue.enqueue({ path, action: 'move', destPath: dest });
    } else if (r < 0.82) {
      const seconds = pick([0, 0.5, 1, 2]);
      log.push(`wait ${seconds}s`);
      await clock.advanceSeconds(seconds);
    } else if (processor.open.length > 0) {
      const call = pick(processor.open);
      const ok = rand() < 0.7;
      log.push(`${ok ? 'finish' : 'fail'} ${call.item.action} ${call.item.file_path}`);
      call.finish(ok);
      await settle();
    }
  }
  for (let round = 0; round < 100 && (queue.status().total_items > 0 || processor.open.length > 0); round++) {
    for (const call of [...processor.open]) call.finish(true);
    await clock.advanceSeconds(5);
  }
  if (queue.status().total_items > 0) violations.push(`queue did not drain: ${JSON.stringify(queue.items())}`);
  await queue.close();
  const sorted = (map: Map<string, number>) => Object.fromEntries([...map].sort(([x], [y]) => x.localeCompare(y)));
  return { violations, index: sorted(index), disk: sorted(disk), log };
}
