/** `filesift files ID`: a file's record (what search knows of it, and why it failed), or its extracted text. */
import type { FileContentBody, FileRecordBody } from '../http/routes/files.schemas.js';
import { formatSize } from '../lib/format.js';
import { clientFor } from './client.js';
import { localDateTime, writeJson } from './output.js';
import { defineCommand, EXIT, SERVICE_OPTIONS } from './program.js';

export const filesCommand = defineCommand({
  name: 'files',
  summary: "A file's record by id (as search --json shows ids), or its extracted text",
  spec: {
    command: 'filesift files',
    positional: { name: 'ID', description: 'the file id', required: true },
    options: {
      text: { type: 'boolean', description: 'print the extracted text instead, whole' },
      json: { type: 'boolean', description: "print the service's answer as JSON" },
      ...SERVICE_OPTIONS,
    },
  },
  async run({ values, positionals }, io) {
    const id = positionals[0]!;
    const client = clientFor(values, io.env);
    if (values.text) {
      for (let offset: number | null = 0; offset !== null; ) {
        const page: FileContentBody = await client.get<FileContentBody>(`/api/files/${encodeURIComponent(id)}/content?offset=${offset}`);
        io.stdout.write(page.text);
        offset = page.next_offset;
      }
      io.stdout.write('\n');
      return EXIT.ok;
    }
    const file = await client.get<FileRecordBody>(`/api/files/${encodeURIComponent(id)}`);
    if (values.json) {
      writeJson(io, file);
      return EXIT.ok;
    }
    const rows: [string, string][] = [
      ['path', file.file_path],
      ['status', file.status + (file.status === 'failed' ? ` (${file.error_code}): ${file.error}` : '')],
      ['title', file.title],
      ['summary', file.summary],
      ['keywords', file.keywords.join(', ')],
      ['format', `${file.format} (${file.mime})`],
      ['size', `${formatSize(file.size)} (${file.size} bytes)`],
      ['modified', localDateTime(file.modified)],
      ['indexed', localDateTime(file.indexed_at)],
      ['text', `${file.content_length} characters${file.text_truncated ? ' (cut at the size limit)' : ''}${file.note ? `; ${file.note}` : ''}`],
      ['chunks', `${file.chunk_count} (${file.embedding_model || 'no embedding model'})`],
      ['watched by', file.job_path ? `job ${file.job_id} (${file.job_path})` : '-'],
    ];
    io.stdout.write(`${rows.map(([k, v]) => `${k.padEnd(11)}${v}`).join('\n')}\n`);
    return EXIT.ok;
  },
});
