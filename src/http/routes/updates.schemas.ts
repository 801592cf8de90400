/** GET /api/updates: the server-sent-event stream (the event catalogue is src/events/types.ts and the README). */
import Type from '#typebox';
import { EVENT_NAMES } from '../../events/types.js';
import type { Operation } from './common.schemas.js';

export const UpdatesQuery = Type.Object(
  {
    types: Type.Optional(Type.String({ description: `Comma-separated event names to receive (default: all): ${EVENT_NAMES.join(', ')}` })),
    last_event_id: Type.Optional(Type.String({ pattern: '^\\d{1,15}$', description: 'Replay what came after this id (or send the Last-Event-ID header)' })),
  },
  { additionalProperties: false },
);

export const updatesOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/updates',
    tag: 'events',
    summary: 'Live events (server-sent events)',
    description:
      'Each event has an `event:` name, an increasing `id:` and JSON `data:` (its payload plus `timestamp`). A comment every 15 s; ' +
      '`retry: 2000`. Reconnecting with Last-Event-ID replays what was missed from the last 1,000 events; if some of it is gone, ' +
      'an `events_missed` event comes first.',
    query: UpdatesQuery,
    answers: { 200: { description: 'An endless event stream', contentType: 'text/event-stream', schema: Type.String() } },
  },
];
