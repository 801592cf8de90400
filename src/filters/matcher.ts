/**
 * The compiled filter: decides whether a path (relative to its watched root) is indexed, and why.
 *
 * Every level of a path is judged on its own: first each folder from the root down, then the file. A
 * pattern matches a level when it matches that level's path (or, for a pattern without a slash, its name);
 * a trailing-slash pattern only matches folders.
 * - blacklist: a level is excluded when an exclude pattern matches it and no include pattern matches that
 *   same level. An excluded folder is never walked, so nothing below it is indexed (an include pattern
 *   cannot reach into it: include the folder itself instead). A file is indexed unless it or a folder above
 *   it is excluded.
 * - whitelist: a level matched by an exclude pattern is excluded (a veto, folders are never walked). A file
 *   is indexed when an include pattern matches it or a folder above it, and nothing is excluded.
 *
 * Patterns are compiled once; per-list matching is one Set lookup plus a few combined regexes, and folder
 * verdicts are cached, so a file decision usually costs one level of work (see bench/filters-matcher.ts).
 */
import picomatch from 'picomatch';
import { GLOB_CHARS, parsePattern, PICOMATCH_OPTIONS } from './pattern.js';
import type { ParsedPattern } from './pattern.js';
import { normaliseRelativePath } from './paths.js';
import type { PathOptions } from './paths.js';
import type { EntryKind, FilterConfig, FilterMode, PatternListName } from './schema.js';

export interface DecidedBy {
  list: PatternListName;
  pattern: string;
  /** The relative path the pattern matched: the file itself or a folder above it ('' never occurs). */
  matchedPath: string;
}

export interface FilterDecision {
  /** For a file: it is indexed. For a folder: it is walked (its files may be indexed). */
  indexed: boolean;
  mode: FilterMode;
  /** The pattern that decided; null when no pattern did (blacklist: nothing excluded; whitelist: nothing included). */
  decidedBy: DecidedBy | null;
  /** One sentence for a person, e.g. "excluded by pattern 'node_modules/' (blacklist exclude), which matches the folder 'app/node_modules'". */
  reason: string;
}

export interface FilterMatcher {
  readonly mode: FilterMode;
  /** Full decision with its explanation (for /api/filters/test and events). */
  decide(relativePath: string, kind?: EntryKind): FilterDecision;
  /** The same verdict as decide(...).indexed, without building an explanation (for walks and the watcher). */
  isIndexed(relativePath: string, kind?: EntryKind): boolean;
  /** False for a folder that is excluded (or lies inside one): never walk into it. */
  shouldDescend(relativeDir: string): boolean;
}

export interface CompileOptions extends PathOptions {
  /** Folder verdicts kept in memory (cleared when full). */
  cacheSize?: number;
}

const DEFAULT_CACHE_SIZE = 50_000;

function combine(patterns: readonly ParsedPattern[]): RegExp | null {
  if (patterns.length === 0) return null;
  const sources = patterns.map((p) => `(?:${picomatch.makeRe(p.glob, PICOMATCH_OPTIONS).source})`);
  return new RegExp(`^(?:${sources.join('|')})`, 'i');
}

// `*.pem`, `*~` (suffix) and `id_rsa*`, `~$*` (prefix): the commonest name patterns, tested with
// endsWith/startsWith instead of a regex. Equivalent to picomatch's `*` here: names never contain `/`, and `*`
// may be empty and may match a leading dot (dot: true). A test compares both on tricky names.
const SUFFIX = /^\*([^*?[\]{}\\]+)$/;
const PREFIX = /^([^*?[\]{}\\]+)\*$/;

/** Affix strings bucketed by their outer character: a test is a few endsWith/startsWith calls, no allocation. */
class AffixSet {
  private readonly buckets = new Map<number, string[]>();
  constructor(private readonly end: 'suffix' | 'prefix') {}
  add(affix: string): void {
    const key = this.end === 'suffix' ? affix.charCodeAt(affix.length - 1) : affix.charCodeAt(0);
    const bucket = this.buckets.get(key);
    if (bucket) bucket.push(affix);
    else this.buckets.set(key, [affix]);
  }
  has(lowerName: string): boolean {
    if (lowerName.length === 0) return false;
    const bucket = this.buckets.get(this.end === 'suffix' ? lowerName.charCodeAt(lowerName.length - 1) : lowerName.charCodeAt(0));
    if (bucket === undefined) return false;
    for (let i = 0; i < bucket.length; i++) {
      const affix = bucket[i] as string;
      if (this.end === 'suffix' ? lowerName.endsWith(affix) : lowerName.startsWith(affix)) return true;
    }
    return false;
  }
}

