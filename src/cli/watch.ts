/**
 * `filesift watch DIR`, `unwatch ID|DIR` and `index PATH`: they start work in the service and, unless told not
 * to wait, follow it with a progress bar until it completes. Ctrl-C stops following, never the work.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { IndexDirectoryResponse, IndexFileResponse } from '../http/routes/indexing.schemas.js';
import type { DeleteWatchJobResponse, WatchJobsResponse, WatchResponse } from '../http/routes/watch.schemas.js';
import { clientFor, type ServiceClient } from './client.js';
import { RunFollower, runSummary, type RunMatch } from './follow.js';
import { CliError, defineCommand, EXIT, SERVICE_OPTIONS, type CliIo } from './program.js';

const DETACH = { type: 'boolean', description: 'do not wait: return once the service has started the work' } as const;

/** Starts the work (with the event stream already open) and follows the run it starts. */
async function startAndFollow(client: ServiceClient, io: CliIo, detach: boolean, start: () => Promise<RunMatch>, label: string): Promise<number> {
  if (detach) {
    await start();
    return EXIT.ok;
  }
  const follower = await RunFollower.open(client);
  try {
    const match = await start();
    const run = await follower.follow(match, label, io);
    if (!run) {
      io.stderr.write('Stopped following; the work goes on in the service (filesift status shows it).\n');
      return EXIT.interrupted;
    }
    io.stdout.write(`${runSummary(run)}\n`);
    return run.completed.cancelled ? EXIT.failed : EXIT.ok;
  } finally {
    follower.close();
  }
}

export const watchCommand = defineCommand({
  name: 'watch',
  summary: 'Watch a folder: index it (with a progress bar) and keep it up to date',
  spec: {
    command: 'filesift watch',
    about: 'Adds a watched folder; shows its initial scan until it completes. Ctrl-C leaves the scan running.',
    positional: { name: 'DIR', description: 'the folder (relative paths are taken from here)', required: true, complete: 'directory' },
    options: {
      pattern: { type: 'string', value: 'GLOB', description: "only files matching this glob, e.g. '*.md'" },
      'not-recursive': { type: 'boolean', description: 'only the files of the folder itself, not its sub-folders' },
      detach: DETACH,
      ...SERVICE_OPTIONS,
    },
  },
  async run({ values, positionals }, io) {
    const dir = path.resolve(io.cwd, positionals[0]!);
    const client = clientFor(values, io.env);
    return startAndFollow(
      client,
      io,
      values.detach,
      async () => {
        const answer = await client.post<WatchResponse>('/api/watch', {
          directory_path: dir,
          recursive: !values['not-recursive'],
          ...(values.pattern ? { file_pattern: values.pattern } : {}),
        });
        io.stderr.write(`${answer.message}\n`);
        if (!values.detach) io.stderr.write('The scan starts once the watcher has listed the folder (a large tree takes a while)…\n');
        return (started) => started.kind === 'watch' && started.path === dir;
      },
      dir,
    );
  },
});

export const indexCommand = defineCommand({
  name: 'index',
  summary: 'Index a folder or a file once (without watching it), with a progress bar',
  spec: {
    command: 'filesift index',
    about: 'Indexes PATH now; a folder also loses the indexed files that are gone. Ctrl-C leaves the run going.',
    positional: { name: 'PATH', description: 'a folder or a file', required: true, complete: 'file' },
    options: {
      changed: { type: 'boolean', description: 'only new and changed files (default: every file again)' },
      detach: DETACH,
      ...SERVICE_OPTIONS,
    },
  },
  async run({ values, positionals }, io) {
    const target = path.resolve(io.cwd, positionals[0]!);
    const isDirectory = await stat(target).then(
      (s) => s.isDirectory(),
      () => false, // the service says what is wrong with it
    );
    const client = clientFor(values, io.env);
    const force = !values.changed;
    return startAndFollow(
      client,
      io,
      values.detach,
      async () => {
        const answer = isDirectory
          ? await client.post<IndexDirectoryResponse>('/api/index/directory', { directory_path: target, force })
          : await client.post<IndexFileResponse>('/api/index/file', { file_path: target, force });
        return answer.run_id;
      },
      target,
    );
  },
});

export const unwatchCommand = defineCommand({
  name: 'unwatch',
  summary: 'Stop watching a folder and remove its files from the index',
  spec: {
    command: 'filesift unwatch',
    positional: { name: 'ID|DIR', description: "the watch job's id or its folder", required: true, complete: 'directory' },
    options: { ...SERVICE_OPTIONS },
  },
  async run({ values, positionals }, io) {
    const client = clientFor(values, io.env);
    const given = positionals[0]!;
    let id: number;
    if (/^\d+$/.test(given)) id = Number(given);
    else {
      const dir = path.resolve(io.cwd, given);
      const { jobs } = await client.get<WatchJobsResponse>('/api/watch/jobs');
      const job = jobs.find((j) => j.path === dir);
      if (!job) throw new CliError(`${dir} is not a watched folder (filesift status lists them)`);
      id = job.id;
    }
    const answer = await client.delete<DeleteWatchJobResponse>(`/api/watch/jobs/${id}`);
    io.stdout.write(`${answer.message}\n`);
    return EXIT.ok;
  },
});
