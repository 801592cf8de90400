import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import picomatch from 'picomatch';
import { setMode } from '../../src/filters/config.js';
import { defaultFilterConfig } from '../../src/filters/defaults.js';
import { compileFilePattern, compileFilter } from '../../src/filters/matcher.js';
import { parsePattern, PICOMATCH_OPTIONS } from '../../src/filters/pattern.js';
import type { FilterConfig, FilterMode } from '../../src/filters/schema.js';
import { repoRoot } from '../helpers/shared.js';

function config(mode: FilterMode, exclude: string[], include: string[]): FilterConfig {
  const blacklist = mode === 'blacklist';
  return {
    mode,
    exclude,
    include,
    blacklist_exclude: blacklist ? exclude : [],
    blacklist_include: blacklist ? include : [],
    whitelist_include: blacklist ? [] : include,
    whitelist_exclude: blacklist ? [] : exclude,
  };
}

/** Rows of the markdown table between `<!-- name:start -->` and `<!-- name:end -->` in docs/filters.md. */
function docTable(name: string): string[][] {
  const text = readFileSync(path.join(repoRoot, 'docs', 'filters.md'), 'utf8');
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  expect(start, `table ${name} in docs/filters.md`).to.be.greaterThan(-1);
  const rows = text
    .slice(start, end)
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2) // header and separator
    .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
  expect(rows.length).to.be.greaterThan(5);
  return rows;
}

/** The patterns written in a table cell as `code`, e.g. "`*.md`" → ['*.md']; empty cell → []. */
function patterns(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
}

