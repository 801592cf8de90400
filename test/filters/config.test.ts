import { expect } from 'chai';
import {
  activeLists,
  addPattern,
  applyConfigUpdate,
  listField,
  normaliseConfig,
  normalisePatternList,
  parseFilterConfig,
  removePattern,
  sameActiveLists,
  setMode,
  validatePattern,
} from '../../src/filters/config.js';
import { DEFAULT_WHITELIST_INCLUDE, defaultFilterConfig } from '../../src/filters/defaults.js';
import { validatePattern as patternValidate } from '../../src/filters/pattern.js';
import type { FilterConfig } from '../../src/filters/schema.js';

function small(): FilterConfig {
  return normaliseConfig({
    mode: 'blacklist',
    exclude: [],
    include: [],
    blacklist_exclude: ['node_modules/', '*.pem'],
    blacklist_include: ['.env.example'],
    whitelist_include: ['*.md'],
    whitelist_exclude: ['drafts/'],
  });
}

describe('listField', () => {
  it('names the per-mode field', () => {
    expect(listField('blacklist', 'exclude')).to.equal('blacklist_exclude');
    expect(listField('whitelist', 'include')).to.equal('whitelist_include');
  });
});

describe('normalisePatternList', () => {
  it('trims, drops blanks and case-insensitive duplicates, keeping the first spelling', () => {
    expect(normalisePatternList([' *.PEM', '*.pem', '', 'a/', 'A/', 'b'])).to.deep.equal(['*.PEM', 'a/', 'b']);
  });
});

describe('normaliseConfig', () => {
  it('makes exclude/include mirror the active mode', () => {
    const c = normaliseConfig({ ...small(), mode: 'whitelist', exclude: ['junk'], include: ['junk'] });
    expect(c.exclude).to.deep.equal(['drafts/']);
    expect(c.include).to.deep.equal(['*.md']);
  });

  it('does not share arrays between the legacy and per-mode fields', () => {
    const c = small();
    c.exclude.push('x');
    expect(c.blacklist_exclude).to.not.include('x');
  });
});

describe('activeLists', () => {
  it('returns the active mode lists', () => {
    expect(activeLists(small())).to.deep.equal({ exclude: ['node_modules/', '*.pem'], include: ['.env.example'] });
    expect(activeLists(setMode(small(), 'whitelist').config)).to.deep.equal({ exclude: ['drafts/'], include: ['*.md'] });
  });
});

describe('sameActiveLists', () => {
  it('ignores inactive lists and case, but not the mode or the patterns', () => {
    const a = small();
    expect(sameActiveLists(a, { ...a, whitelist_include: [] })).to.equal(true);
    expect(sameActiveLists(a, normaliseConfig({ ...a, blacklist_exclude: ['NODE_MODULES/', '*.PEM'] }))).to.equal(true);
    expect(sameActiveLists(a, setMode(a, 'whitelist').config)).to.equal(false);
    expect(sameActiveLists(a, normaliseConfig({ ...a, blacklist_exclude: ['node_modules/'] }))).to.equal(false);
  });
});

describe('setMode', () => {
  it('switches the mode and keeps every list (switching back restores the original)', () => {
    const a = small();
    const w = setMode(a, 'whitelist');
    expect(w.changed).to.equal(true);
    expect(w.config.mode).to.equal('whitelist');
    for (const f of ['blacklist_exclude', 'blacklist_include', 'whitelist_include', 'whitelist_exclude'] as const) {
      expect(w.config[f]).to.deep.equal(a[f]);
    }
    expect(setMode(w.config, 'blacklist').config).to.deep.equal(a);
    expect(setMode(a, 'blacklist').changed).to.equal(false);
  });
});

describe('addPattern', () => {
  it('appends to the current mode list by default and updates the mirror', () => {
    const r = addPattern(small(), { pattern: ' *.psd ', list: 'exclude' });
    expect(r).to.include({ ok: true, changed: true, pattern: '*.psd', mode: 'blacklist', field: 'blacklist_exclude', affectsActive: true });
    if (!r.ok) return;
    expect(r.config.blacklist_exclude).to.deep.equal(['node_modules/', '*.pem', '*.psd']);
    expect(r.config.exclude).to.deep.equal(r.config.blacklist_exclude);
  });

  it('adds to the other mode without touching the active lists', () => {
    const r = addPattern(small(), { pattern: '*.txt', list: 'include', mode: 'whitelist' });
    expect(r).to.include({ ok: true, changed: true, field: 'whitelist_include', affectsActive: false });
    if (!r.ok) return;
    expect(r.config.whitelist_include).to.deep.equal(['*.md', '*.txt']);
    expect(r.config.include).to.deep.equal(['.env.example']);
  });

  it('treats an existing pattern (ignoring case) as a no-op success', () => {
    const a = small();
    const r = addPattern(a, { pattern: '*.PEM', list: 'exclude' });
    expect(r).to.include({ ok: true, changed: false, pattern: '*.pem' });
    if (r.ok) expect(r.config).to.deep.equal(a);
  });

  it('rejects an invalid pattern with its reason and changes nothing', () => {
    const r = addPattern(small(), { pattern: '*.{pdf', list: 'exclude' });
    expect(r).to.include({ ok: false, code: 'invalid_pattern', field: 'pattern' });
    if (!r.ok) expect(r.reason).to.match(/unclosed '\{'/);
  });

  it('uses the watched roots to reject absolute paths', () => {
    const r = addPattern(small(), { pattern: '/srv/docs/private/', list: 'exclude' }, { watchedRoots: ['/srv/docs'] });
    expect(r).to.include({ ok: false, code: 'invalid_pattern' });
  });
});

