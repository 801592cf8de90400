/**
 * A search's path glob, translated to a PostgreSQL regular expression (matched case-insensitively with ~*), so
 * the filter narrows candidates inside the query instead of trimming a top-k afterwards.
 *
 * Dialect: that of the indexing filters (src/filters/pattern.ts): `*` (within a name, dot files included), `**`
 * (any depth), `?`, `[...]` (`[!...]` negates, POSIX classes allowed), `{a,b}` (nestable), `\` escapes;
 * parentheses and `|` are literal; case is ignored. Placement:
 * - no `/`: tested against the file name (`*.pdf`, `report-??.docx`);
 * - leading `/`: tested against the whole absolute path (`/home/me/projects/**`);
 * - otherwise: against the end of the path, starting at a folder boundary (`invoices/2024/*.pdf`).
 */

export const MAX_GLOB_LENGTH = 1024;

export type GlobTranslation =
  | { ok: true; target: 'name' | 'path'; regex: string }
  | { ok: false; code: 'invalid_glob'; reason: string };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Characters with a meaning in a PostgreSQL ARE outside brackets; escaped when literal. */
const REGEX_SPECIAL = new Set(['.', '^', '$', '|', '(', ')', '+', '{', '}', '[', ']', '*', '?', '\\']);

function fail(reason: string): GlobTranslation {
  return { ok: false, code: 'invalid_glob', reason };
}

function literal(c: string): string {
  return REGEX_SPECIAL.has(c) ? `\\${c}` : c;
}

/** Index of the `]` closing the class opened at `open`, or -1 (never across a `/`). */
function classEnd(g: string, open: number): number {
  let i = open + 1;
  if (g[i] === '!' || g[i] === '^') i++;
  if (g[i] === ']') i++;
  for (; i < g.length; i++) {
    const c = g[i];
    if (c === '\\') {
      i++;
    } else if (c === '[' && g[i + 1] === ':') {
      const end = g.indexOf(':]', i + 2);
      if (end > 0) i = end + 1;
    } else if (c === '/') {
      return -1;
    } else if (c === ']') {
      return i;
    }
  }
  return -1;
}

/** A bracket expression in ARE syntax: negation as ^, escapes kept for non-alphanumerics. */
function translateClass(body: string): string {
  let out = '[';
  let i = 0;
  if (body[0] === '!' || body[0] === '^') {
    out += '^';
    i = 1;
  }
  for (; i < body.length; i++) {
    const c = body[i] as string;
    if (c === '\\') {
      const next = body[i + 1] ?? '';
      out += /[A-Za-z0-9]/.test(next) ? next : `\\${next}`;
      i++;
    } else if (c === '[' && body[i + 1] === ':') {
      const end = body.indexOf(':]', i + 2);
      out += body.slice(i, end + 2);
      i = end + 1;
    } else {
      out += c;
    }
  }
  return `${out}]`;
}

export function globToRegex(input: string): GlobTranslation {
  if (typeof input !== 'string') return fail('path glob must be a string');
  const g = input.trim().normalize('NFC');
  if (g === '') return fail('path glob is empty');
  if (g.length > MAX_GLOB_LENGTH) return fail(`path glob is longer than ${MAX_GLOB_LENGTH} characters`);
  if (CONTROL.test(g)) return fail('path glob contains a control character');

  let out = '';
  let braces = 0;
  for (let i = 0; i < g.length; i++) {
    const c = g[i] as string;
    if (c === '\\') {
      const next = g[i + 1];
      if (next === undefined) return fail("path glob ends with '\\' (it escapes the next character)");
      out += /[A-Za-z0-9]/.test(next) ? next : literal(next);
      i++;
    } else if (c === '*') {
      if (g[i + 1] === '*') {
        const atSegmentStart = i === 0 || g[i - 1] === '/';
        let j = i;
        while (g[j] === '*') j++;
        const atSegmentEnd = j === g.length || g[j] === '/';
        if (atSegmentStart && atSegmentEnd) {
          // `**/` = zero or more folders; a final `**` = anything below.
          out += j < g.length ? '(?:.*/)?' : '.*';
          i = j < g.length ? j : j - 1;
          continue;
        }
        i = j - 1; // `a**b` is `a*b`
      }
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = classEnd(g, i);
      if (close < 0) return fail("unclosed '[' in path glob: write '\\[' for a literal bracket");
      out += translateClass(g.slice(i + 1, close));
      i = close;
    } else if (c === ']') {
      return fail("unmatched ']' in path glob: write '\\]' for a literal bracket");
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}') {
      if (braces === 0) return fail("unmatched '}' in path glob: write '\\}' for a literal brace");
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) {
      out += '|';
    } else {
      out += literal(c);
    }
  }
  if (braces > 0) return fail("unclosed '{' in path glob (as in '*.{pdf,docx}'), or write '\\{' for a literal brace");

  if (!g.includes('/')) return { ok: true, target: 'name', regex: `^${out}$` };
  if (g.startsWith('/')) return { ok: true, target: 'path', regex: `^${out}$` };
  return { ok: true, target: 'path', regex: `(?:^|/)${out}$` };
}