describe('compileFilter', () => {
  describe('pattern placement (the examples of docs/filters.md)', () => {
    for (const [patternCell, pathCell, kind, matches] of docTable('pattern-examples')) {
      const [pattern] = patterns(patternCell as string);
      const [relPath] = patterns(pathCell as string);
      it(`${patternCell} ${matches === 'yes' ? 'matches' : 'does not match'} ${pathCell} (${kind})`, () => {
        const m = compileFilter(config('blacklist', [pattern as string], []));
        const d = m.decide(relPath as string, kind === 'folder' ? 'directory' : 'file');
        expect(d.indexed).to.equal(matches !== 'yes');
        if (matches === 'yes') expect(d.decidedBy?.pattern).to.equal(pattern);
        else expect(d.decidedBy).to.equal(null);
      });
    }
  });

  describe('modes (the examples of docs/filters.md)', () => {
    for (const [mode, exc, inc, pathCell, indexed, decidedBy] of docTable('mode-examples')) {
      it(`${mode}: exclude ${exc || '-'} include ${inc || '-'}: ${pathCell} is ${indexed === 'yes' ? '' : 'not '}indexed`, () => {
        const m = compileFilter(config(mode as FilterMode, patterns(exc as string), patterns(inc as string)));
        const [relPath] = patterns(pathCell as string);
        const d = m.decide(relPath as string);
        expect(d.indexed).to.equal(indexed === 'yes');
        expect(d.mode).to.equal(mode);
        expect(d.decidedBy?.pattern ?? null).to.equal(patterns(decidedBy as string)[0] ?? null);
        expect(m.isIndexed(relPath as string)).to.equal(d.indexed);
      });
    }
  });

  it('explains decisions in a sentence naming the pattern, the list and the folder it matched', () => {
    const m = compileFilter(defaultFilterConfig());
    const inFolder = m.decide('app/node_modules/left-pad/README.md');
    expect(inFolder.decidedBy).to.deep.equal({ list: 'exclude', pattern: 'node_modules/', matchedPath: 'app/node_modules' });
    expect(inFolder.reason).to.equal(
      "excluded by pattern 'node_modules/' (blacklist exclude), which matches the folder 'app/node_modules'",
    );
    expect(m.decide('certs/server.pem').reason).to.equal("excluded by pattern '*.pem' (blacklist exclude)");
    expect(m.decide('app/.env.example').reason).to.equal(
      "indexed: pattern '.env.example' (blacklist include) overrides exclude pattern '.env.*'",
    );
    expect(m.decide('notes/todo.md')).to.deep.equal({
      indexed: true,
      mode: 'blacklist',
      decidedBy: null,
      reason: 'indexed: no exclude pattern matches (blacklist mode)',
    });
    expect(m.decide('app/node_modules', 'directory').reason).to.match(/nothing inside it is indexed$/);

    const w = compileFilter(config('whitelist', ['*.tmp'], ['/Reports/']));
    expect(w.decide('Reports/2024/q1.xlsx').reason).to.equal(
      "indexed: matches pattern '/Reports/' (whitelist include), which matches the folder 'Reports'",
    );
    expect(w.decide('src/main.ts').reason).to.equal('not indexed: no include pattern matches (whitelist mode)');
    expect(w.decide('src', 'directory')).to.include({ indexed: true, decidedBy: null });
  });

  it('reports the first matching pattern in list order', () => {
    const m = compileFilter(config('blacklist', ['*.md', 'notes/', 'todo.md'], []));
    expect(m.decide('notes/todo.md').decidedBy?.pattern).to.equal('notes/'); // the folder is decided first
    expect(m.decide('todo.md').decidedBy?.pattern).to.equal('*.md');
  });

  it('ignores case in patterns and paths, literal names included', () => {
    const m = compileFilter(config('blacklist', ['.DS_Store', 'Thumbs.db', '/Private/', '*.PDF'], []));
    for (const p of ['.ds_store', 'a/.DS_STORE', 'x/THUMBS.DB', 'private/x.txt', 'PRIVATE/y.txt', 'a/b.pdf']) {
      expect(m.isIndexed(p), p).to.equal(false);
    }
    expect(m.isIndexed('a/private/x.txt')).to.equal(true);
  });

  it('anchors a leading slash to the watched root, at every depth of pattern', () => {
    const m = compileFilter(config('blacklist', ['/secret.txt', '/a/b/', '/x/*.log'], []));
    expect(m.isIndexed('secret.txt')).to.equal(false);
    expect(m.isIndexed('sub/secret.txt')).to.equal(true);
    expect(m.isIndexed('a/b/c/d.md')).to.equal(false);
    expect(m.isIndexed('z/a/b/c.md')).to.equal(true);
    expect(m.isIndexed('x/app.log')).to.equal(false);
    expect(m.isIndexed('y/x/app.log')).to.equal(true);
  });

  it('treats trailing-slash patterns as folders only and never descends into them', () => {
    const m = compileFilter(config('blacklist', ['cache/'], []));
    expect(m.shouldDescend('app/cache')).to.equal(false);
    expect(m.shouldDescend('app/cache/deeper/still')).to.equal(false);
    expect(m.isIndexed('app/cache', 'file')).to.equal(true);
    expect(m.shouldDescend('app/caches')).to.equal(true);
  });

  it('descends into ordinary folders in whitelist mode, not into excluded ones', () => {
    const m = compileFilter(config('whitelist', ['node_modules/'], ['*.md']));
    expect(m.shouldDescend('a/b/c')).to.equal(true);
    expect(m.shouldDescend('a/node_modules')).to.equal(false);
    expect(m.shouldDescend('a/node_modules/pkg')).to.equal(false);
  });

  it('matches names with parentheses, pipes and brackets literally', () => {
    const m = compileFilter(config('blacklist', ['Invoice (1).pdf', 'a|b.txt', 'x+y@z.md', '\\[draft\\]*', '100% done!.txt'], []));
    for (const p of ['Invoice (1).pdf', 'a|b.txt', 'x+y@z.md', '[draft] plan.md', '100% done!.txt']) expect(m.isIndexed(p), p).to.equal(false);
    for (const p of ['Invoice 1.pdf', 'a.txt', 'b.txt', 'd plan.md']) expect(m.isIndexed(p), p).to.equal(true);
  });

  it('lets `*` and `**` match dot-files and dot-folders', () => {
    const m = compileFilter(config('blacklist', ['*.pem', 'docs/**/*.md'], []));
    expect(m.isIndexed('.hidden.pem')).to.equal(false);
    expect(m.isIndexed('.config/certs/a.pem')).to.equal(false);
    expect(m.isIndexed('docs/.drafts/a.md')).to.equal(false);
  });

  it('compares names in Unicode NFC (macOS reports NFD names)', () => {
    const nfc = 'Résumé.pdf'.normalize('NFC');
    const nfd = 'Résumé.pdf'.normalize('NFD');
    expect(nfc).to.not.equal(nfd);
    expect(compileFilter(config('blacklist', [nfc], [])).isIndexed(`cv/${nfd}`)).to.equal(false);
    expect(compileFilter(config('blacklist', [nfd], [])).isIndexed(`cv/${nfc}`)).to.equal(false);
    expect(compileFilter(config('blacklist', ['/Études/'], [])).isIndexed('études/x.md'.normalize('NFD'))).to.equal(false);
  });

  it('accepts Windows separators when asked, and normalises ./ and trailing slashes', () => {
    const m = compileFilter(config('blacklist', ['/docs/private/'], []), { windows: true });
    expect(m.decide('docs\\private\\x.md').decidedBy?.matchedPath).to.equal('docs/private');
    const posix = compileFilter(config('blacklist', ['/docs/private/'], []), { windows: false });
    expect(posix.isIndexed('./docs/private/x.md')).to.equal(false);
    expect(posix.shouldDescend('docs/private/')).to.equal(false);
    expect(posix.isIndexed('docs\\private\\x.md')).to.equal(true); // a legal POSIX file name
  });

  it('throws on paths outside the root (a caller bug)', () => {
    const m = compileFilter(defaultFilterConfig());
    expect(() => m.decide('/etc/passwd')).to.throw(TypeError);
    expect(() => m.decide('../x')).to.throw(TypeError);
    expect(() => m.decide('', 'file')).to.throw(TypeError);
    expect(m.decide('', 'directory').indexed).to.equal(true);
  });

  it('gives the same answers with a tiny verdict cache as with a large one', () => {
    const cfg = defaultFilterConfig();
    const small = compileFilter(cfg, { cacheSize: 2 });
    const big = compileFilter(cfg);
    const paths = ['a/node_modules/x.js', 'a/b/c.md', 'a/.git/HEAD', 'a/b/.env', 'a/b/.env.example', 'x/target/debug/y', 'x/target/z.txt'];
    for (let round = 0; round < 3; round++) {
      for (const p of paths) expect(small.decide(p), p).to.deep.equal(big.decide(p));
    }
  });

  it('uses only the active mode lists, so switching modes switches behaviour', () => {
    const cfg = defaultFilterConfig();
    expect(compileFilter(cfg).isIndexed('src/main.ts')).to.equal(true);
    const white = compileFilter(setMode(cfg, 'whitelist').config);
    expect(white.mode).to.equal('whitelist');
    expect(white.isIndexed('src/main.ts')).to.equal(false);
    expect(white.isIndexed('docs/guide.md')).to.equal(true);
    expect(white.isIndexed('node_modules/x/README.md')).to.equal(false);
  });

  it('agrees with plain picomatch on name patterns it matches without regexes (literals, suffixes, prefixes)', () => {
    const patterns = ['*.PEM', '*~', '*.c++', '*!', '*,x', '*$', '*^', 'ID_RSA*', '~$*', '.#*', 'a@*', 'x+*', 'Thumbs.db', 'a$b', '*.tar.gz', '.env.*'];
    const names = ['server.pem', '.pem', 'pem', 'x.PEM.bak', 'notes~', '~', 'main.c++', 'main.c+', 'wow!', 'a,x', ',x', 'cost$', 'up^', 'id_rsa',
      'id_rsa.pub', 'xid_rsa', '~$doc.docx', '$doc', '.#lock', 'a@home', 'x+y', 'thumbs.db', 'A$B', 'a.tar.gz', 'tar.gz', '.env.local', '.env'];
    for (const pattern of patterns) {
      const r = parsePattern(pattern);
      if (!r.ok) throw new Error(r.reason);
      const reference = picomatch(r.parsed.glob, PICOMATCH_OPTIONS);
      const m = compileFilter(config('blacklist', [pattern], []));
      for (const name of names) {
        for (const p of [name, `deep/er/${name}`]) {
          expect(!m.isIndexed(p), `${pattern} vs ${p}`).to.equal(reference(name));
          expect(m.shouldDescend(p), `${pattern} vs folder ${p}`).to.equal(!reference(name));
        }
      }
    }
  });

  it('refuses an invalid stored pattern loudly (they are validated where they enter)', () => {
    expect(() => compileFilter(config('blacklist', ['*.{pdf'], []))).to.throw(/invalid filter pattern/);
  });
});