describe('removePattern', () => {
  it('removes a pattern (matched ignoring case) from the current mode list', () => {
    const r = removePattern(small(), { pattern: '*.PEM', list: 'exclude' });
    expect(r).to.include({ ok: true, changed: true, pattern: '*.pem', affectsActive: true });
    if (r.ok) {
      expect(r.config.blacklist_exclude).to.deep.equal(['node_modules/']);
      expect(r.config.exclude).to.deep.equal(['node_modules/']);
    }
  });

  it('answers pattern_not_found for a missing pattern, including one only in the other list or mode', () => {
    for (const change of [
      { pattern: '*.psd', list: 'exclude' as const },
      { pattern: '*.pem', list: 'include' as const },
      { pattern: '*.pem', list: 'exclude' as const, mode: 'whitelist' as const },
    ]) {
      const r = removePattern(small(), change);
      expect(r, JSON.stringify(change)).to.include({ ok: false, code: 'pattern_not_found' });
    }
  });

  it('rejects an invalid pattern as invalid, not missing', () => {
    expect(removePattern(small(), { pattern: '   ', list: 'exclude' })).to.include({ ok: false, code: 'invalid_pattern' });
  });
});

describe('applyConfigUpdate', () => {
  it('changes nothing for an empty body', () => {
    const r = applyConfigUpdate(small(), {});
    expect(r).to.include({ ok: true, changed: false, modeChanged: false, activeListsChanged: false });
  });

  it('switches mode and replaces whole lists', () => {
    const r = applyConfigUpdate(small(), { mode: 'whitelist', whitelist_include: ['*.pdf', '*.PDF', '*.md'] });
    expect(r).to.include({ ok: true, changed: true, modeChanged: true, activeListsChanged: true });
    if (!r.ok) return;
    expect(r.config.whitelist_include).to.deep.equal(['*.pdf', '*.md']);
    expect(r.config.include).to.deep.equal(['*.pdf', '*.md']);
    expect(r.config.blacklist_exclude).to.deep.equal(['node_modules/', '*.pem']);
  });

  it('applies legacy exclude/include to the mode in force after the update', () => {
    const r = applyConfigUpdate(small(), { mode: 'whitelist', exclude: ['tmp/'] });
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(r.config.whitelist_exclude).to.deep.equal(['tmp/']);
    expect(r.config.blacklist_exclude).to.deep.equal(['node_modules/', '*.pem']);
  });

  it('accepts a legacy list equal to the per-mode one and refuses a conflicting one', () => {
    expect(applyConfigUpdate(small(), { exclude: ['a/'], blacklist_exclude: ['A/'] }).ok).to.equal(true);
    expect(applyConfigUpdate(small(), { exclude: ['a/'], blacklist_exclude: ['b/'] })).to.include({ ok: false, code: 'conflicting_lists', field: 'exclude' });
  });

  it('reports a change to the inactive mode as not touching the active lists', () => {
    const r = applyConfigUpdate(small(), { whitelist_exclude: [] });
    expect(r).to.include({ ok: true, changed: true, modeChanged: false, activeListsChanged: false });
  });

  it('validates every pattern first and names the bad one (all or nothing)', () => {
    const r = applyConfigUpdate(small(), { mode: 'whitelist', blacklist_exclude: ['ok/', '[oops'] });
    expect(r).to.include({ ok: false, code: 'invalid_pattern', field: 'blacklist_exclude[1]', pattern: '[oops' });
  });
});

describe('parseFilterConfig', () => {
  it('round-trips a stored configuration', () => {
    const cfg = small();
    expect(parseFilterConfig(JSON.parse(JSON.stringify(cfg)))).to.deep.equal({ ok: true, config: cfg, dropped: [] });
  });

  it('reads a legacy value with only mode/exclude/include, filling the other mode with defaults', () => {
    const r = parseFilterConfig({ mode: 'blacklist', exclude: ['*.psd'], include: ['keep.psd'] });
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(r.config.blacklist_exclude).to.deep.equal(['*.psd']);
    expect(r.config.blacklist_include).to.deep.equal(['keep.psd']);
    expect(r.config.whitelist_include).to.deep.equal([...DEFAULT_WHITELIST_INCLUDE]);
  });

  it('gives the defaults for an empty object', () => {
    expect(parseFilterConfig({})).to.deep.equal({ ok: true, config: defaultFilterConfig(), dropped: [] });
  });

  it('drops patterns that no longer validate and reports them', () => {
    const r = parseFilterConfig({ ...small(), blacklist_exclude: ['ok/', '*.{pdf', ''] });
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(r.config.blacklist_exclude).to.deep.equal(['ok/']);
    expect(r.dropped.map((d) => d.pattern)).to.deep.equal(['*.{pdf', '']);
  });

  it('refuses what is not a configuration', () => {
    expect(parseFilterConfig(null)).to.include({ ok: false, code: 'invalid_config' });
    expect(parseFilterConfig({ mode: 'greylist' })).to.include({ ok: false, code: 'invalid_config' });
    expect(parseFilterConfig({ blacklist_exclude: 'x' })).to.include({ ok: false, code: 'invalid_config' });
  });
});

describe('validatePattern (re-exported)', () => {
  it('is the pattern module validator', () => {
    expect(validatePattern).to.equal(patternValidate);
  });
});
