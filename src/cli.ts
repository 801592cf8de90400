#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { checkPrivileges, ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { SchemaTooNewError } from './store/migrate.js';
import { PgvectorMissingError } from './store/engines/postgres.js';
import { startService } from './service.js';
import { healthCommand } from './cli/health.js';
import { pullModelCommand } from './cli/pull-model.js';
import { InstanceLockedError } from './lib/instance-lock.js';

const USAGE = `Usage: filesift [command] [options]

Commands:
  serve        Start the service (default). Configuration comes from the environment (see README).
  pull-model   Download the all-MiniLM-L6-v2 embedding model (see \`filesift pull-model --help\`).
  health       Exit 0 when the service on HOST:PORT answers and its database is reachable, else 1 (health checks).

Options:
  -h, --help     Show this help
  -v, --version  Show the version`;

/** Problems a user can fix get one clear line, not a stack trace. */
function isUserFacing(err: unknown): err is Error {
  return err instanceof ConfigError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) || err instanceof SchemaTooNewError || err instanceof PgvectorMissingError || err instanceof InstanceLockedError ||
    (err instanceof Error && /EADDRINUSE|EACCES|ECONNREFUSED|Cannot use the PostgreSQL server/.test(err.message));
}

async function serve(): Promise<void> {
  const config = loadConfig();
  checkPrivileges(config);
  const logger = createLogger(config.logLevel);
  const service = await startService(config, { logger });
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(130);
    }
    service.close(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** Runs pull-model; Ctrl-C cancels the download cleanly (no partial file is kept). */
async function pullModel(argv: string[]): Promise<void> {
  const controller = new AbortController();
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const code = await pullModelCommand(argv, process.env, { stdout: process.stdout, stderr: process.stderr }, controller.signal);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  // Commands other than serve parse their own options.
  if (argv[0] === 'pull-model') return pullModel(argv.slice(1));
  if (argv[0] === 'health') process.exit(await healthCommand(process.env, { stdout: process.stdout, stderr: process.stderr }));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
  });
  if (values.help) return void console.error(USAGE);
  if (values.version) return void process.stdout.write(`${loadConfig({ ...process.env, HOST: '127.0.0.1' }).version}\n`);
  const command = positionals[0] ?? 'serve';
  switch (command) {
    case 'serve':
      return serve();
    default:
      throw new ConfigError(`unknown command '${command}'\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (isUserFacing(err)) {
    console.error(`filesift: ${err.message}`);
  } else {
    console.error('filesift: failed to start:', err);
  }
  process.exit(1);
});
