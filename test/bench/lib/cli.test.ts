import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchUsage,
  BenchUsageError,
  choiceOption,
  listOption,
  nonNegativeInt,
  parseBenchArgs,
  positiveInt,
  positiveIntList,
  readBenchArgs,
  type BenchCommand,
  type BenchOptions,
} from '../../../bench/lib/cli.js';

const SEARCH = {
  command: 'npm run bench:search --',
  about: 'Search latency.',
  options: {
    engine: { type: 'string', value: 'pglite|postgres|both', default: 'both', description: 'engines of the SciFact part' },
    scale: { type: 'string', value: 'N', description: 'synthetic files of the scale part' },
    pg: { type: 'string', value: 'URL', description: 'PostgreSQL server' },
    'skip-scale': { type: 'boolean', description: 'SciFact only' },
  },
  notes: ['PostgreSQL: --pg, else TEST_DATABASE_URL.'],
} satisfies BenchCommand<BenchOptions>;

/** The usage error parseBenchArgs throws for `argv` (fails the test when it throws none or another kind). */
function usageError(cli: BenchCommand<BenchOptions>, argv: string[]): BenchUsageError {
  try {
    parseBenchArgs(cli, argv);
  } catch (err) {
    if (err instanceof BenchUsageError) return err;
    throw err;
  }
  expect.fail(`no error for ${JSON.stringify(argv)}`);
}

describe('benchUsage', () => {
  it('lists the command, every option with its placeholder, description and default, --help and the notes', () => {
    const usage = benchUsage(SEARCH);
    expect(usage.split('\n')[0]).to.equal('Usage: npm run bench:search -- [options]');
    expect(usage).to.match(/^ {2}--engine pglite\|postgres\|both +engines of the SciFact part \(default both\)$/m);
    expect(usage).to.match(/^ {2}--scale N +synthetic files of the scale part$/m);
    expect(usage).to.match(/^ {2}--skip-scale +SciFact only$/m);
    expect(usage).to.match(/^ {2}--help +print this help and exit$/m);
    expect(usage).to.contain('Search latency.');
    expect(usage.endsWith('PostgreSQL: --pg, else TEST_DATABASE_URL.')).to.equal(true);
  });

  it('names the positional argument when the command takes one', () => {
    const usage = benchUsage({ command: 'npm run bench:index --', positional: { name: 'DIR', description: 'the corpus' }, options: {} });
    expect(usage.split('\n')[0]).to.equal('Usage: npm run bench:index -- [DIR] [options]');
    expect(usage).to.match(/^ {2}DIR +the corpus$/m);
  });
});

