/**
 * The event catalogue of /api/updates: one entry per event name, mapping to its payload. Later work adds kinds
 * here (and to the README's catalogue); publishers and the SSE route are typed by this map.
 */
export interface EventMap {
  /** The service finished starting. */
  service_started: { version: string; engine: 'pglite' | 'postgres' };
  /** The service is shutting down (clients will be disconnected). */
  service_stopping: { reason: string };
  /** Settings were changed through PUT /api/settings/ (the full new settings object). */
  settings_changed: { keys: string[]; settings: Record<string, Record<string, unknown>> };
}

export type EventName = keyof EventMap;

export interface BusEvent<N extends EventName = EventName> {
  /** Monotonically increasing per service run, starting at 1; used as the SSE `id`. */
  id: number;
  type: N;
  /** ISO 8601 time of publication. */
  time: string;
  data: EventMap[N];
}

/** Any event, as a discriminated union on `type` (for consumers that switch on it). */
export type AnyBusEvent = { [N in EventName]: BusEvent<N> }[EventName];
