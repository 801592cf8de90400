/**
 * The command line of every benchmark: `node:util` parseArgs in strict mode behind a declared list of options, so a
 * misspelt option (`--sacle 20000`) stops the run with a usage text instead of being ignored for an hour. Plus the
 * checks several benches share: integers, one of a few values, comma-separated lists. Unit-tested in test/bench/lib.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** A `--name VALUE` option (a string, checked by the bench) or a `--flag` switch. */
export type BenchOption =
  | {
      readonly type: 'string';
      readonly description: string;
      /** The value's placeholder in the usage text (default VALUE). */
      readonly value?: string;
      /** The value when the option is absent; the option's type is then `string`. */
      readonly default?: string;
    }
  | { readonly type: 'boolean'; readonly description: string };

export type BenchOptions = Readonly<Record<string, BenchOption>>;

export interface BenchCommand<O extends BenchOptions> {
  /** How the bench is started, e.g. `npm run bench:search --`. */
  readonly command: string;
  /** What the bench measures, one line for --help. */
  readonly about?: string;
  readonly options: O;
  /** The one positional argument the bench takes (e.g. DIR); without it any positional argument is an error. */
  readonly positional?: { readonly name: string; readonly description: string };
  /** Lines printed after the options (e.g. environment variables the bench reads). */
  readonly notes?: readonly string[];
}

/** The parsed values: `boolean` for a flag, `string` for an option with a default, else `string | undefined`. */
export type BenchValues<O extends BenchOptions> = {
  -readonly [K in keyof O]: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { default: string } ? string : string | undefined;
};

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

/** A command line the bench cannot run with; the message names the problem and ends with the usage text. */
export class BenchUsageError extends Error {
  override name = 'BenchUsageError';
}

const HELP = 'help';

/** The usage text: the command, its positional argument, and every option with its description and default. */
export function benchUsage(cli: BenchCommand<BenchOptions>): string {
  const rows: [string, string][] = [];
  if (cli.positional) rows.push([cli.positional.name, cli.positional.description]);
  for (const [name, option] of Object.entries(cli.options)) {
    if (option.type === 'boolean') rows.push([`--${name}`, option.description]);
    else {
      const fallback = option.default === undefined ? '' : ` (default ${option.default})`;
      rows.push([`--${name} ${option.value ?? 'VALUE'}`, `${option.description}${fallback}`]);
    }
  }
  rows.push([`--${HELP}`, 'print this help and exit']);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const head = `${cli.command}${cli.positional ? ` [${cli.positional.name}]` : ''} [options]`;
  return [
    `Usage: ${head}`,
    ...(cli.about === undefined ? [] : [`  ${cli.about}`]),
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
    ...(cli.notes === undefined || cli.notes.length === 0 ? [] : ['', ...cli.notes]),
  ].join('\n');
}

/**
 * Parses `argv` against the command's options (strict): throws a BenchUsageError for an unknown option, an option
 * without its value or with an ambiguous one (`--pg --engine x`), an option given twice, a value for a flag, or a
 * positional argument the command does not take.
 */
export function parseBenchArgs<O extends BenchOptions>(cli: BenchCommand<O>, argv: readonly string[]): BenchArgs<O> {
  if (HELP in cli.options) throw new Error(`--${HELP} is every bench's own option; do not declare it`);
  const config: ParseArgsOptionsConfig = { [HELP]: { type: 'boolean' } };
  for (const [name, option] of Object.entries(cli.options)) {
    config[name] = option.type === 'string' && option.default !== undefined ? { type: 'string', default: option.default } : { type: option.type };
  }
  const problem = (message: string): BenchUsageError => new BenchUsageError(`${message}\n\n${benchUsage(cli)}`);

  const parsed = strictParse(argv, config, problem);
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw problem(`option '--${token.name}' is given more than once`);
    seen.add(token.name);
  }
  const [positional, ...extra] = parsed.positionals;
  if (positional !== undefined && !cli.positional) throw problem(`unexpected argument '${positional}': this command takes options only`);
  if (extra.length > 0) throw problem(`unexpected argument '${extra[0]}': this command takes one ${cli.positional?.name ?? 'argument'}`);

  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, option] of Object.entries(cli.options)) {
    const value = parsed.values[name];
    values[name] = option.type === 'boolean' ? value === true : typeof value === 'string' ? value : undefined;
  }
  // The loop above gave each declared option a value of the type BenchValues<O> says it has.
  return { values: values as BenchValues<O>, positional, help: parsed.values[HELP] === true };
}