type NameTest = { kind: 'literal' | 'suffix' | 'prefix'; text: string } | { kind: 'regex'; re: RegExp };

function nameTest(p: ParsedPattern): NameTest {
  if (p.literalName !== null) return { kind: 'literal', text: p.literalName };
  if (p.nameOnly) {
    const suffix = SUFFIX.exec(p.glob);
    if (suffix) return { kind: 'suffix', text: (suffix[1] as string).toLowerCase() };
    const prefix = PREFIX.exec(p.glob);
    if (prefix) return { kind: 'prefix', text: (prefix[1] as string).toLowerCase() };
  }
  return { kind: 'regex', re: picomatch.makeRe(p.glob, PICOMATCH_OPTIONS) };
}

/** Patterns tested against one name (file or folder): literal names, suffixes, prefixes, then one regex. */
class NameIndex {
  private readonly literals = new Set<string>();
  private readonly suffixes = new AffixSet('suffix');
  private readonly prefixes = new AffixSet('prefix');
  private readonly regex: RegExp | null;
  constructor(patterns: readonly { parsed: ParsedPattern; test: NameTest }[]) {
    const globs: ParsedPattern[] = [];
    for (const { parsed, test } of patterns) {
      if (test.kind === 'literal') this.literals.add(test.text);
      else if (test.kind === 'suffix') this.suffixes.add(test.text);
      else if (test.kind === 'prefix') this.prefixes.add(test.text);
      else globs.push(parsed);
    }
    this.regex = combine(globs);
  }
  any(name: string, lower: string): boolean {
    return this.literals.has(lower) || this.suffixes.has(lower) || this.prefixes.has(lower) || (this.regex?.test(name) ?? false);
  }
}

/**
 * Patterns tested against a whole relative path (they contain a slash or are anchored). Most end in a
 * literal name (`target/debug/`, `/Projects/old/`): those regexes run only when the level's name is that
 * name, instead of every pattern scanning every path.
 */
class PathIndex {
  private readonly byLastName = new Map<string, RegExp[]>();
  private readonly general: RegExp | null;
  constructor(patterns: readonly ParsedPattern[]) {
    const general: ParsedPattern[] = [];
    for (const p of patterns) {
      const last = p.glob.slice(p.glob.lastIndexOf('/') + 1);
      if (last === '' || GLOB_CHARS.test(last)) {
        general.push(p);
        continue;
      }
      const key = last.toLowerCase();
      const list = this.byLastName.get(key) ?? [];
      list.push(picomatch.makeRe(p.glob, PICOMATCH_OPTIONS));
      this.byLastName.set(key, list);
    }
    this.general = combine(general);
  }
  any(path: string, lowerName: string): boolean {
    const candidates = this.byLastName.get(lowerName);
    if (candidates !== undefined) for (const re of candidates) if (re.test(path)) return true;
    return this.general?.test(path) ?? false;
  }
}

/** One list of patterns, compiled for fast "does any match" tests and, on a hit, "which one first". */
class PatternSet {
  private readonly entries: { parsed: ParsedPattern; test: NameTest }[];
  private readonly anyName: NameIndex;
  private readonly dirName: NameIndex;
  private readonly anyPath: PathIndex;
  private readonly dirPath: PathIndex;

  constructor(patterns: readonly string[]) {
    this.entries = patterns.map((p) => {
      const r = parsePattern(p);
      // Patterns are validated where they enter (routes, parseFilterConfig); one that fails here is a bug.
      if (!r.ok) throw new Error(`invalid filter pattern '${p}' reached the matcher: ${r.reason}`);
      return { parsed: r.parsed, test: nameTest(r.parsed) };
    });
    const names = this.entries.filter((e) => e.parsed.nameOnly);
    const paths = this.entries.filter((e) => !e.parsed.nameOnly).map((e) => e.parsed);
    this.anyName = new NameIndex(names.filter((e) => !e.parsed.directoryOnly));
    this.dirName = new NameIndex(names.filter((e) => e.parsed.directoryOnly));
    this.anyPath = new PathIndex(paths.filter((p) => !p.directoryOnly));
    this.dirPath = new PathIndex(paths.filter((p) => p.directoryOnly));
  }

