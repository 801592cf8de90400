/**
 * The `filesift` command line: a table of commands, each a declared command line (src/lib/command-line.ts) and a
 * run function; this module dispatches, prints help on stdout, and turns every failure into one line on stderr
 * and an exit code. Commands that talk to the running service take --url and --token (or FILESIFT_URL and
 * FILESIFT_API_TOKEN).
 */
import { DEFAULT_PORT } from '../config.js';
import { OptionValueError, parseCommandLine, usage, UsageError, type CommandLineSpec, type CommandOptions, type ParsedCommandLine } from '../lib/command-line.js';

/** The exit codes, as `filesift --help` and the README document them. */
export const EXIT = {
  ok: 0,
  /** The service answered an error, cannot be reached, or the work failed. */
  failed: 1,
  /** The command line is wrong: unknown command or option, a bad or missing value. */
  usage: 2,
  /** Ctrl-C (work the service started goes on). */
  interrupted: 130,
} as const;

/** A failure a person can act on: printed as one line, exit code 1 (or the one given). */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  /** Relative paths on the command line are resolved against it. */
  cwd: string;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}

export interface CliCommand<O extends CommandOptions = CommandOptions> {
  name: string;
  /** One line in `filesift --help`. */
  summary: string;
  spec: CommandLineSpec<O>;
  /** Answers the exit code. */
  run(line: ParsedCommandLine<O>, io: CliIo): Promise<number>;
}

/** Keeps a command's option types while it sits in a list of commands. */
export const defineCommand = <O extends CommandOptions>(command: CliCommand<O>): CliCommand => command as unknown as CliCommand;

/** --url and --token, for every command that talks to the running service. */
export const SERVICE_OPTIONS = {
  url: { type: 'string', value: 'URL', description: 'the running service (default: FILESIFT_URL, else http://127.0.0.1:PORT)' },
  token: { type: 'string', value: 'TOKEN', description: 'its API token (default: FILESIFT_API_TOKEN)' },
} as const;

/** Where the service is: --url, FILESIFT_URL, or HOST and PORT as the service reads them (a wildcard HOST means this machine). */
export function serviceUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = flag ?? env.FILESIFT_URL?.trim();
  if (url) {
    if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must start with http:// or https://, got '${url}'`);
    return url.replace(/\/+$/, '');
  }
  let host = env.HOST?.trim() || '127.0.0.1';
  if (host === '0.0.0.0' || host === '::') host = '127.0.0.1';
  if (host.includes(':')) host = `[${host}]`;
  return `http://${host}:${env.PORT?.trim() || DEFAULT_PORT}`;
}

export const EXIT_CODES_TEXT = `Exit codes: ${EXIT.ok} done; ${EXIT.failed} the service answered an error, cannot be reached, or the work failed;
            ${EXIT.usage} a wrong command line; ${EXIT.interrupted} interrupted (Ctrl-C; work the service started goes on).`;

export function mainHelp(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'Usage: filesift COMMAND [options]     (filesift COMMAND --help for its options)',
    '',
    'Local file indexing and hybrid search. `filesift serve` starts the service; the other commands talk to it.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Options:',
    '  -h, --help       print this help',
    '  -v, --version    print the version',
    '',
    'Environment: FILESIFT_URL (or HOST and PORT) and FILESIFT_API_TOKEN tell the commands where the service is;',
    'the service itself reads the variables listed in the README (FILESIFT_DATA_DIR, DATABASE_URL, ...).',
    EXIT_CODES_TEXT,
  ].join('\n');
}

/** Runs one command line; answers the exit code. Nothing here exits the process. */
export async function runProgram(commands: readonly CliCommand[], argv: readonly string[], io: CliIo, version: string): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.stdout.write(`${mainHelp(commands)}\n`);
    return EXIT.ok;
  }
  if (first === '-v' || first === '--version') {
    io.stdout.write(`${version}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === first);
  if (!command) {
    io.stderr.write(`filesift: unknown command '${first}'; the commands are ${commands.map((c) => c.name).join(', ')} (filesift --help)\n`);
    return EXIT.usage;
  }
  try {
    const line = parseCommandLine(command.spec, rest);
    if (line.help) {
      io.stdout.write(`${usageOf(command)}\n`);
      return EXIT.ok;
    }
    return await command.run(line, io);
  } catch (err) {
    if (err instanceof OptionValueError) {
      io.stderr.write(`filesift ${command.name}: ${err.message} (filesift ${command.name} --help)\n`);
      return EXIT.usage;
    }
    if (err instanceof UsageError) {
      // One line: the problem (the usage text that follows it in the message is --help's).
      io.stderr.write(`filesift ${command.name}: ${err.message.split('\n')[0]} (filesift ${command.name} --help)\n`);
      return EXIT.usage;
    }
    if (err instanceof CliError) {
      io.stderr.write(`filesift: ${err.message}\n`);
      return err.exitCode;
    }
    io.stderr.write(`filesift ${command.name} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  }
}

/** A command's usage text: its declared command line, and the exit codes. */
function usageOf(command: CliCommand): string {
  return `${usage(command.spec)}\n\n${EXIT_CODES_TEXT}`;
}
