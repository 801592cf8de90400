/** The /api/queue endpoints (SPEC 2.5, 2.6): status, pause and resume, items. */
import Type, { type Static } from '#typebox';
import { SuccessFields, type Operation } from './common.schemas.js';

const Count = Type.Integer({ minimum: 0 });

/** The seven values of SPEC 2.6, in that order. */
export const QueueStatusSchema = Type.Object(
  {
    paused: Type.Boolean({ description: 'manually_paused OR scheduler_paused' }),
    manually_paused: Type.Boolean(),
    scheduler_paused: Type.Boolean(),
    total_items: Count,
    cooling_down: Count,
    ready: Count,
    processing: Count,
  },
  { additionalProperties: false, title: 'QueueStatus' },
);
export type QueueStatusBody = Static<typeof QueueStatusSchema>;

export const QueueItemSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    file_path: Type.String({ description: 'Absolute; for a move, the source' }),
    action: Type.Union([Type.Literal('index'), Type.Literal('delete'), Type.Literal('move')]),
    status: Type.Union([Type.Literal('cooling_down'), Type.Literal('ready'), Type.Literal('processing')]),
    enqueued_at: Type.Number({ description: 'Unix seconds' }),
    cooldown_expires_at: Type.Number({ description: 'Unix seconds: the end of the cooldown, or of the retry backoff' }),
    dest_path: Type.Union([Type.String(), Type.Null()], { description: 'Moves only' }),
    retry_count: Count,
  },
  { additionalProperties: false, title: 'QueueItem' },
);
export type QueueItemBody = Static<typeof QueueItemSchema>;

export const QueueItemsResponse = Type.Object({ items: Type.Array(QueueItemSchema) }, { additionalProperties: false });
export type QueueItemsResponse = Static<typeof QueueItemsResponse>;

export const DeleteQueueItemResponse = Type.Object({ ...SuccessFields, item_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export type DeleteQueueItemResponse = Static<typeof DeleteQueueItemResponse>;

export const queueOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/queue/status',
    tag: 'queue',
    summary: 'Queue status',
    answers: { 200: { description: 'The seven values, in the spec order', schema: QueueStatusSchema } },
  },
  {
    method: 'post',
    path: '/api/queue/pause',
    tag: 'queue',
    summary: 'Pause the queue by hand',
    description: 'Events are still taken and cooled down; nothing new starts (items processing finish). Stored: survives a restart.',
    answers: { 200: { description: 'The new status', schema: QueueStatusSchema } },
  },
  {
    method: 'post',
    path: '/api/queue/resume',
    tag: 'queue',
    summary: 'Clear the manual pause',
    description: 'While the scheduler pauses, the queue stays paused by the scheduler.',
    answers: { 200: { description: 'The new status', schema: QueueStatusSchema } },
  },
  {
    method: 'get',
    path: '/api/queue/items',
    tag: 'queue',
    summary: 'Items in the queue',
    answers: { 200: { description: 'Oldest first', schema: QueueItemsResponse } },
  },
  {
    method: 'delete',
    path: '/api/queue/items/:item_id',
    tag: 'queue',
    summary: 'Remove a queue item',
    description: '404 `not_found` with `item_id`; 400 when not a UUID.',
    params: Type.Object({ item_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
    answers: { 200: { description: 'Removed', schema: DeleteQueueItemResponse } },
  },
];