/** parseArgs in strict mode; its errors become usage errors. */
function strictParse(argv: readonly string[], config: ParseArgsOptionsConfig, problem: (message: string) => BenchUsageError) {
  try {
    return parseArgs({ args: [...argv], options: config, strict: true, allowPositionals: true, tokens: true });
  } catch (err) {
    if (!(err instanceof Error) || !('code' in err) || typeof err.code !== 'string' || !err.code.startsWith('ERR_PARSE_ARGS_')) throw err;
    throw problem(err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOption(argv, Object.keys(config)) : err.message);
  }
}

/** "unknown option '--sacle'": the first option of argv the command does not declare (the usage lists the rest). */
function unknownOption(argv: readonly string[], known: readonly string[]): string {
  const { tokens } = parseArgs({ args: [...argv], strict: false, allowPositionals: true, tokens: true });
  const token = tokens.find((t) => t.kind === 'option' && !known.includes(t.name));
  return token?.kind === 'option' ? `unknown option '${token.rawName}'` : 'unknown option';
}

/**
 * The bench's entry point: parses process.argv and hands the command line to `check`, which turns the values into
 * the bench's options with the validators below. --help prints the usage and exits 0; a usage error, or an error
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
    console.error(err instanceof BenchUsageError ? err.message : `${err.message}\n\n${benchUsage(cli)}`);
    process.exit(2);
  }
}

/** `--name`'s value as an integer ≥ 1; `fallback` when the option is absent. */
export function positiveInt(name: string, text: string): number;
export function positiveInt<F extends number | undefined>(name: string, text: string | undefined, fallback: F): number | F;
export function positiveInt(name: string, text: string | undefined, fallback?: number): number | undefined {
  return text === undefined ? fallback : integer(name, text, 1);
}

/** `--name`'s value as an integer ≥ 0; `fallback` when the option is absent. */
export function nonNegativeInt(name: string, text: string): number;
export function nonNegativeInt<F extends number | undefined>(name: string, text: string | undefined, fallback: F): number | F;
export function nonNegativeInt(name: string, text: string | undefined, fallback?: number): number | undefined {
  return text === undefined ? fallback : integer(name, text, 0);
}

function integer(name: string, text: string, min: 0 | 1): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be a ${min === 1 ? 'positive' : 'non-negative'} integer, got '${text}'`);
  return n;
}

/** `--name`'s value, which must be one of `allowed`; `fallback` when the option is absent. */
export function choiceOption<const T extends string>(name: string, text: string, allowed: readonly T[]): T;
export function choiceOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback: T): T;
export function choiceOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback?: T): T | undefined {
  if (text === undefined) return fallback;
  const found = allowed.find((a) => a === text);
  if (found === undefined) throw new Error(`--${name} must be one of ${allowed.join(', ')}, got '${text}'`);
  return found;
}

/** `--name a,b`: each item must be one of `allowed`; `fallback` when the option is absent. */
export function listOption<const T extends string>(name: string, text: string, allowed: readonly T[]): T[];
export function listOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[];
export function listOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback?: readonly T[]): T[] {
  if (text === undefined) return [...(fallback ?? [])];
  return items(name, text).map((item) => {
    const found = allowed.find((a) => a === item);
    if (found === undefined) throw new Error(`--${name}: unknown value '${item}'; allowed: ${allowed.join(', ')}`);
    return found;
  });
}

/** `--name 1,2`: a list of integers ≥ 1; `fallback` when the option is absent. */
export function positiveIntList(name: string, text: string): number[];
export function positiveIntList(name: string, text: string | undefined, fallback: readonly number[]): number[];
export function positiveIntList(name: string, text: string | undefined, fallback?: readonly number[]): number[] {
  if (text === undefined) return [...(fallback ?? [])];
  return items(name, text).map((item) => positiveInt(name, item));
}

function items(name: string, text: string): string[] {
  const list = text.split(',');
  if (list.some((item) => item === '')) throw new Error(`--${name} must be a comma-separated list without empty items, got '${text}'`);
  return list;
}
