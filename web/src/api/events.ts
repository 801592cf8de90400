/**
 * Live events from GET /api/updates. The eventsource package (rather than the browser's EventSource) because
 * it can send the bearer token; it reconnects by itself with Last-Event-ID, and the service replays what was
 * missed.
 */
import { EventSource } from 'eventsource';
import { useEffect, useRef, useState } from 'preact/hooks';
import { authHeaders } from './client.js';
import type { EventMap, EventName } from './types.js';

export type LiveEvent = { [N in EventName]: { type: N; id: string; data: EventMap[N] & { timestamp: string } } }[EventName];

/** Subscribes while mounted to the given event names; `connected` says whether the stream is open. */
export function useEvents(types: readonly EventName[], onEvent: (event: LiveEvent) => void): { connected: boolean } {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [connected, setConnected] = useState(false);
  const key = types.join(',');
  useEffect(() => {
    const source = new EventSource(`/api/updates?types=${encodeURIComponent(key)}`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...authHeaders() } }),
    });
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(false);
    for (const type of key.split(',')) {
      source.addEventListener(type, (e) => {
        const message = e as MessageEvent<string>;
        handler.current({ type, id: message.lastEventId, data: JSON.parse(message.data) } as LiveEvent);
      });
    }
    return () => source.close();
  }, [key]);
  return { connected };
}