describe('compileFilePattern', () => {
  const matcher = (p: string | null) => {
    const r = compileFilePattern(p);
    if (!r.ok) throw new Error(r.reason);
    return r.matcher;
  };

  it('matches everything without a pattern', () => {
    for (const p of [null, '', '   ']) {
      const m = matcher(p);
      expect(m.pattern).to.equal(null);
      expect(m.matches('a/b/c.bin')).to.equal(true);
    }
  });

  it('matches a slash-less pattern against the name at any depth, ignoring case', () => {
    const m = matcher('*.md');
    expect(m.matches('README.MD')).to.equal(true);
    expect(m.matches('a/b/notes.md')).to.equal(true);
    expect(m.matches('a/b/notes.txt')).to.equal(false);
  });

  it('supports braces, globstars, anchoring and folders', () => {
    const m = matcher('**/*.{pdf,docx}');
    expect(m.matches('x.PDF')).to.equal(true);
    expect(m.matches('a/b/y.docx')).to.equal(true);
    expect(m.matches('a/b/y.doc')).to.equal(false);
    const reports = matcher('/reports/');
    expect(reports.matches('reports/2024/q1.xlsx')).to.equal(true);
    expect(reports.matches('old/reports/q1.xlsx')).to.equal(false);
  });

  it('rejects an invalid pattern with a reason', () => {
    const r = compileFilePattern('*.{pdf,docx');
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.code).to.equal('invalid_pattern');
      expect(r.reason).to.match(/unclosed '\{'/);
    }
  });
});