  /** The first pattern (in list order) matching this level, or null. */
  first(name: string, path: string, isDir: boolean): string | null {
    if (this.entries.length === 0) return null;
    const lower = name.toLowerCase();
    const hit =
      this.anyName.any(name, lower) ||
      this.anyPath.any(path, lower) ||
      (isDir && (this.dirName.any(name, lower) || this.dirPath.any(path, lower)));
    if (!hit) return null;
    for (const { parsed, test } of this.entries) {
      if (parsed.directoryOnly && !isDir) continue;
      let matched: boolean;
      if (test.kind === 'regex') matched = test.re.test(parsed.nameOnly ? name : path);
      else if (test.kind === 'literal') matched = lower === test.text;
      else if (test.kind === 'suffix') matched = lower.endsWith(test.text);
      else matched = lower.startsWith(test.text);
      if (matched) return parsed.source;
    }
    return null;
  }
}

interface Hit {
  list: PatternListName;
  pattern: string;
  matchedPath: string;
}

/** What the levels from the root down to a path decided. Shared (not copied) when a level adds nothing. */
interface Verdict {
  /** The exclusion that applies (at this level or above). */
  blocked: Hit | null;
  /** blacklist: the deepest include pattern that overrode an exclude pattern, and the pattern it overrode. */
  rescue: { hit: Hit; overrides: string } | null;
  /** whitelist: the deepest include pattern that matched. */
  included: Hit | null;
}

const ROOT: Verdict = Object.freeze({ blocked: null, rescue: null, included: null });

class CompiledFilter implements FilterMatcher {
  readonly mode: FilterMode;
  private readonly exclude: PatternSet;
  private readonly include: PatternSet;
  private readonly dirs = new Map<string, Verdict>();
  private readonly cacheSize: number;
  private readonly pathOptions: PathOptions;

  constructor(mode: FilterMode, exclude: readonly string[], include: readonly string[], options: CompileOptions) {
    this.mode = mode;
    this.exclude = new PatternSet(exclude);
    this.include = new PatternSet(include);
    this.cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
    this.pathOptions = { windows: options.windows };
  }

  isIndexed(relativePath: string, kind: EntryKind = 'file'): boolean {
    const v = this.verdict(normaliseRelativePath(relativePath, this.pathOptions), kind);
    if (v.blocked) return false;
    return this.mode === 'blacklist' || kind === 'directory' || v.included !== null;
  }

  shouldDescend(relativeDir: string): boolean {
    return this.isIndexed(relativeDir, 'directory');
  }

  decide(relativePath: string, kind: EntryKind = 'file'): FilterDecision {
    const path = normaliseRelativePath(relativePath, this.pathOptions);
    const v = this.verdict(path, kind);
    const mode = this.mode;
    const where = (hit: Hit): string => (hit.matchedPath === path ? '' : `, which matches the folder '${hit.matchedPath}'`);
    if (v.blocked) {
      const b = v.blocked;
      const inside = kind === 'directory' ? '; nothing inside it is indexed' : '';
      return { indexed: false, mode, decidedBy: { ...b }, reason: `excluded by pattern '${b.pattern}' (${mode} exclude)${where(b)}${inside}` };
    }
    if (mode === 'blacklist') {
      if (v.rescue) {
        const { hit, overrides } = v.rescue;
        const subject = kind === 'directory' ? 'walked' : 'indexed';
        return {
          indexed: true,
          mode,
          decidedBy: { ...hit },
          reason: `${subject}: pattern '${hit.pattern}' (blacklist include) overrides exclude pattern '${overrides}'${where(hit)}`,
        };
      }
      const reason = kind === 'directory' ? 'walked: no exclude pattern matches this folder (blacklist mode)' : 'indexed: no exclude pattern matches (blacklist mode)';
      return { indexed: true, mode, decidedBy: null, reason };
    }
    if (kind === 'directory') {
      const reason = v.included
        ? `walked: pattern '${v.included.pattern}' (whitelist include) matches${v.included.matchedPath === path ? ' this folder' : ` the folder '${v.included.matchedPath}'`}, so its files are indexed unless excluded`
        : 'walked: looking for files that match an include pattern (whitelist mode)';
      return { indexed: true, mode, decidedBy: v.included ? { ...v.included } : null, reason };
    }
    if (v.included) {
      return { indexed: true, mode, decidedBy: { ...v.included }, reason: `indexed: matches pattern '${v.included.pattern}' (whitelist include)${where(v.included)}` };
    }
    return { indexed: false, mode, decidedBy: null, reason: 'not indexed: no include pattern matches (whitelist mode)' };
  }

