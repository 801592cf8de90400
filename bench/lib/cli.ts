/**
 * The command line of every benchmark: src/lib/command-line.ts (parseArgs strict behind declared options, the
 * usage text, the value checks) with a bench's shape: one optional positional argument, and an entry point that
 * prints the usage and exits before the bench starts its work. Unit-tested in test/bench/lib.
 */
import {
  parseCommandLine,
  usage,
  UsageError,
  type CommandLineSpec,
  type CommandOption,
  type CommandValues,
} from '../../src/lib/command-line.js';

export { choiceOption, listOption, nonNegativeInt, positiveInt, positiveIntList } from '../../src/lib/command-line.js';
export { UsageError as BenchUsageError };

/** A `--name VALUE` option (a string, checked by the bench) or a `--flag` switch. */
export type BenchOption = CommandOption;
export type BenchOptions = Readonly<Record<string, BenchOption>>;
export type BenchCommand<O extends BenchOptions> = CommandLineSpec<O>;
export type BenchValues<O extends BenchOptions> = CommandValues<O>;

/** A parsed command line: the options' values and the positional argument. */
export interface BenchCommandLine<O extends BenchOptions> {
  values: BenchValues<O>;
  /** The positional argument, when the command declares one and it was given. */
  positional: string | undefined;
}

export interface BenchArgs<O extends BenchOptions> extends BenchCommandLine<O> {
  /** --help was given: print the usage and stop. */
  help: boolean;
}

/** The usage text: the command, its positional argument, and every option with its description and default. */
export const benchUsage = (cli: BenchCommand<BenchOptions>): string => usage(cli);

/** Parses `argv` against the bench's options (strict, see parseCommandLine); at most one positional argument. */
export function parseBenchArgs<O extends BenchOptions>(cli: BenchCommand<O>, argv: readonly string[]): BenchArgs<O> {
  const { values, positionals, help } = parseCommandLine({ ...cli, ...(cli.positional ? { positional: { ...cli.positional, variadic: false } } : {}) }, argv);
  return { values, positional: positionals[0], help };
}

/**
 * The bench's entry point: parses process.argv and hands the command line to `check`, which turns the values into
 * the bench's options with the validators above. --help prints the usage and exits 0; a usage error, or an error
 * thrown by `check`, prints its message and the usage to stderr and exits 2. So every option is checked before the
 * bench starts its work.
 */
export function readBenchArgs<O extends BenchOptions>(cli: BenchCommand<O>): BenchCommandLine<O>;
export function readBenchArgs<O extends BenchOptions, T>(cli: BenchCommand<O>, check: (line: BenchCommandLine<O>) => T, argv?: readonly string[]): T;
export function readBenchArgs<O extends BenchOptions, T>(
  cli: BenchCommand<O>,
  check?: (line: BenchCommandLine<O>) => T,
  argv: readonly string[] = process.argv.slice(2),
): T | BenchCommandLine<O> {
  try {
    const { help, ...line } = parseBenchArgs(cli, argv);
    if (help) {
      console.log(benchUsage(cli));
      process.exit(0);
    }
    return check ? check(line) : line;
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    console.error(err instanceof UsageError ? err.message : `${err.message}\n\n${benchUsage(cli)}`);
    process.exit(2);
  }
}
