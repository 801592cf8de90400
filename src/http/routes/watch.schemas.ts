import Type, { type Static } from 'typebox';
import type { WatchJob } from '../../store/repositories/jobs.repository.js';

export const WatchBody = Type.Object(
  {
    directory_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path of the directory to watch' }),
    recursive: Type.Optional(Type.Boolean({ description: 'Watch sub-directories too (default true)' })),
    file_pattern: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 1000 }), Type.Null()], { description: "Only files matching this glob, e.g. '*.md' (default: all)" }),
    ),
  },
  { additionalProperties: false },
);
export type WatchBody = Static<typeof WatchBody>;

export interface WatchResponse {
  success: boolean;
  message: string;
  files_indexed: number;
  job_id: number;
  absorbed_job_ids: number[];
}

export interface WatchJobsResponse {
  jobs: WatchJob[];
}

export interface DeleteWatchJobResponse {
  success: boolean;
  message: string;
  job_id: number;
  files_removed: number;
}
