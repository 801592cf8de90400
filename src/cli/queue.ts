/** `filesift queue [ls|pause|resume]`: the queue of file changes. */
import type { QueueItemsResponse, QueueStatusBody } from '../http/routes/queue.schemas.js';
import { UsageError } from '../lib/command-line.js';
import { clientFor } from './client.js';
import { table, writeJson } from './output.js';
import { defineCommand, EXIT, SERVICE_OPTIONS, type CliIo } from './program.js';

const ACTIONS = ['ls', 'pause', 'resume'] as const;

function statusLine(s: QueueStatusBody): string {
  const paused = s.manually_paused && s.scheduler_paused ? 'paused by hand and by the scheduler' : s.manually_paused ? 'paused by hand' : s.scheduler_paused ? 'paused by the scheduler' : 'running';
  return `queue ${paused}: ${s.total_items} items (${s.cooling_down} cooling down, ${s.ready} ready, ${s.processing} processing)`;
}

function printItems(io: CliIo, items: QueueItemsResponse['items']): void {
  if (items.length === 0) return;
  const rows = items.map((i) => [i.status, i.action, String(i.retry_count), i.dest_path ? `${i.file_path} -> ${i.dest_path}` : i.file_path]);
  io.stdout.write(`${table([['STATUS', 'ACTION', 'RETRIES', 'PATH'], ...rows])}\n`);
}

export const queueCommand = defineCommand({
  name: 'queue',
  summary: 'The queue of file changes: ls (default), pause, resume',
  spec: {
    command: 'filesift queue',
    positional: { name: 'ACTION', description: 'ls: status and items; pause: pause by hand; resume: clear the manual pause', complete: ACTIONS },
    options: { json: { type: 'boolean', description: "print the service's answer as JSON" }, ...SERVICE_OPTIONS },
  },
  async run({ values, positionals }, io) {
    const action = positionals[0] ?? 'ls';
    if (!(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown action '${action}'; say ${ACTIONS.join(', ')}`);
    const client = clientFor(values, io.env);
    if (action === 'ls') {
      const [status, items] = await Promise.all([client.get<QueueStatusBody>('/api/queue/status'), client.get<QueueItemsResponse>('/api/queue/items')]);
      if (values.json) writeJson(io, { status, items: items.items });
      else {
        io.stdout.write(`${statusLine(status)}\n`);
        printItems(io, items.items);
      }
      return EXIT.ok;
    }
    const status = await client.post<QueueStatusBody>(`/api/queue/${action}`);
    if (values.json) writeJson(io, status);
    else io.stdout.write(`${statusLine(status)}\n`);
    return EXIT.ok;
  },
});
