/** The queue: its status, pause and resume, and its items (each removable), kept current by queue events. */
import { useState } from 'preact/hooks';
import { del, get, messageOf, post } from '../api/client.js';
import { useEvents } from '../api/events.js';
import type { QueueItems, QueueStatusBody } from '../api/types.js';
import { ErrorMessage, Loading, Screen } from '../components/ui.js';
import { formatCount } from '../lib/format.js';
import { useLoad, useThrottled } from '../lib/hooks.js';

const QUEUE_EVENTS = [
  'queue_item_added',
  'queue_item_updated',
  'queue_item_processing',
  'queue_item_completed',
  'queue_item_failed',
  'queue_item_removed',
  'queue_paused',
  'queue_resumed',
] as const;

/** At most this many items are listed (a checkout of 10,000 files is summed up in the status). */
const MAX_ITEMS_SHOWN = 500;

export function QueueScreen() {
  const status = useLoad(() => get<QueueStatusBody>('/api/queue/status'));
  const items = useLoad(() => get<QueueItems>('/api/queue/items'));
  const [error, setError] = useState<string | null>(null);
  const refresh = useThrottled(() => {
    status.reload();
    items.reload();
  }, 500);
  const { connected } = useEvents(QUEUE_EVENTS, refresh);

  const act = async (action: () => Promise<unknown>) => {
    try {
      setError(null);
      await action();
      refresh();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const s = status.data;
  return (
    <Screen
      title="Queue"
      actions={
        s && (
          <div class="row">
            {s.manually_paused ? (
              <button type="button" onClick={() => void act(() => post('/api/queue/resume'))}>
                Resume
              </button>
            ) : (
              <button type="button" class="secondary" onClick={() => void act(() => post('/api/queue/pause'))}>
                Pause
              </button>
            )}
          </div>
        )
      }
    >
      <ErrorMessage message={error ?? status.error} />
      {!s && !status.error && <Loading what="the queue" />}
      {s && (
        <div class="card">
          <p class="queue-state" role="status">
            {s.paused ? (
              <strong class="bad">Paused {s.manually_paused && s.scheduler_paused ? 'by hand and by the scheduler' : s.manually_paused ? 'by hand' : 'by the scheduler'}</strong>
            ) : (
              <strong class="ok">Running</strong>
            )}{' '}
            <span class="muted small">{connected ? '(live)' : '(reconnecting…)'}</span>
          </p>
          <dl class="figures">
            <div>
              <dt>Items</dt>
              <dd>{formatCount(s.total_items)}</dd>
            </div>
            <div>
              <dt>Cooling down</dt>
              <dd>{formatCount(s.cooling_down)}</dd>
            </div>
            <div>
              <dt>Ready</dt>
              <dd>{formatCount(s.ready)}</dd>
            </div>
            <div>
              <dt>Processing</dt>
              <dd>{formatCount(s.processing)}</dd>
            </div>
          </dl>
          {s.scheduler_paused && (
            <p class="muted small">
              The scheduler holds the queue: see <a href="#/scheduler">its rules</a>.
            </p>
          )}
        </div>
      )}
      <h2>Items</h2>
      <ErrorMessage message={items.error} />
      {items.data && items.data.items.length === 0 && <p class="muted">The queue is empty: changes in watched folders appear here while they wait.</p>}
      {items.data && items.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Action</th>
                <th scope="col">Status</th>
                <th scope="col">Retries</th>
                <th scope="col">
                  <span class="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.data.items.slice(0, MAX_ITEMS_SHOWN).map((item) => (
                <tr key={item.id}>
                  <td class="path">
                    {item.file_path}
                    {item.dest_path ? ` → ${item.dest_path}` : ''}
                  </td>
                  <td>{item.action}</td>
                  <td>{item.status.replace('_', ' ')}</td>
                  <td>{item.retry_count}</td>
                  <td>
                    <button type="button" class="secondary small" aria-label={`Remove ${item.file_path} from the queue`} onClick={() => void act(() => del(`/api/queue/items/${item.id}`))}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.data.items.length > MAX_ITEMS_SHOWN && <p class="muted small">…and {formatCount(items.data.items.length - MAX_ITEMS_SHOWN)} more.</p>}
        </div>
      )}
    </Screen>
  );
}
