import { expect } from 'chai';
import picomatch from 'picomatch';
import { globToRegex } from '../../../src/store/queries/path-glob.js';
import { openPglite } from '../../../src/store/engines/pglite.js';
import type { SqlDatabase } from '../../../src/store/sql.js';

let db: SqlDatabase;

/** Our translation, evaluated by PostgreSQL's regex engine with ~* as the query does, on the name or the path. */
async function matches(glob: string, path: string): Promise<boolean> {
  const t = globToRegex(glob);
  if (!t.ok) throw new Error(t.reason);
  const subject = t.target === 'name' ? path.slice(path.lastIndexOf('/') + 1) : path;
  const { rows } = await db.query<{ m: boolean }>('SELECT $1::text ~* $2::text AS m', [subject, t.regex]);
  return rows[0]!.m;
}

/** picomatch with the indexing filters' options, placed as path-glob.ts documents. */
function reference(glob: string, path: string): boolean {
  const options = { dot: true, nocase: true, noextglob: true, posix: true };
  if (!glob.includes('/')) return picomatch(glob, options)(path.slice(path.lastIndexOf('/') + 1));
  if (glob.startsWith('/')) return picomatch(glob, options)(path);
  return picomatch(`**/${glob}`, options)(path.slice(1));
}

const PATHS = [
  '/home/ann/docs/report.pdf',
  '/home/ann/docs/Report-2024.PDF',
  '/home/ann/docs/archive/old report.pdf',
  '/home/ann/docs/notes.md',
  '/home/ann/.config/app/settings.json',
  '/home/ann/projects/site/src/index.ts',
  '/home/ann/projects/site/src/lib/util.test.ts',
  '/home/ann/invoices/2024/03/inv-17.pdf',
  '/home/ann/invoices/2023/inv-2.docx',
  '/home/ann/a.b.c',
  '/data/x/y/z.txt',
];

const GLOBS = [
  '*.pdf',
  'report*',
  '*.{pdf,docx}',
  '*.{md,{ts,json}}',
  'inv-?.*',
  '[rR]eport*',
  '[!r]*.pdf',
  '*[[:digit:]]*',
  '.*',
  'src/**/*.ts',
  'invoices/**',
  'invoices/*/inv-*',
  'docs/*.pdf',
  '/home/ann/**/*.pdf',
  '/home/ann/docs/*',
  '/data/**/z.txt',
  '**/*.test.ts',
  'a.b.c',
];

describe('globToRegex', () => {
  before(async () => {
    db = await openPglite(null);
  });
  after(() => db.close());

  it('agrees with picomatch (the filters dialect) on a set of globs and paths', async () => {
    for (const glob of GLOBS) {
      for (const path of PATHS) {
        expect(await matches(glob, path), `${glob} ~ ${path}`).to.equal(reference(glob, path));
      }
    }
  });

  it('matches names without a slash, whole paths with a leading slash, path ends otherwise', async () => {
    expect(globToRegex('*.pdf')).to.deep.include({ ok: true, target: 'name' });
    expect(globToRegex('/home/**')).to.deep.include({ ok: true, target: 'path' });
    expect(await matches('docs/*.pdf', '/home/ann/docs/report.pdf')).to.equal(true);
    expect(await matches('ocs/*.pdf', '/home/ann/docs/report.pdf')).to.equal(false);
  });

  it('keeps parentheses, | and regex characters literal, and honours escapes', async () => {
    expect(await matches('Invoice (1).pdf', '/x/Invoice (1).pdf')).to.equal(true);
    expect(await matches('Invoice (1).pdf', '/x/Invoice 1.pdf')).to.equal(false);
    expect(await matches('a|b.txt', '/x/a|b.txt')).to.equal(true);
    expect(await matches('a|b.txt', '/x/a.txt')).to.equal(false);
    expect(await matches('$x^+.txt', '/x/$x^+.txt')).to.equal(true);
    expect(await matches('file\\*.txt', '/x/file*.txt')).to.equal(true);
    expect(await matches('file\\*.txt', '/x/file1.txt')).to.equal(false);
  });

  it('rejects malformed globs with a reason', () => {
    for (const bad of ['', '  ', '*.{pdf', '*.pdf}', '[abc', 'abc]', 'x\\', 'a\u0000b', 'x'.repeat(2000)]) {
      const t = globToRegex(bad);
      expect(t.ok, JSON.stringify(bad)).to.equal(false);
      if (!t.ok) expect(t.reason).to.be.a('string').and.not.equal('');
    }
  });
});
