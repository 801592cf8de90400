import { expect } from 'chai';
import picomatch from 'picomatch';
import {
  escapeGlob,
  normalisePatternText,
  parsePattern,
  patternKey,
  PICOMATCH_OPTIONS,
  validatePattern,
} from '../../src/filters/pattern.js';
import { compileFilter } from '../../src/filters/matcher.js';

describe('validatePattern', () => {
  const rejected: [string, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    ['a\u0000b', /control character/],
    ['a\nb', /control character/],
    ['a\tb', /control character/],
    ['!*.md', /negation/],
    ['*.{pdf,docx', /unclosed '\{'/],
    ['a}b', /unmatched '\}'/],
    ['[draft plan.md', /unclosed '\['/],
    ['[a/b]', /unclosed '\['/],
    ['draft]', /unmatched '\]'/],
    ['C:\\Users\\me\\secret\\', /absolute paths never match/],
    ['c:/Users/me', /absolute paths never match/],
    ['\\\\server\\share', /absolute paths never match/],
    ['~/secret', /'~' is not expanded/],
    ['docs\\notes', /'\\n' is not an escape/],
    ['build\\', /ends with '\\'/],
    ['a//b', /empty path segment/],
    ['../x', /'\.' and '\.\.' segments/],
    ['./x', /'\.' and '\.\.' segments/],
    ['a/./b', /'\.' and '\.\.' segments/],
    ['/', /matches nothing/],
    ['x'.repeat(1025), /longer than 1024/],
  ];
  for (const [pattern, reason] of rejected) {
    it(`rejects ${JSON.stringify(pattern.length > 30 ? pattern.slice(0, 20) + '...' : pattern)} with a reason`, () => {
      const r = validatePattern(pattern);
      expect(r.ok).to.equal(false);
      if (!r.ok) {
        expect(r.code).to.equal('invalid_pattern');
        expect(r.reason).to.match(reason);
      }
    });
  }

  it('rejects an absolute path inside a watched root and suggests the anchored form', () => {
    const r = validatePattern('/home/me/Docs/private/', { watchedRoots: ['/home/me/docs/'] });
    expect(r).to.deep.equal({
      ok: false,
      code: 'invalid_pattern',
      reason: "patterns are relative to the watched folder '/home/me/docs/': write '/private/' instead",
    });
    expect(validatePattern('/private/', { watchedRoots: ['/home/me/docs'] }).ok).to.equal(true);
    expect(validatePattern('/home/other/', { watchedRoots: ['/home/me'] }).ok).to.equal(true);
  });

  const accepted = [
    '*.pem',
    'node_modules/',
    '/docs/*.md',
    'docs/**/*.md',
    '**',
    '*.{pdf,{doc,docx}}',
    '[!a-c]x',
    '[]]x',
    '[[:digit:]]*.txt',
    '\\[draft\\]*',
    'Invoice (1).pdf',
    'a|b',
    '.~lock.*#',
    '~$*',
    '$RECYCLE.BIN/',
    'System Volume Information/',
  ];
  for (const pattern of accepted) {
    it(`accepts ${pattern}`, () => {
      expect(validatePattern(pattern)).to.deep.equal({ ok: true, pattern });
    });
  }

  it('returns the stored form: trimmed and NFC', () => {
    expect(validatePattern('  *.md \t')).to.deep.equal({ ok: true, pattern: '*.md' });
    expect(validatePattern('Résumé*'.normalize('NFD'))).to.deep.equal({ ok: true, pattern: 'Résumé*'.normalize('NFC') });
  });
});

describe('parsePattern', () => {
  it('classifies anchoring, folder-only and name-only patterns', () => {
    const p = (s: string) => {
      const r = parsePattern(s);
      if (!r.ok) throw new Error(r.reason);
      return r.parsed;
    };
    expect(p('node_modules/')).to.include({ anchored: false, directoryOnly: true, nameOnly: true, literalName: 'node_modules', glob: 'node_modules' });
    expect(p('/build/')).to.include({ anchored: true, directoryOnly: true, nameOnly: false, literalName: null, glob: 'build' });
    expect(p('docs/*.md')).to.include({ anchored: false, nameOnly: false, glob: '**/docs/*.md' });
    expect(p('**/x.md')).to.include({ glob: '**/x.md' });
    expect(p('*.PEM')).to.include({ nameOnly: true, literalName: null, glob: '*.PEM' });
    expect(p('Invoice (1).pdf').glob).to.equal('Invoice \\(1\\).pdf');
    expect(p('[(]x').glob).to.equal('[(]x'); // already literal inside a class
  });

  it('produces globs picomatch matches the way the documentation says', () => {
    const r = parsePattern('Report (final) a|b.pdf');
    if (!r.ok) throw new Error(r.reason);
    const isMatch = picomatch(r.parsed.glob, PICOMATCH_OPTIONS);
    expect(isMatch('report (FINAL) a|b.pdf')).to.equal(true);
    expect(isMatch('Report final a.pdf')).to.equal(false);
  });
});

describe('escapeGlob', () => {
  it('turns any real name into a pattern matching exactly that name', () => {
    const names = ['[draft] plan.md', 'a*b?.txt', '{x,y}.md', 'Invoice (1).pdf', '!important.txt', 'a\\b', 'c++ notes@home.md'];
    for (const name of names) {
      const pattern = `/${escapeGlob(name)}`;
      expect(validatePattern(pattern).ok, pattern).to.equal(true);
      const m = compileFilter({
        mode: 'blacklist',
        exclude: [pattern],
        include: [],
        blacklist_exclude: [pattern],
        blacklist_include: [],
        whitelist_include: [],
        whitelist_exclude: [],
      }, { windows: false });
      expect(m.isIndexed(name), name).to.equal(false);
      expect(m.isIndexed(`${name}x`), `${name}x`).to.equal(true);
    }
  });
});

describe('normalisePatternText', () => {
  it('trims and converts to NFC', () => {
    expect(normalisePatternText('  é.md ')).to.equal('é.md'.normalize('NFC'));
  });
});

describe('patternKey', () => {
  it('makes patterns that differ only in case or spacing equal', () => {
    expect(patternKey(' *.PEM')).to.equal(patternKey('*.pem'));
    expect(patternKey('a/')).to.not.equal(patternKey('a'));
  });
});
