/** `filesift status`: is the service well, what is indexed, what is it doing now. */
import type { Static } from '#typebox';
import type { FileStatsSchema } from '../http/routes/files.schemas.js';
import type { IndexRunsResponse } from '../http/routes/indexing.schemas.js';
import type { StatusBody } from '../http/routes/status.schemas.js';
import type { WatchJobsResponse } from '../http/routes/watch.schemas.js';
import { progressLine } from '../indexing/run.js';
import { formatDuration, formatSize } from '../lib/format.js';
import { clientFor } from './client.js';
import { localDateTime, table, writeJson } from './output.js';
import { defineCommand, EXIT, SERVICE_OPTIONS } from './program.js';

export const statusCommand = defineCommand({
  name: 'status',
  summary: 'Health, watched folders, the index and the runs going on',
  spec: {
    command: 'filesift status',
    options: { json: { type: 'boolean', description: "print the service's answers as JSON" }, ...SERVICE_OPTIONS },
    notes: ['Exit code 1 when the service is degraded (a component reports a problem) or cannot be reached.'],
  },
  async run({ values }, io) {
    const client = clientFor(values, io.env);
    const [status, stats, jobs, runs] = await Promise.all([
      client.get<StatusBody>('/api/status'),
      client.get<Static<typeof FileStatsSchema>>('/api/files/stats'),
      client.get<WatchJobsResponse>('/api/watch/jobs'),
      client.get<Static<typeof IndexRunsResponse>>('/api/index/runs'),
    ]);
    if (values.json) {
      writeJson(io, { status, stats, jobs: jobs.jobs, runs: runs.runs });
      return status.status === 'ok' ? EXIT.ok : EXIT.failed;
    }
    const db = status.database;
    const embedder = status.embedder as { model?: string | null; kind?: string | null; search?: string } | undefined;
    const queue = status.queue as { paused?: boolean; total_items?: number } | undefined;
    const lines = [
      `filesift ${status.version} at ${client.baseUrl}: ${status.status}, up ${formatDuration(status.uptime_seconds)}`,
      `database   ${db.engine} ${db.server_version ?? ''} (${db.location})${db.reachable ? `, ${db.latency_ms} ms` : `: unreachable, ${db.error ?? ''}`}`,
      `embedder   ${embedder?.model ?? 'none'}${embedder?.kind ? ` (${embedder.kind})` : ''}, ${embedder?.search ?? 'keyword'} search`,
      `index      ${stats.total_files} files (${stats.name_only_files} by name only), ${formatSize(stats.total_size)}, ${stats.failed_files} failed; last indexed ${localDateTime(stats.last_indexed)}`,
      `queue      ${queue?.paused ? 'paused' : 'running'}, ${queue?.total_items ?? 0} items`,
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    if (jobs.jobs.length > 0) {
      io.stdout.write(`\nWatched folders:\n${table(jobs.jobs.map((j) => ['  ' + String(j.id), `last scan ${localDateTime(j.last_scan)}`, j.path]))}\n`);
    }
    if (runs.runs.length > 0) {
      io.stdout.write(`\nIndexing now:\n${runs.runs.map((r) => `  ${progressLine(r.path === '' ? `${r.kind} run` : `${r.kind} ${r.path}`, r)}`).join('\n')}\n`);
    }
    return status.status === 'ok' ? EXIT.ok : EXIT.failed;
  },
});
