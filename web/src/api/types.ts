/**
 * The API's types, straight from the TypeBox schemas the service validates and answers with
 * (src/http/routes/*.schemas.ts) and from the event catalogue (src/events/types.ts). Types only: nothing of the
 * service is bundled into the app.
 */
import type { Static } from 'typebox';
import type { ErrorBody } from '../../../src/http/routes/common.schemas.js';
import type { FileContentBody, FileRecordBody, FileStatsSchema, FileSummaryBody } from '../../../src/http/routes/files.schemas.js';
import type { FilterChangeResponse, FilterTestResponse } from '../../../src/http/routes/filters.schemas.js';
import type { IndexRunBody, IndexRunsResponse } from '../../../src/http/routes/indexing.schemas.js';
import type { QueueItemBody, QueueItemsResponse, QueueStatusBody } from '../../../src/http/routes/queue.schemas.js';
import type { SchedulerResponseBody } from '../../../src/http/routes/scheduler.schemas.js';
import type { SearchBody, SearchFacetsSchema, SearchResponseBody, SearchResultSchema } from '../../../src/http/routes/search.schemas.js';
import type { SettingsBody } from '../../../src/http/routes/settings.schemas.js';
import type { StatusBody } from '../../../src/http/routes/status.schemas.js';
import type { WatchJobsResponse, WatchResponse } from '../../../src/http/routes/watch.schemas.js';
import type { EventMap, EventName } from '../../../src/events/types.js';

export type { EventMap, EventName, FileContentBody, FileRecordBody, FileSummaryBody, FilterChangeResponse, FilterTestResponse };
export type { IndexRunBody, QueueItemBody, QueueStatusBody, SchedulerResponseBody, SearchBody, SearchResponseBody, SettingsBody, StatusBody };
export type { WatchJobsResponse, WatchResponse };
export type ErrorBody = Static<typeof ErrorBody> & Record<string, unknown>;
export type FileStats = Static<typeof FileStatsSchema>;
export type IndexRuns = Static<typeof IndexRunsResponse>;
export type QueueItems = Static<typeof QueueItemsResponse>;
export type SearchResult = Static<typeof SearchResultSchema>;
export type SearchFacets = Static<typeof SearchFacetsSchema>;
export type SearchMode = NonNullable<SearchBody['mode']>;
export type SearchFilters = NonNullable<SearchBody['filters']>;
export type WatchJob = WatchJobsResponse['jobs'][number];
export type FilterConfig = FilterChangeResponse['config'];
export type FilterMode = FilterConfig['mode'];