describe('parseBenchArgs', () => {
  it('gives string options, flags and defaults their values, typed by the declaration', () => {
    const { values, positional, help } = parseBenchArgs(SEARCH, ['--scale', '20000', '--skip-scale', '--pg=postgres://h/db']);
    // Typed: a defaulted option is a string, a flag a boolean, any other option string | undefined.
    const engine: string = values.engine;
    const skip: boolean = values['skip-scale'];
    const scale: string | undefined = values.scale;
    expect({ engine, skip, scale, pg: values.pg }).to.deep.equal({ engine: 'both', skip: true, scale: '20000', pg: 'postgres://h/db' });
    expect(positional).to.equal(undefined);
    expect(help).to.equal(false);
  });

  it('leaves absent options undefined and absent flags false', () => {
    const { values } = parseBenchArgs(SEARCH, ['--engine', 'pglite']);
    expect(values).to.deep.equal({ engine: 'pglite', scale: undefined, pg: undefined, 'skip-scale': false });
  });

  it('reports --help, which every command takes', () => {
    expect(parseBenchArgs(SEARCH, ['--help']).help).to.equal(true);
    expect(parseBenchArgs({ command: 'x', options: {} }, ['--help']).help).to.equal(true);
  });

  it('rejects an unknown option, naming it and listing the options', () => {
    const err = usageError(SEARCH, ['--sacle', '20000']);
    expect(err.message.split('\n')[0]).to.equal("unknown option '--sacle'");
    expect(err.message).to.contain('Usage: npm run bench:search -- [options]');
    expect(err.message).to.match(/--engine pglite\|postgres\|both +engines of the SciFact part/);
    expect(err.message).to.match(/--skip-scale +SciFact only/);
    expect(usageError(SEARCH, ['--bogus']).message.split('\n')[0]).to.equal("unknown option '--bogus'");
    expect(usageError(SEARCH, ['-s']).message.split('\n')[0]).to.equal("unknown option '-s'");
  });

  it('rejects an option without its value', () => {
    const err = usageError(SEARCH, ['--pg']);
    expect(err.message).to.match(/^Option '--pg <value>' argument missing/);
    expect(err.message).to.contain('Usage: npm run bench:search --');
  });

  it('rejects an ambiguous value (the next option taken for the value)', () => {
    const err = usageError(SEARCH, ['--pg', '--engine', 'pglite']);
    expect(err.message).to.match(/^Option '--pg' argument is ambiguous/);
    expect(err.message).to.contain('Usage: npm run bench:search --');
  });

  it('rejects a value given to a flag and an option given twice', () => {
    expect(usageError(SEARCH, ['--skip-scale=yes']).message).to.match(/^Option '--skip-scale' does not take an argument/);
    expect(usageError(SEARCH, ['--scale', '1', '--scale', '2']).message.split('\n')[0]).to.equal("option '--scale' is given more than once");
  });

  it('rejects a positional argument unless the command declares one, and a second one always', () => {
    expect(usageError(SEARCH, ['pglite']).message.split('\n')[0]).to.equal("unexpected argument 'pglite': this command takes options only");
    const index = { command: 'npm run bench:index --', positional: { name: 'DIR', description: 'the corpus' }, options: SEARCH.options };
    expect(parseBenchArgs(index, ['--scale', '3', '/data/docs']).positional).to.equal('/data/docs');
    expect(parseBenchArgs(index, ['/data/docs', '--scale', '3']).values.scale).to.equal('3');
    expect(parseBenchArgs(index, []).positional).to.equal(undefined);
    expect(usageError(index, ['/a', '/b']).message.split('\n')[0]).to.equal("unexpected argument '/b': this command takes one DIR");
  });

  it('refuses a command that declares --help itself', () => {
    expect(() => parseBenchArgs({ command: 'x', options: { help: { type: 'boolean', description: 'mine' } } }, [])).to.throw(/--help is every command's own option/);
  });
});

describe('readBenchArgs', () => {
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'cli-entry.js');
  const run = (...argv: string[]) => spawnSync(process.execPath, [entry, ...argv], { encoding: 'utf8', timeout: 30_000 });

  it("answers what the bench's check makes of a good command line", () => {
    const r = run('/data', '--quick', '--scale', '7');
    expect(r.stderr).to.equal('');
    expect(r.status).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({ dir: '/data', scale: 7, quick: true });
  });

  it('prints the usage to stdout and exits 0 on --help, before the bench goes on', () => {
    const r = run('--help');
    expect(r.status).to.equal(0);
    expect(r.stdout).to.match(/^Usage: node cli-entry.js \[DIR\] \[options\]\n/);
    expect(r.stdout).to.match(/--scale N +synthetic files \(default 100\)/);
    expect(r.stdout).not.to.contain('{');
    expect(r.stderr).to.equal('');
  });

  it('prints the problem and the usage to stderr and exits 2 on a usage error, before the bench goes on', () => {
    const r = run('--sacle', '5');
    expect(r.status).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(/^unknown option '--sacle'\n\nUsage: node cli-entry.js/);
  });

  it("does the same when the bench's check rejects a value", () => {
    const r = run('--scale', 'many');
    expect(r.status).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(/^--scale must be a positive integer, got 'many'\n\nUsage: node cli-entry.js/);
  });

  it("returns the check's answer in the calling process when the command line is good", () => {
    expect(readBenchArgs(SEARCH, ({ values }) => values.engine, ['--engine', 'postgres'])).to.equal('postgres');
  });
});

