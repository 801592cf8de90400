/**
 * Folders: the watched folders (add with the API's validation messages, remove), and every indexing run's live
 * progress from /api/updates: files done of a real total (the service counts them first), rate, time left, the
 * file being worked on, and the files that failed with their reasons.
 */
import { useEffect, useState } from 'preact/hooks';
import { del, get, messageOf, post } from '../api/client.js';
import { useEvents, type LiveEvent } from '../api/events.js';
import type { EventMap, IndexRunBody, IndexRuns, WatchJob, WatchJobsResponse, WatchResponse } from '../api/types.js';
import { ErrorMessage, Loading, Outcome, Progress, Screen } from '../components/ui.js';
import { formatCount, formatDateTime, formatDuration } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';

const MAX_RUNS_SHOWN = 8;
const MAX_FAILURES_KEPT = 200;

interface RunView extends IndexRunBody {
  done: { duration_seconds: number; cancelled: boolean } | null;
  failures: { path: string; code: string; error: string }[];
}

function blankRun(started: EventMap['index_run_started'], at: string): RunView {
  return {
    ...started,
    started_at: at,
    processed: 0,
    indexed: 0,
    name_only: 0,
    skipped: 0,
    failed: 0,
    removed: 0,
    total: 0,
    total_final: false,
    files_per_second: 0,
    eta_seconds: null,
    current_path: null,
    done: null,
    failures: [],
  };
}

const RUN_EVENTS = ['index_run_started', 'index_run_progress', 'index_run_completed', 'file_failed', 'watch_added', 'watch_removed'] as const;

export function FoldersScreen() {
  const jobs = useLoad(() => get<WatchJobsResponse>('/api/watch/jobs'));
  const [runs, setRuns] = useState<Map<string, RunView>>(new Map());
  const [seeded, setSeeded] = useState(false);
  // The runs already going on when the screen opened; events keep them (and new ones) up to date.
  useEffect(() => {
    get<IndexRuns>('/api/index/runs').then(
      ({ runs: going }) => {
        setRuns((current) => {
          const next = new Map(current);
          for (const r of going) if (!next.has(r.run_id)) next.set(r.run_id, { ...r, done: null, failures: [] });
          return next;
        });
        setSeeded(true);
      },
      () => setSeeded(true),
    );
  }, []);

  const onEvent = (e: LiveEvent) => {
    if (e.type === 'watch_added' || e.type === 'watch_removed') return jobs.reload();
    setRuns((current) => {
      const next = new Map(current);
      if (e.type === 'index_run_started') {
        next.set(e.data.run_id, blankRun(e.data, e.data.timestamp));
      } else if (e.type === 'index_run_progress') {
        const run = next.get(e.data.run_id);
        if (run) next.set(run.run_id, { ...run, ...e.data });
      } else if (e.type === 'index_run_completed') {
        const run = next.get(e.data.run_id);
        if (run) {
          const { stage_seconds: _stages, timestamp: _t, duration_seconds, cancelled, ...counts } = e.data;
          next.set(run.run_id, { ...run, ...counts, total_final: true, eta_seconds: 0, current_path: null, done: { duration_seconds, cancelled } });
        }
        if (e.data.kind === 'watch' || e.data.kind === 'reconcile') jobs.reload();
      } else if (e.type === 'file_failed' && e.data.run_id) {
        const run = next.get(e.data.run_id);
        if (run && run.failures.length < MAX_FAILURES_KEPT) next.set(run.run_id, { ...run, failures: [...run.failures, { path: e.data.path, code: e.data.code, error: e.data.error }] });
      }
      return next;
    });
  };
  const { connected } = useEvents(RUN_EVENTS, onEvent);

  // Newest first; runs over single files and queue bursts only while they go on.
  const shown = [...runs.values()]
    .filter((r) => r.done === null || (r.kind !== 'file' && r.kind !== 'queue'))
    .sort((a, b) => b.started_at.localeCompare(a.started_at))
    .slice(0, MAX_RUNS_SHOWN);

  return (
    <Screen title="Folders">
      <AddFolder onAdded={jobs.reload} />
      <h2>Watched folders</h2>
      <ErrorMessage message={jobs.error} />
      {!jobs.data && !jobs.error && <Loading what="the watched folders" />}
      {jobs.data && jobs.data.jobs.length === 0 && <p class="muted">No folder is watched yet.</p>}
      {jobs.data && jobs.data.jobs.length > 0 && (
        <ul class="cards">
          {jobs.data.jobs.map((job) => (
            <JobCard key={job.id} job={job} onRemoved={jobs.reload} />
          ))}
        </ul>
      )}
      <h2>
        Indexing <span class="muted small">{connected ? '(live)' : seeded ? '(reconnecting…)' : ''}</span>
      </h2>
      {shown.length === 0 && <p class="muted">Nothing is being indexed.</p>}
      <ul class="cards" aria-live="polite">
        {shown.map((run) => (
          <RunCard key={run.run_id} run={run} />
        ))}
      </ul>
    </Screen>
  );
}

