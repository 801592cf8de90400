import Type, { type Static } from 'typebox';

export const IndexDirectoryBody = Type.Object(
  {
    directory_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path of the directory' }),
    force: Type.Optional(Type.Boolean({ description: 'Re-process every file even if unchanged (default true)' })),
  },
  { additionalProperties: false },
);
export type IndexDirectoryBody = Static<typeof IndexDirectoryBody>;

export const IndexFileBody = Type.Object(
  {
    file_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path of the file' }),
    force: Type.Optional(Type.Boolean({ description: 'Re-process the file even if unchanged (default true)' })),
  },
  { additionalProperties: false },
);
export type IndexFileBody = Static<typeof IndexFileBody>;

export interface IndexDirectoryResponse {
  success: boolean;
  message: string;
  files_indexed: number;
  run_id: string;
}

export interface IndexFileResponse {
  success: boolean;
  message: string;
  file_id: number | null;
  run_id: string;
}