describe('positiveInt', () => {
  it('reads an integer of at least 1, or the fallback when the option is absent', () => {
    expect(positiveInt('clients', '8')).to.equal(8);
    expect(positiveInt('clients', undefined, 4)).to.equal(4);
    expect(positiveInt('limit', undefined, undefined)).to.equal(undefined);
    expect(positiveInt('limit', '500', undefined)).to.equal(500);
  });

  it('rejects zero, negatives, fractions, exponents and words, naming the option and the value', () => {
    expect(() => positiveInt('clients', '0')).to.throw("--clients must be a positive integer, got '0'");
    for (const bad of ['-3', '2.5', '1e5', 'x', '', ' 7', '99999999999999999999']) {
      expect(() => positiveInt('clients', bad), bad).to.throw(`--clients must be a positive integer, got '${bad}'`);
    }
  });
});

describe('nonNegativeInt', () => {
  it('reads an integer of at least 0, or the fallback when the option is absent', () => {
    expect(nonNegativeInt('scale', '0')).to.equal(0);
    expect(nonNegativeInt('scale', '20000')).to.equal(20_000);
    expect(nonNegativeInt('scale', undefined, 100_000)).to.equal(100_000);
  });

  it('rejects negatives and non-integers', () => {
    expect(() => nonNegativeInt('scale', '-1')).to.throw("--scale must be a non-negative integer, got '-1'");
    expect(() => nonNegativeInt('scale', '1e5x')).to.throw("--scale must be a non-negative integer, got '1e5x'");
  });
});

describe('choiceOption', () => {
  it('answers the value when it is one of the allowed ones, the fallback when absent', () => {
    const split: 'test' | 'train' = choiceOption('split', 'train', ['test', 'train']);
    expect(split).to.equal('train');
    expect(choiceOption('split', undefined, ['test', 'train'], 'test')).to.equal('test');
  });

  it('rejects any other value, listing the allowed ones', () => {
    expect(() => choiceOption('split', 'dev', ['test', 'train'])).to.throw("--split must be one of test, train, got 'dev'");
  });
});

describe('listOption', () => {
  const MODES = ['hybrid', 'keyword', 'semantic'] as const;

  it('splits a comma-separated list of allowed values, keeping its order', () => {
    const modes: ('hybrid' | 'keyword' | 'semantic')[] = listOption('modes', 'keyword,hybrid', MODES);
    expect(modes).to.deep.equal(['keyword', 'hybrid']);
    expect(listOption('modes', undefined, MODES, ['hybrid'])).to.deep.equal(['hybrid']);
  });

  it('rejects an unknown or empty item, naming it and the allowed values', () => {
    expect(() => listOption('modes', 'hybrid,semantik', MODES)).to.throw("--modes: unknown value 'semantik'; allowed: hybrid, keyword, semantic");
    expect(() => listOption('modes', 'hybrid,,keyword', MODES)).to.throw("--modes must be a comma-separated list without empty items, got 'hybrid,,keyword'");
    expect(() => listOption('modes', '', MODES)).to.throw(/--modes must be a comma-separated list/);
  });
});

describe('positiveIntList', () => {
  it('splits a comma-separated list of positive integers, or answers the fallback', () => {
    expect(positiveIntList('threads', '1,2')).to.deep.equal([1, 2]);
    expect(positiveIntList('threads', '4')).to.deep.equal([4]);
    expect(positiveIntList('threads', undefined, [1, 2])).to.deep.equal([1, 2]);
  });

  it('rejects a bad item, naming the option and the item', () => {
    expect(() => positiveIntList('threads', '1,0')).to.throw("--threads must be a positive integer, got '0'");
    expect(() => positiveIntList('threads', '1,two')).to.throw("--threads must be a positive integer, got 'two'");
    expect(() => positiveIntList('threads', '1,')).to.throw(/--threads must be a comma-separated list/);
  });
});
