/**
 * Command lines: `node:util` parseArgs in strict mode behind a declared list of options, so a misspelt option
 * (`--sacle 20000`, `--extt pdf`) stops with the usage text instead of being ignored. Used by the `filesift`
 * commands (src/cli) and by every benchmark (bench/lib/cli.ts). Plus the value checks they share: integers, one
 * of a few values, comma-separated lists. Unit-tested in test/lib and test/bench/lib.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** A `--name VALUE` option (a string, checked by the command) or a `--flag` switch. */
export type CommandOption =
  | {
      readonly type: 'string';
      readonly description: string;
      /** The value's placeholder in the usage text (default VALUE). */
      readonly value?: string;
      /** The value when the option is absent; the option's type is then `string`. */
      readonly default?: string;
      /** May be given more than once; the values come as a list. */
      readonly multiple?: boolean;
      /** The values shell completion offers (the command still checks them). */
      readonly choices?: readonly string[];
      /** What shell completion offers for the value: files or folders. */
      readonly complete?: 'file' | 'directory';
    }
  | { readonly type: 'boolean'; readonly description: string };

export type CommandOptions = Readonly<Record<string, CommandOption>>;

export interface CommandLineSpec<O extends CommandOptions> {
  /** How the command is started, e.g. `filesift search` or `npm run bench:search --`. */
  readonly command: string;
  /** What the command does, one line for --help. */
  readonly about?: string;
  readonly options: O;
  /** The positional argument the command takes (e.g. DIR); without it any positional argument is an error. */
  readonly positional?: {
    readonly name: string;
    readonly description: string;
    /** Must be given (usage shows NAME, not [NAME]). */
    readonly required?: boolean;
    /** Takes every remaining argument (usage shows NAME...). */
    readonly variadic?: boolean;
    /** What shell completion offers: files, folders, or these words. */
    readonly complete?: 'file' | 'directory' | readonly string[];
  };
  /** Lines printed after the options (e.g. environment variables the command reads). */
  readonly notes?: readonly string[];
}

/** The parsed values: `boolean` for a flag, `string[]` for a repeatable option, `string` with a default, else `string | undefined`. */
export type CommandValues<O extends CommandOptions> = {
  -readonly [K in keyof O]: O[K] extends { type: 'boolean' }
    ? boolean
    : O[K] extends { multiple: true }
      ? string[]
      : O[K] extends { default: string }
        ? string
        : string | undefined;
};

export interface ParsedCommandLine<O extends CommandOptions> {
  values: CommandValues<O>;
  /** The positional arguments (at most one unless the command's positional is variadic). */
  positionals: string[];
  /** --help was given: print the usage and stop. */
  help: boolean;
}

/** A command line the command cannot run with; the message names the problem and ends with the usage text. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An option's value is not one the command takes (the validators below throw it): a usage error too. */
export class OptionValueError extends Error {
  override name = 'OptionValueError';
}

export const HELP = 'help';

function positionalHead(p: NonNullable<CommandLineSpec<CommandOptions>['positional']>): string {
  const name = `${p.name}${p.variadic ? '...' : ''}`;
  return p.required ? name : `[${name}]`;
}

/** The usage text: the command, its positional argument, and every option with its description and default. */
export function usage(spec: CommandLineSpec<CommandOptions>): string {
  const rows: [string, string][] = [];
  if (spec.positional) rows.push([spec.positional.name, spec.positional.description]);
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.type === 'boolean') rows.push([`--${name}`, option.description]);
    else {
      const fallback = option.default === undefined ? '' : ` (default ${option.default})`;
      const again = option.multiple ? ' (may be repeated)' : '';
      rows.push([`--${name} ${option.value ?? 'VALUE'}`, `${option.description}${fallback}${again}`]);
    }
  }
  rows.push([`--${HELP}`, 'print this help and exit']);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const head = `${spec.command}${spec.positional ? ` ${positionalHead(spec.positional)}` : ''} [options]`;
  return [
    `Usage: ${head}`,
    ...(spec.about === undefined ? [] : [`  ${spec.about}`]),
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
    ...(spec.notes === undefined || spec.notes.length === 0 ? [] : ['', ...spec.notes]),
  ].join('\n');
}

/**
 * Parses `argv` against the command's options (strict): throws a UsageError for an unknown option, an option
 * without its value or with an ambiguous one (`--pg --engine x`), a non-repeatable option given twice, a value for
 * a flag, a positional argument the command does not take, or a required one missing.
 */
