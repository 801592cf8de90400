#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=8
/**
 * The `filesift` command: `serve` starts the service (here, since it needs the composition root); every other
 * command talks to a running service (src/cli/). Bare `filesift` prints the help, never a second server.
 *
 * The first line tunes glibc's malloc (read by glibc as the process starts, so it cannot be set from here): two
 * arenas, since by default every busy thread gets its own and the service's dozen threads leave each one's freed
 * memory resident; and allocations of 128 KB and more mapped on their own, so that a freed file buffer goes back
 * to the system (glibc's own threshold climbs to 32 MB after the first large free, and those buffers then stay in
 * the arenas). And the main thread's young generation at 16 MB (the worker threads set theirs, store/thread.ts and
 * pipeline/pool.ts): V8 sizes it for the machine, and newer ones let it grow to 64 MB (Node 26) or 128 MB (Node 24)
 * of a thread that only routes messages (its heap at the bulk run's peak: 97–103 → 56–60 MB on Node 26, the same
 * CPU). README "Memory". `npm start` and the Docker image set all three the same way; elsewhere they are harmless.
 */
import { checkPrivileges, ConfigError, loadConfig, packageVersion } from './config.js';
import { createLogger } from './logger.js';
import { CliError, defineCommand, runProgram, type CliIo } from './cli/program.js';
import { nonNegativeInt } from './lib/command-line.js';

/** Problems a user can fix get one clear line, not a stack trace. */
function isUserFacing(err: unknown, known: readonly (abstract new (...args: never[]) => Error)[]): err is Error {
  return err instanceof ConfigError || known.some((k) => err instanceof k) ||
    (err instanceof Error && /EADDRINUSE|EACCES|ECONNREFUSED|Cannot use the PostgreSQL server/.test(err.message));
}

const serveCommand = defineCommand({
  name: 'serve',
  summary: 'Start the service (the web app and the API at http://127.0.0.1:60534)',
  spec: {
    command: 'filesift serve',
    about: 'Starts the service in the foreground; Ctrl-C or SIGTERM stops it gracefully. Logs are JSON lines on stderr.',
    options: {
      host: { type: 'string', value: 'HOST', description: 'address to listen on (default: HOST, else 127.0.0.1)' },
      port: { type: 'string', value: 'PORT', description: 'TCP port (default: PORT, else 60534; 0 picks a free one)' },
      'data-dir': { type: 'string', value: 'DIR', description: 'where the embedded database and models live (default: FILESIFT_DATA_DIR)', complete: 'directory' },
    },
    notes: ['Everything else comes from the environment (README, Configuration).'],
  },
  async run({ values }, io) {
    const env = { ...io.env };
    if (values.host !== undefined) env.HOST = values.host;
    if (values.port !== undefined) env.PORT = String(nonNegativeInt('port', values.port));
    if (values['data-dir'] !== undefined) env.FILESIFT_DATA_DIR = values['data-dir'];
    await serve(env);
    return new Promise<number>(() => undefined); // the signal handlers exit
  },
});

async function serve(env: NodeJS.ProcessEnv): Promise<void> {
  let config;
  let service;
  let known: (abstract new (...args: never[]) => Error)[] = [];
  try {
    config = loadConfig(env);
    checkPrivileges(config);
    const logger = createLogger(config.logLevel);
    // The lock, the port and PGlite's thread first, from a module that loads in a few ms: the store's open (~0.8 s
    // on its thread) overlaps the loading of the rest of the service on this one instead of following it.
    const { beginService } = await import('./service-start.js');
    const begun = beginService(config);
    begun.catch(() => undefined); // thrown by startService, which awaits it
    // Loaded here, not at the top: the other commands start in a fraction of the time without the service's modules.
    const [{ startService }, { SchemaTooNewError }, { PgvectorMissingError }, { InstanceLockedError }] = await Promise.all([
      import('./service.js'),
      import('./store/migrate.js'),
      import('./store/engines/errors.js'),
      import('./lib/instance-lock.js'),
    ]);
    known = [SchemaTooNewError, PgvectorMissingError, InstanceLockedError];
    service = await startService(config, { logger, begun });
    const started = service;
    let signals = 0;
    const stop = (signal: NodeJS.Signals) => {
      if (++signals > 1) {
        logger.warn({ signal }, 'second signal: exiting without waiting');
        process.exit(130);
      }
      started.close(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'error during shutdown');
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (err) {
    if (isUserFacing(err, known)) throw new CliError(err.message);
    console.error('filesift: failed to start:', err);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const controller = new AbortController();
  const argv = process.argv.slice(2);
  if (argv[0] !== 'serve') {
    // Ctrl-C stops a command that follows the service's work (never the work itself); serve handles its own signals.
    process.once('SIGINT', () => controller.abort());
    process.once('SIGTERM', () => controller.abort());
  }
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal };
  // `serve` alone needs none of the client commands' modules (the HTTP client, server-sent events, progress bars):
  // every start of the service would load them for nothing.
  const commands = argv[0] === 'serve' ? [serveCommand] : (await import('./cli/commands.js')).clientCommands(serveCommand);
  const code = await runProgram(commands, argv, io, packageVersion());
  // Idle keep-alive sockets would hold the process a few seconds: exit once what was written is flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

void main();
