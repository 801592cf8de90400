/**
 * One filter pattern: validation, normalisation and translation to a picomatch glob.
 *
 * Our dialect is picomatch's glob syntax (`*`, `**`, `?`, `[...]`, `{a,b}`, `\` escapes) with three
 * deliberate differences, each because picomatch would silently do something a user does not expect:
 * - parentheses and `|` are literal (picomatch turns `Invoice (1).pdf` into a regex group that only matches
 *   `Invoice 1.pdf`); extglobs (`@(a|b)`, `!(x)`, ...) are therefore not supported;
 * - a leading `!` (negation) is rejected: the include list is how something is brought back;
 * - unbalanced `[`, `]`, `{`, `}` are rejected (picomatch compiles `*.{pdf,docx` to a regex that never matches).
 *
 * Placement rules (documented in docs/filters.md):
 * - a leading `/` anchors the pattern to the watched root; otherwise it matches at any depth;
 * - a trailing `/` makes it match folders only;
 * - a pattern without a slash in its body is tested against each name (file or folder) on the path.
 */
import picomatch from 'picomatch';

export const MAX_PATTERN_LENGTH = 1024;

/** The picomatch options every filter pattern is compiled with. */
export const PICOMATCH_OPTIONS = Object.freeze({
  dot: true, // `*` and `**` match names starting with a dot (`.env`, `.git`)
  nocase: true, // matching ignores case
  noextglob: true, // parentheses are literal (see above)
  posix: true, // POSIX classes such as [[:digit:]]
});

export type PatternFailureCode = 'invalid_pattern';

export type PatternCheck =
  | { ok: true; pattern: string }
  | { ok: false; code: PatternFailureCode; reason: string };

/** What validation may additionally know: the watched roots, to catch absolute paths typed as patterns. */
export interface PatternContext {
  watchedRoots?: readonly string[];
}

export interface ParsedPattern {
  /** The pattern as stored: trimmed, Unicode NFC. */
  source: string;
  /** Leading `/`: matches relative to the watched root only. */
  anchored: boolean;
  /** Trailing `/`: matches folders only. */
  directoryOnly: boolean;
  /** True when the body has no `/` and is not anchored: tested against a single name. */
  nameOnly: boolean;
  /** Lower-case name when the pattern is a plain name without glob characters (fast path), else null. */
  literalName: string | null;
  /** The picomatch glob: tested against the name (nameOnly) or the whole relative path. */
  glob: string;
}

export type ParsedPatternResult = { ok: true; parsed: ParsedPattern } | { ok: false; code: PatternFailureCode; reason: string };

/** Characters that may follow a backslash: the glob's special characters and the backslash itself. */
const ESCAPABLE = new Set(['*', '?', '[', ']', '{', '}', '(', ')', '!', '|', ',', '\\', '+', '@']);
/** Characters that make a pattern (or a segment of it) a glob rather than a literal name. */
export const GLOB_CHARS = /[*?[\]{}\\]/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Stored form of a pattern: trimmed and NFC (macOS gives names in NFD, users type NFC; we compare in NFC). */
export function normalisePatternText(pattern: string): string {
  return pattern.trim().normalize('NFC');
}

/** Key under which two patterns count as the same (matching ignores case, so `*.PEM` equals `*.pem`). */
export function patternKey(pattern: string): string {
  return normalisePatternText(pattern).toLowerCase();
}

function fail(reason: string): { ok: false; code: PatternFailureCode; reason: string } {
  return { ok: false, code: 'invalid_pattern', reason };
}

/** Checks escapes and the balance of brackets and braces; returns a reason or null. */
function checkStructure(p: string): string | null {
  let braces = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      const next = p[i + 1];
      if (next === undefined) return "ends with '\\': use '/' as the path separator";
      if (!ESCAPABLE.has(next)) {
        return `'\\${next}' is not an escape: use '/' as the path separator ('\\' only escapes a special character, as in '\\[' or '\\*')`;
      }
      i++;
      continue;
    }
    if (c === '[') {
      const close = bracketEnd(p, i);
      if (close < 0) return "unclosed '[': write '\\[' to match a literal bracket";
      i = close;
      continue;
    }
    if (c === ']') return "unmatched ']': write '\\]' to match a literal bracket";
    if (c === '{') braces++;
    if (c === '}') {
      if (braces === 0) return "unmatched '}': write '\\}' to match a literal brace";
      braces--;
    }
  }
  if (braces > 0) return "unclosed '{': close it (as in '*.{pdf,docx}') or write '\\{' to match a literal brace";
  return null;
}

