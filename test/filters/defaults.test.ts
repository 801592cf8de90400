import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Value } from '#typebox/value';
import {
  DEFAULT_BLACKLIST_INCLUDE,
  DEFAULT_EXCLUDE,
  DEFAULT_EXCLUDE_GROUPS,
  DEFAULT_WHITELIST_INCLUDE,
  DEVELOPER_EXCLUDES,
  defaultFilterConfig,
} from '../../src/filters/defaults.js';
import { compileFilter } from '../../src/filters/matcher.js';
import { patternKey, validatePattern } from '../../src/filters/pattern.js';
import { FilterConfigSchema } from '../../src/filters/schema.js';
import { repoRoot } from '../helpers/shared.js';

const docs = readFileSync(path.join(repoRoot, 'docs', 'filters.md'), 'utf8');

function expectValidUnique(list: readonly string[]): void {
  const keys = new Set<string>();
  for (const p of list) {
    expect(validatePattern(p), p).to.deep.equal({ ok: true, pattern: p });
    expect(keys.has(patternKey(p)), `duplicate ${p}`).to.equal(false);
    keys.add(patternKey(p));
  }
}

describe('DEFAULT_EXCLUDE_GROUPS', () => {
  it('holds valid, unique patterns, each group explained', () => {
    expectValidUnique(DEFAULT_EXCLUDE_GROUPS.flatMap((g) => g.patterns));
    for (const g of DEFAULT_EXCLUDE_GROUPS) {
      expect(g.why.length, g.id).to.be.greaterThan(20);
      expect(g.patterns.length, g.id).to.be.greaterThan(0);
    }
  });

  it('is documented pattern by pattern in docs/filters.md', () => {
    for (const p of DEFAULT_EXCLUDE_GROUPS.flatMap((g) => g.patterns)) expect(docs, p).to.include('`' + p + '`');
  });
});

describe('DEFAULT_EXCLUDE', () => {
  it('is every group pattern, in group order', () => {
    expect(DEFAULT_EXCLUDE).to.deep.equal(DEFAULT_EXCLUDE_GROUPS.flatMap((g) => g.patterns));
  });
});

describe('the default filters on secrets', () => {
  it('keep shell and REPL histories, Terraform credentials and browser/mail password stores out', () => {
    const m = compileFilter(defaultFilterConfig());
    for (const p of [
      '.bash_history', '.zsh_history', '.mysql_history', '.psql_history', '.python_history', '.node_repl_history',
      '.terraform.d/credentials.tfrc.json',
      '.mozilla/firefox/abc.default/logins.json', '.mozilla/firefox/abc.default/key4.db',
      '.thunderbird/xyz.default/logins.json', '.thunderbird/xyz.default/key4.db',
    ]) {
      expect(m.isIndexed(p), p).to.equal(false);
    }
    for (const p of ['notes/history.md', 'docs/login.json', 'project/terraform/main.tf']) expect(m.isIndexed(p), p).to.equal(true);
  });
});

describe('DEFAULT_BLACKLIST_INCLUDE', () => {
  it('brings back environment templates, and only them', () => {
    expectValidUnique(DEFAULT_BLACKLIST_INCLUDE);
    const m = compileFilter(defaultFilterConfig());
    for (const name of ['.env.example', '.env.sample', '.env.template', '.env.dist']) {
      expect(m.isIndexed(`app/${name}`), name).to.equal(true);
      expect(docs).to.include('`' + name + '`');
    }
    for (const name of ['.env', '.env.local', '.env.production', 'prod.env']) expect(m.isIndexed(`app/${name}`), name).to.equal(false);
  });
});

describe('DEFAULT_WHITELIST_INCLUDE', () => {
  it('lists document formats, documented', () => {
    expectValidUnique(DEFAULT_WHITELIST_INCLUDE);
    for (const p of DEFAULT_WHITELIST_INCLUDE) expect(docs, p).to.include('`' + p + '`');
  });
});

describe('DEVELOPER_EXCLUDES', () => {
  it('is valid, documented, and not part of the defaults (generic folder names stay indexed)', () => {
    expectValidUnique(DEVELOPER_EXCLUDES);
    const defaults = new Set(DEFAULT_EXCLUDE.map(patternKey));
    for (const p of DEVELOPER_EXCLUDES) {
      expect(defaults.has(patternKey(p)), p).to.equal(false);
      expect(docs, p).to.include('`' + p + '`');
    }
  });
});

describe('defaultFilterConfig', () => {
  it('is a valid blacklist configuration whose legacy fields mirror the blacklist lists', () => {
    const cfg = defaultFilterConfig();
    expect(Value.Check(FilterConfigSchema, cfg)).to.equal(true);
    expect(cfg.mode).to.equal('blacklist');
    expect(cfg.exclude).to.deep.equal(cfg.blacklist_exclude);
    expect(cfg.include).to.deep.equal(cfg.blacklist_include);
    expect(cfg.whitelist_exclude).to.deep.equal([...DEFAULT_EXCLUDE]);
  });

  it('returns a fresh copy each time', () => {
    const a = defaultFilterConfig();
    a.blacklist_exclude.push('*.psd');
    expect(defaultFilterConfig().blacklist_exclude).to.not.include('*.psd');
  });

  // The list, file by file: each must be excluded out of the box.
  const junk = [
    '.git/HEAD', 'repo/.git/objects/ab/cd', 'repo/.git', 'repo/.hg/store/x', 'repo/.svn/entries',
    'app/node_modules/x/index.js', 'app/.venv/lib/site.py', 'app/venv/bin/python', 'app/src/__pycache__/m.pyc',
    'app/.tox/py311/x', 'app/.mypy_cache/3.11/x.json', 'app/dist/bundle.js', 'app/.cache/x', 'app/target/debug/app',
    'app/build/CMakeFiles/x.make', 'app/build/main.o', 'app/build/bundle.min.js', 'app/build/app.js.map',
    '.DS_Store', 'photos/Thumbs.db', 'desktop.ini', 'notes/.todo.md.swp', 'notes/todo.md~', 'notes/.#todo.md',
    'notes/#todo.md#', 'docs/~$report.docx', 'docs/.~lock.report.odt#',
    '.env', 'app/.env.local', 'certs/server.pem', 'certs/server.key', 'certs/client.p12', '.ssh/id_rsa',
    'keys/id_rsa.pub', 'keys/id_ed25519', 'login.keychain-db', 'vault.kdbx', 'home/.aws/credentials',
    'app/package-lock.json', 'app/.idea/workspace.xml',
  ];
  for (const p of junk) {
    it(`excludes ${p}`, () => {
      expect(compileFilter(defaultFilterConfig()).isIndexed(p)).to.equal(false);
    });
  }

  const documents = [
    'report.pdf', 'Documents/notes.md', 'Invoice (1).pdf', 'House/Build/permit.pdf', 'Sales/Target/goals.xlsx',
    'Out/letter.docx', 'Vendor/contract.pdf', 'movie.swf', 'app/src/index.ts', 'app/README.md', 'app/.env.example',
    'certs/ca.crt', 'app/.gitignore',
  ];
  for (const p of documents) {
    it(`indexes ${p}`, () => {
      expect(compileFilter(defaultFilterConfig()).isIndexed(p)).to.equal(true);
    });
  }
});