function AddFolder({ onAdded }: { onAdded: () => void }) {
  const [path, setPath] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      const answer = await post<WatchResponse>('/api/watch', { directory_path: path.trim() });
      setError(null);
      setMessage(answer.message);
      setPath('');
      onAdded();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card add-folder" onSubmit={submit} noValidate>
      <label for="folder-path">Watch a folder</label>
      <div class="row">
        <input
          id="folder-path"
          type="text"
          placeholder="/home/me/Documents"
          value={path}
          required
          autocomplete="off"
          spellcheck={false}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'folder-error' : 'folder-help'}
          onInput={(e) => setPath(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Watch'}
        </button>
      </div>
      {error ? (
        <ErrorMessage message={error} id="folder-error" />
      ) : (
        <p class="muted small" id="folder-help">
          An absolute path on this machine. Its files are indexed in the background, then kept up to date.
        </p>
      )}
      <Outcome done={message} />
    </form>
  );
}

function JobCard({ job, onRemoved }: { job: WatchJob; onRemoved: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const remove = async () => {
    try {
      await del(`/api/watch/jobs/${job.id}`);
      onRemoved();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <li class="card">
      <div class="row wrap spread">
        <div>
          <code class="path">{job.path}</code>
          <div class="muted small">
            job {job.id} · {job.recursive ? 'with sub-folders' : 'this folder only'}
            {job.file_pattern ? ` · only ${job.file_pattern}` : ''} · last scan {formatDateTime(job.last_scan)}
          </div>
        </div>
        {confirming ? (
          <div class="row">
            <button type="button" class="danger" onClick={() => void remove()}>
              Stop watching and remove its files from the index
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <button type="button" class="secondary" onClick={() => setConfirming(true)} aria-label={`Remove ${job.path}`}>
            Remove
          </button>
        )}
      </div>
      <ErrorMessage message={error} />
    </li>
  );
}

function RunCard({ run }: { run: RunView }) {
  const percent = run.total > 0 ? Math.floor((100 * run.processed) / run.total) : run.done ? 100 : 0;
  const what = run.path === '' ? `${run.kind} run` : run.path;
  return (
    <li class="card run" data-run={run.run_id}>
      <div class="row spread wrap">
        <strong class="path">{what}</strong>
        <span class="muted small">{run.kind}</span>
      </div>
      <Progress value={run.processed} max={run.total} label={`Indexing ${what}`} />
      <div class="run-figures">
        <span class="percent">{run.total_final ? `${percent} %` : 'counting…'}</span>
        <span>
          {formatCount(run.processed)} of {formatCount(run.total)}
          {run.total_final ? '' : '+'} files
        </span>
        {run.done ? (
          <span>
            {run.done.cancelled ? 'cancelled' : 'done'} in {formatDuration(run.done.duration_seconds)}
          </span>
        ) : (
          <>
            <span>{run.files_per_second} files/s</span>
            <span>{run.eta_seconds === null ? 'time left: —' : `about ${formatDuration(run.eta_seconds)} left`}</span>
          </>
        )}
        <span>
          {formatCount(run.indexed)} indexed · {formatCount(run.skipped)} unchanged · {formatCount(run.removed)} removed ·{' '}
          <span class={run.failed > 0 ? 'bad' : undefined}>{formatCount(run.failed)} failed</span>
        </span>
      </div>
      {run.current_path && !run.done && <div class="muted small current">Now: {run.current_path}</div>}
      {run.failures.length > 0 && (
        <details>
          <summary>
            {run.failures.length} failure{run.failures.length === 1 ? '' : 's'}
          </summary>
          <ul class="failures">
            {run.failures.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> — {f.code}: {f.error}
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  );
}