export function parseCommandLine<O extends CommandOptions>(spec: CommandLineSpec<O>, argv: readonly string[]): ParsedCommandLine<O> {
  if (HELP in spec.options) throw new Error(`--${HELP} is every command's own option; do not declare it`);
  const config: ParseArgsOptionsConfig = { [HELP]: { type: 'boolean', short: 'h' } };
  for (const [name, option] of Object.entries(spec.options)) {
    config[name] =
      option.type === 'boolean'
        ? { type: 'boolean' }
        : { type: 'string', ...(option.multiple ? { multiple: true } : {}), ...(option.default !== undefined ? { default: option.default } : {}) };
  }
  const problem = (message: string): UsageError => new UsageError(`${message}\n\n${usage(spec)}`);

  const parsed = strictParse(argv, config, problem);
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (seen.has(token.name) && !(option?.type === 'string' && option.multiple)) throw problem(`option '--${token.name}' is given more than once`);
    seen.add(token.name);
  }
  if (parsed.values[HELP] === true) return { values: {} as CommandValues<O>, positionals: parsed.positionals, help: true };
  const positionals = parsed.positionals;
  const [first, second] = positionals;
  if (first !== undefined && !spec.positional) throw problem(`unexpected argument '${first}': this command takes options only`);
  if (second !== undefined && !spec.positional?.variadic) throw problem(`unexpected argument '${second}': this command takes one ${spec.positional?.name ?? 'argument'}`);
  if (first === undefined && spec.positional?.required) throw problem(`missing ${spec.positional.name}`);

  const values: Record<string, string | string[] | boolean | undefined> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    const value = parsed.values[name];
    if (option.type === 'boolean') values[name] = value === true;
    else if (option.multiple) values[name] = Array.isArray(value) ? value.map(String) : [];
    else values[name] = typeof value === 'string' ? value : undefined;
  }
  // The loop above gave each declared option a value of the type CommandValues<O> says it has.
  return { values: values as CommandValues<O>, positionals, help: false };
}

/** parseArgs in strict mode; its errors become usage errors. */
function strictParse(argv: readonly string[], config: ParseArgsOptionsConfig, problem: (message: string) => UsageError) {
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
  const token = tokens.find((t) => t.kind === 'option' && !known.includes(t.name) && !(t.name === 'h' && known.includes(HELP)));
  return token?.kind === 'option' ? `unknown option '${token.rawName}'` : 'unknown option';
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
  if (!Number.isSafeInteger(n) || n < min) throw new OptionValueError(`--${name} must be a ${min === 1 ? 'positive' : 'non-negative'} integer, got '${text}'`);
  return n;
}

/** `--name`'s value, which must be one of `allowed`; `fallback` when the option is absent. */
export function choiceOption<const T extends string>(name: string, text: string, allowed: readonly T[]): T;
export function choiceOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback: T): T;
export function choiceOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback?: T): T | undefined {
  if (text === undefined) return fallback;
  const found = allowed.find((a) => a === text);
  if (found === undefined) throw new OptionValueError(`--${name} must be one of ${allowed.join(', ')}, got '${text}'`);
  return found;
}

/** `--name a,b`: each item must be one of `allowed`; `fallback` when the option is absent. */
export function listOption<const T extends string>(name: string, text: string, allowed: readonly T[]): T[];
export function listOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[];
export function listOption<const T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback?: readonly T[]): T[] {
  if (text === undefined) return [...(fallback ?? [])];
  return listItems(name, text).map((item) => {
    const found = allowed.find((a) => a === item);
    if (found === undefined) throw new OptionValueError(`--${name}: unknown value '${item}'; allowed: ${allowed.join(', ')}`);
    return found;
  });
}

/** `--name 1,2`: a list of integers ≥ 1; `fallback` when the option is absent. */
export function positiveIntList(name: string, text: string): number[];
export function positiveIntList(name: string, text: string | undefined, fallback: readonly number[]): number[];
export function positiveIntList(name: string, text: string | undefined, fallback?: readonly number[]): number[] {
  if (text === undefined) return [...(fallback ?? [])];
  return listItems(name, text).map((item) => positiveInt(name, item));
}

/** `--name a,b` split on commas; an empty item is an error. */
export function listItems(name: string, text: string): string[] {
  const list = text.split(',');
  if (list.some((item) => item === '')) throw new OptionValueError(`--${name} must be a comma-separated list without empty items, got '${text}'`);
  return list;
}
