/** Status: the service's health (database, embedding model and its download, worker pool, watcher, queue, scheduler) and the index. */
import { Fragment, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { get } from '../api/client.js';
import { useEvents } from '../api/events.js';
import type { EventMap, FileStats, StatusBody } from '../api/types.js';
import { ErrorMessage, Loading, Progress, Screen } from '../components/ui.js';
import { formatCount, formatDateTime, formatDuration, formatSize } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';

type Details = Record<string, unknown>;

function Component({ title, ok, children }: { title: string; ok: boolean | undefined; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={`status-${title}`}>
      <h2 id={`status-${title}`}>
        {title} {ok === undefined ? null : <span class={ok ? 'ok' : 'bad'}>{ok ? '● ok' : '● problem'}</span>}
      </h2>
      {children}
    </section>
  );
}

function Rows({ rows }: { rows: [string, unknown][] }) {
  return (
    <dl class="meta">
      {rows
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => (
          <Fragment key={k}>
            <dt>{k}</dt>
            <dd>{v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v)}</dd>
          </Fragment>
        ))}
    </dl>
  );
}

export function StatusScreen() {
  const status = useLoad(() => get<StatusBody>('/api/status'), [], 5000);
  const stats = useLoad(() => get<FileStats>('/api/files/stats'), [], 10000);
  const [pull, setPull] = useState<EventMap['model_pull_progress'] | null>(null);
  useEvents(['model_pull_progress', 'model_pull_completed'], (e) => {
    if (e.type === 'model_pull_progress') setPull(e.data);
    else {
      setPull(null);
      status.reload();
    }
  });

  const s = status.data;
  const embedder = s?.embedder as Details | undefined;
  const reembed = embedder?.reembed as Details | null | undefined;
  const pool = s?.worker_pool as Details | undefined;
  const watcher = s?.watcher as Details | undefined;
  const queue = s?.queue as Details | undefined;
  const scheduler = s?.scheduler as Details | undefined;
  return (
    <Screen title="Status">
      <ErrorMessage message={status.error} />
      {!s && !status.error && <Loading what="the status" />}
      {s && (
        <>
          <p role="status" class="card">
            <strong class={s.status === 'ok' ? 'ok' : 'bad'}>{s.status === 'ok' ? 'Everything is fine' : 'Degraded: a component reports a problem'}</strong> · filesift {s.version} · up{' '}
            {formatDuration(s.uptime_seconds)} · {s.jobs ?? '?'} watched folder{s.jobs === 1 ? '' : 's'}
          </p>
          <div class="grid">
            <Component title="Index" ok={undefined}>
              {stats.data ? (
                <Rows
                  rows={[
                    ['files indexed', formatCount(stats.data.total_files)],
                    ['of them by name only', formatCount(stats.data.name_only_files)],
                    ['size', formatSize(stats.data.total_size)],
                    ['failed', formatCount(stats.data.failed_files)],
                    ['last indexed', formatDateTime(stats.data.last_indexed)],
                    ['by type', Object.entries(stats.data.extensions).slice(0, 8).map(([e, n]) => `${e || '(none)'} ${n}`).join(', ') || '—'],
                  ]}
                />
              ) : (
                <Loading what="the statistics" />
              )}
            </Component>
            <Component title="Database" ok={s.database.ok}>
              <Rows
                rows={[
                  ['engine', s.database.engine],
                  ['location', s.database.location],
                  ['latency', s.database.latency_ms === null ? null : `${s.database.latency_ms} ms`],
                  ['server', s.database.server_version],
                  ['schema version', s.database.schema_version],
                  ['error', s.database.error],
                ]}
              />
            </Component>
            {embedder && (
              <Component title="Embedding model" ok={embedder.ok as boolean}>
                <Rows
                  rows={[
                    ['model', embedder.model],
                    ['kind', embedder.kind],
                    ['dimension', embedder.dimension],
                    ['search', embedder.search],
                    ['ready', embedder.ready],
                    ['why not the transformer', embedder.fallback_reason ?? embedder.reason],
                  ]}
                />
                {pull && (
                  <div>
                    <p class="small">
                      Downloading {pull.model}: {pull.file} ({pull.file_index + 1} of {pull.file_count})
                    </p>
                    <Progress value={pull.received_bytes} max={pull.total_bytes ?? 0} label="Model download" />
                  </div>
                )}
                {!pull && embedder.pull ? <Rows rows={[['download', embedder.pull]]} /> : null}
                {reembed && (
                  <div>
                    <p class="small">
                      Re-embedding after a model change: {String(reembed.state)}, {formatCount(Number(reembed.processed))} of {formatCount(Number(reembed.total))}
                    </p>
                    <Progress value={Number(reembed.processed)} max={Number(reembed.total)} label="Re-embedding" />
                  </div>
                )}
              </Component>
            )}
            {pool && (
              <Component title="Worker pool" ok={pool.ok as boolean}>
                <Rows
                  rows={[
                    ['threads', `${String(pool.threads)} of ${String(pool.max_threads)}, up to ${String(pool.thread_limit)} at work`],
                    ['busy', `${Math.round(Number(pool.utilization) * 100)} %`],
                    ['tasks waiting', pool.queued_tasks],
                    ['tasks done', pool.completed_tasks],
                    ['indexing runs', pool.active_runs],
                  ]}
                />
              </Component>
            )}
            {watcher && (
              <Component title="Watcher" ok={watcher.ok as boolean}>
                <Rows rows={[['native watches', watcher.native], ['polled', watcher.polling], ['restarts', watcher.worker_restarts], ['note', watcher.reason]]} />
              </Component>
            )}
            {queue && (
              <Component title="Queue" ok={queue.ok as boolean}>
                <Rows rows={[['paused', queue.paused], ['items', queue.total_items], ['processing', queue.processing]]} />
                <a href="#/queue">Open the queue</a>
              </Component>
            )}
            {scheduler && (
              <Component title="Scheduler" ok={scheduler.ok as boolean}>
                <Rows rows={[['enabled', scheduler.enabled], ['pausing the queue', scheduler.paused_queue], ['rules', scheduler.rules], ['combine', scheduler.combine_mode]]} />
                <a href="#/scheduler">Open the scheduler</a>
              </Component>
            )}
          </div>
        </>
      )}
    </Screen>
  );
}
