import type { ServerResponse } from 'node:http';
import type Router from '@koa/router';
import { createSession, type Session } from 'better-sse';
import { createError } from '../errors.js';
import { EVENT_NAMES } from '../../events/names.js';
import type { AnyBusEvent, EventName } from '../../events/types.js';
import type { AppDeps } from '../deps.js';

export const HEARTBEAT_MS = 15_000;
/** Suggested reconnection delay sent to clients (the SSE `retry` field). */
export const RETRY_MS = 2_000;

/** Open SSE sessions, so shutdown can end them (they would otherwise keep the HTTP server open). */
export class SseSessions {
  readonly #open = new Map<Session, ServerResponse>();
  add(session: Session, res: ServerResponse): void {
    this.#open.set(session, res);
    session.once('disconnected', () => this.#open.delete(session));
  }
  get size(): number {
    return this.#open.size;
  }
  closeAll(): void {
    // better-sse has no close(): ending the response ends the session.
    for (const res of this.#open.values()) res.end();
    this.#open.clear();
  }
}

function parseLastEventId(raw: string | undefined): number | null {
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw)) throw createError('invalid_request', `Last-Event-ID must be a non-negative integer, got '${raw}'`);
  return Number(raw);
}

/** ?types=a,b: event names, each one we publish (a misspelt one would silently filter everything out). */
function parseTypes(raw: string | string[] | undefined): Set<EventName> {
  const given = (Array.isArray(raw) ? raw : [raw ?? '']).flatMap((v) => v.split(',')).map((t) => t.trim()).filter(Boolean);
  const known = new Set<string>(EVENT_NAMES);
  const unknown = given.filter((t) => !known.has(t));
  if (unknown.length > 0) {
    throw createError(
      'invalid_request',
      `types: unknown event name${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => `'${t.slice(0, 60)}'`).join(', ')}; known: ${EVENT_NAMES.join(', ')}`,
    );
  }
  return new Set(given as EventName[]);
}

/**
 * GET /api/updates: server-sent events. Each event has a monotonically increasing `id`, an `event` name and JSON
 * `data` (the payload plus `timestamp`). Reconnecting clients send Last-Event-ID (or ?last_event_id=) and get
 * what they missed from a bounded buffer; if some of it is gone, an `events_missed` event says so first.
 * ?types=a,b limits the stream to those event names.
 */
export function updatesRoutes(router: Router, { bus, sseHeartbeatMs }: AppDeps, sessions: SseSessions): void {
  router.get('/api/updates', async (ctx) => {
    const lastId = parseLastEventId(ctx.get('Last-Event-ID') || (ctx.query.last_event_id as string | undefined));
    const types = parseTypes(ctx.query.types);
    const wanted = (event: AnyBusEvent) => types.size === 0 || types.has(event.type as EventName);

    ctx.respond = false; // better-sse writes the response itself
    const headers: Record<string, string> = { 'X-Accel-Buffering': 'no' };
    const allowOrigin = ctx.response.get('Access-Control-Allow-Origin');
    if (allowOrigin) headers['Access-Control-Allow-Origin'] = allowOrigin;
    const session = await createSession(ctx.req, ctx.res, {
      keepAlive: sseHeartbeatMs ?? HEARTBEAT_MS,
      retry: RETRY_MS,
      statusCode: 200, // Koa has already set res.statusCode to its default 404
      trustClientEventId: false,
      headers,
    });
    sessions.add(session, ctx.res);

    const send = (event: AnyBusEvent) => {
      if (session.isConnected && wanted(event)) {
        session.push({ ...event.data, timestamp: event.time }, event.type, String(event.id));
      }
    };
    // Replay and subscribe run synchronously one after the other: no event can slip between them.
    if (lastId !== null) {
      const { events, complete } = bus.since(lastId);
      if (!complete) {
        session.push(
          { last_event_id: lastId, first_available_id: events[0]?.id ?? bus.lastId + 1, timestamp: new Date().toISOString() },
          'events_missed',
        );
      }
      for (const event of events) send(event);
    }
    session.once('disconnected', bus.subscribe(send));
  });
}