/** Index of the `]` closing the bracket expression opened at `open`, or -1. Handles `[!]...]`, `[[:alpha:]]`, escapes. */
function bracketEnd(p: string, open: number): number {
  let i = open + 1;
  if (p[i] === '!' || p[i] === '^') i++;
  if (p[i] === ']') i++; // a `]` first in the class is literal
  for (; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[' && p[i + 1] === ':') {
      const end = p.indexOf(':]', i + 2);
      if (end > 0) {
        i = end + 1;
        continue;
      }
    }
    if (c === '/') return -1; // a class never spans a path separator
    if (c === ']') return i;
  }
  return -1;
}

/** Makes parentheses and `|` literal for picomatch (outside bracket expressions, where they already are). */
function toPicomatchGlob(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === '\\') {
      out += c + (body[i + 1] ?? '');
      i++;
    } else if (c === '[') {
      const close = bracketEnd(body, i);
      out += body.slice(i, close + 1);
      i = close;
    } else if (c === '(' || c === ')' || c === '|') {
      out += '\\' + c;
    } else {
      out += c;
    }
  }
  return out;
}

function posixRoot(root: string): string {
  let r = root.replace(/\\/g, '/').normalize('NFC');
  while (r.length > 1 && r.endsWith('/')) r = r.slice(0, -1);
  return r;
}

/**
 * Validates one pattern and returns its stored form. Rejected with a reason a user can act on: empty,
 * control characters, negation, absolute OS paths (they never match: paths are relative to the watched
 * root), `.`/`..`/empty segments (never present in a relative path), stray backslashes (Windows separators),
 * unbalanced brackets or braces, and anything picomatch cannot compile.
 */
export function validatePattern(pattern: string, context: PatternContext = {}): PatternCheck {
  const parsed = parsePattern(pattern, context);
  return parsed.ok ? { ok: true, pattern: parsed.parsed.source } : parsed;
}

/** Validates and parses a pattern into what the matcher needs. */
export function parsePattern(pattern: string, context: PatternContext = {}): ParsedPatternResult {
  if (typeof pattern !== 'string') return fail('pattern must be a string');
  const source = normalisePatternText(pattern);
  if (source === '') return fail('pattern is empty');
  if (source.length > MAX_PATTERN_LENGTH) return fail(`pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  if (CONTROL_CHARS.test(source)) return fail('pattern contains a control character (NUL, tab, newline...)');
  if (source.startsWith('!')) {
    return fail("negation ('!') is not supported: add the pattern to the other list (include or exclude) instead");
  }
  if (/^[A-Za-z]:([\\/]|$)/.test(source) || source.startsWith('\\\\')) {
    return fail(
      "absolute paths never match: patterns are relative to the watched folder; start with '/' to anchor there (e.g. '/Projects/')",
    );
  }
  if (source === '~' || source.startsWith('~/')) {
    return fail("'~' is not expanded: patterns are relative to the watched folder; start with '/' to anchor there");
  }
  const structure = checkStructure(source);
  if (structure) return fail(structure);

  for (const root of context.watchedRoots ?? []) {
    const r = posixRoot(root).toLowerCase();
    const p = source.toLowerCase();
    if (r !== '/' && (p === r || p.startsWith(r + '/'))) {
      const rest = source.slice(r.length) || '/';
      return fail(`patterns are relative to the watched folder '${root}': write '${rest}' instead`);
    }
  }

  const anchored = source.startsWith('/');
  const directoryOnly = source.length > 1 && source.endsWith('/');
  const body = source.slice(anchored ? 1 : 0, directoryOnly ? -1 : undefined);
  if (body === '') return fail("pattern '/' matches nothing: name a file or folder, as in '/drafts/'");
  const segments = body.split('/');
  if (segments.some((s) => s === '')) return fail("empty path segment ('//'): relative paths never contain one");
  if (segments.some((s) => s === '.' || s === '..')) {
    return fail("'.' and '..' segments never match: paths are relative to the watched folder; start with '/' to anchor there");
  }

  const nameOnly = !anchored && segments.length === 1;
  const translated = toPicomatchGlob(body);
  // Floating patterns with a slash match at any depth; `**/x` also matches `x` at the root.
  const glob = nameOnly || anchored || body === '**' || body.startsWith('**/') ? translated : `**/${translated}`;
  let re: RegExp;
  try {
    re = picomatch.makeRe(glob, PICOMATCH_OPTIONS);
  } catch (err) {
    return fail(`cannot be compiled: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (re.source === '$^') return fail('cannot be compiled: picomatch rejects it');
  const literalName = nameOnly && !GLOB_CHARS.test(body) ? body.toLowerCase() : null;
  return { ok: true, parsed: { source, anchored, directoryOnly, nameOnly, literalName, glob } };
}

/** Escapes a literal file or folder name so it can be used in a pattern (e.g. `[draft] plan.md`). */
export function escapeGlob(name: string): string {
  return name.replace(/[*?[\]{}()!|,\\+@]/g, (c) => '\\' + c);
}