  private verdict(path: string, kind: EntryKind): Verdict {
    if (kind === 'directory') return this.dirVerdict(path);
    if (path === '') throw new TypeError('a file path relative to the watched root cannot be empty');
    const slash = path.lastIndexOf('/');
    const parent = slash < 0 ? ROOT : this.dirVerdict(path.slice(0, slash));
    return this.level(path, path.slice(slash + 1), false, parent);
  }

  private dirVerdict(path: string): Verdict {
    if (path === '') return ROOT;
    const cached = this.dirs.get(path);
    if (cached) return cached;
    const slash = path.lastIndexOf('/');
    const parent = slash < 0 ? ROOT : this.dirVerdict(path.slice(0, slash));
    const v = this.level(path, path.slice(slash + 1), true, parent);
    if (this.dirs.size >= this.cacheSize) this.dirs.clear();
    this.dirs.set(path, v);
    return v;
  }

  private level(path: string, name: string, isDir: boolean, parent: Verdict): Verdict {
    if (parent.blocked) return parent;
    const exc = this.exclude.first(name, path, isDir);
    if (this.mode === 'blacklist') {
      if (exc === null) return parent;
      const inc = this.include.first(name, path, isDir);
      if (inc === null) return { blocked: { list: 'exclude', pattern: exc, matchedPath: path }, rescue: null, included: null };
      return { blocked: null, rescue: { hit: { list: 'include', pattern: inc, matchedPath: path }, overrides: exc }, included: null };
    }
    if (exc !== null) return { blocked: { list: 'exclude', pattern: exc, matchedPath: path }, rescue: null, included: null };
    const inc = this.include.first(name, path, isDir);
    return inc === null ? parent : { blocked: null, rescue: null, included: { list: 'include', pattern: inc, matchedPath: path } };
  }
}

/** Compiles the active lists of a configuration. Patterns must be valid (validated where they entered). */
export function compileFilter(config: FilterConfig, options: CompileOptions = {}): FilterMatcher {
  const lists = activeLists(config);
  return new CompiledFilter(config.mode, lists.exclude, lists.include, options);
}

export interface FilePatternMatcher {
  /** The pattern as stored, or null when the job has none (everything matches). */
  readonly pattern: string | null;
  matches(relativePath: string): boolean;
}

/**
 * Compiles a watch job's own `file_pattern` (e.g. `*.md`, `**\/*.{pdf,docx}`, `/reports/`) with the same
 * rules as filter patterns: no slash matches a name at any depth, a leading slash anchors, case is ignored,
 * and a pattern matching a folder matches every file below it. null, undefined or blank: everything matches.
 */
export function compileFilePattern(
  pattern: string | null | undefined,
  options: PathOptions = {},
): { ok: true; matcher: FilePatternMatcher } | { ok: false; code: 'invalid_pattern'; reason: string } {
  if (pattern == null || pattern.trim() === '') return { ok: true, matcher: { pattern: null, matches: () => true } };
  const parsed = parsePattern(pattern);
  if (!parsed.ok) return parsed;
  const filter = new CompiledFilter('whitelist', [], [parsed.parsed.source], { ...options, cacheSize: 10_000 });
  return { ok: true, matcher: { pattern: parsed.parsed.source, matches: (relativePath) => filter.isIndexed(relativePath, 'file') } };
}

/**
 * The active mode's lists. Here, not in config.ts: the matcher runs in the watcher's thread too, which must not
 * load typebox (~700 modules) for it.
 */
export function activeLists(config: FilterConfig): { exclude: string[]; include: string[] } {
  return config.mode === 'blacklist'
    ? { exclude: config.blacklist_exclude, include: config.blacklist_include }
    : { exclude: config.whitelist_exclude, include: config.whitelist_include };
}
