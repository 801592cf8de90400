/**
 * Manual pages: troff source with the man or the mdoc macros (`ls.1`, `ssh.1.gz`, `Git.3pm`), read as the words a
 * reader of the page sees, without requests, macro names, font changes and escapes. Indexed as plain text, a page's
 * words came with `\fB`, `\-` and `.TP` glued to them, and its snippets showed them.
 *
 * Hand-written: no maintained JavaScript reader of troff exists (groff and mandoc are C programs, and one process
 * a page would cost more than the page's whole analysis). Search needs the words, not the layout, so this reads a
 * line at a time: a request line keeps the text arguments of the macros that carry text (headings, fonts, tags,
 * mdoc's inline macros), a text line loses its escapes, definitions and conditionals are dropped. The title is the
 * NAME section's line ("ls - list directory contents"), else the name and section from `.TH` or `.Dt`.
 */
import { decodeBytes } from './encoding.js';
import type { ExtractInput, ExtractResult } from './types.js';

/** A man page's file name ends in its section: 1–9, maybe a suffix (`3pm`, `1ssl`, `8posix`), or `man`. */
export function isManExtension(extension: string): boolean {
  return /^[1-9][a-z]{0,6}$/.test(extension) || extension === 'man';
}

/** A page's source names its title (`.TH`, mdoc's `.Dd`) early, or is one `.so` line pointing at another page. */
export function looksLikeManPage(head: string): boolean {
  return /^[.'][ \t]*(?:TH|Dd)(?:[ \t]|$)/m.test(head) || /^\.so[ \t]+\S+\s*$/.test(head.trim());
}

/** Named characters (`\(em`, `\[em]`) worth keeping as text; any other becomes nothing. */
const GLYPHS: Record<string, string> = {
  em: '—', en: '–', hy: '-', mi: '-', pl: '+', mu: '×', di: '÷', bu: '•', ci: '○', sq: '□', dg: '†', ga: '`',
  aq: "'", dq: '"', lq: '“', rq: '”', oq: '‘', cq: '’', Fo: '«', Fc: '»', fo: '‹', fc: '›', 'a"': '˝', 'a-': '¯',
  co: '©', rg: '®', tm: '™', de: '°', ct: '¢', Po: '£', Eu: '€', eu: '€', Ye: '¥', ps: '¶', sc: '§', '14': '¼', '12': '½', '34': '¾',
  '>=': '≥', '<=': '≤', '!=': '≠', '==': '≡', '->': '→', '<-': '←', '<>': '↔', '**': '∗', '+-': '±', if: '∞', ti: '~', ha: '^',
  rs: '\\', sl: '/', ul: '_', ru: '_', ba: '|', br: '│', lB: '[', rB: ']', lC: '{', rC: '}', la: '⟨', ra: '⟩', ss: 'ß',
};

/** groff's composite characters (`\['e]`, `\(:u`): a letter and its accent, as a combining mark. */
const ACCENTS: Record<string, string> = { "'": '\u0301', '`': '\u0300', ':': '\u0308', '^': '\u0302', '~': '\u0303', ',': '\u0327' };

/** Predefined strings (`\*(lq`, `\*R`) of both macro packages. */
const STRINGS: Record<string, string> = { lq: '“', rq: '”', R: '®', Tm: '™', Lq: '“', Rq: '”', S: '', ' ': ' ' };

/** Single-character escapes: `\-` is a minus, `\e` a backslash, `\&` `\|` `\^` `\)` `\%` `\c` print nothing. */
const SIMPLE: Record<string, string> = {
  '-': '-', e: '\\', '\\': '\\', E: '\\', '.': '.', "'": '´', '`': '`', ' ': ' ', '~': ' ', '0': ' ', t: '\t',
  '&': '', '|': '', '^': '', ')': '', '%': '', c: '', a: '', '{': '', '}': '', ':': '', '/': '', ',': '', p: '', r: '', u: '', d: '',
};

// One escape: a comment to the end of the line (\" and \#), a font, size or number register, a string, a named
// character, the escapes with a delimited argument (motions, widths, lines: nothing of the text), or one character.
const ESCAPE =
  /\\(?:["#].*$|[fFgmMnY](?:\[[^\]]*\]|\(..|.)|s[-+]?(?:\[[^\]]*\]|\(..|\d{1,2}|'[^']*')|\*(?:\[([^\]]*)\]|\((..)|(.))|\((..)|\[([^\]]*)\]|[hvwlLNoDbxXZRkHSAB](?:'[^']*'|\[[^\]]*\]|.)|(.))/gm;

/** A line's text with its escapes rendered. */
export function unescapeTroff(line: string): string {
  return line.replace(ESCAPE, (_whole: string, strLong?: string, strTwo?: string, strOne?: string, glyphTwo?: string, glyphLong?: string, single?: string) => {
    const str = strLong ?? strTwo ?? strOne;
    if (str !== undefined) return STRINGS[str] ?? '';
    const glyph = glyphTwo ?? glyphLong;
    if (glyph !== undefined) {
      const unicode = /^u([0-9A-Fa-f]{4,6})$/.exec(glyph);
      if (unicode) {
        // A character of text only: no control character (a NUL the database refuses), no lone surrogate.
        const code = Number.parseInt(unicode[1]!, 16);
        return code >= 0x20 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) && !(code >= 0x7f && code < 0xa0) ? String.fromCodePoint(code) : '';
      }
      const accentFirst = /^(['`:^~,])([A-Za-z])$/.exec(glyph);
      const letterFirst = /^([A-Za-z])(['`:^~,])$/.exec(glyph);
      if (accentFirst) return `${accentFirst[2]}${ACCENTS[accentFirst[1]!]}`.normalize('NFC');
      if (letterFirst) return `${letterFirst[1]}${ACCENTS[letterFirst[2]!]}`.normalize('NFC');
      return GLYPHS[glyph] ?? '';
    }
    if (single !== undefined) return SIMPLE[single] ?? single;
    return ''; // a comment, a font, size or register, a motion: nothing of the text
  });
}

/** A request line's arguments: space-separated, "double quoted" ones may hold spaces ("" is a quote inside). */
export function splitArguments(rest: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < rest.length) {
    while (rest[i] === ' ' || rest[i] === '\t') i++;
    if (i >= rest.length) break;
    if (rest[i] === '"') {
      let arg = '';
      i++;
      while (i < rest.length) {
        if (rest[i] === '"') {
          if (rest[i + 1] === '"') {
            arg += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        arg += rest[i++];
      }
      out.push(arg);
    } else {
      let arg = '';
      while (i < rest.length && rest[i] !== ' ' && rest[i] !== '\t') {
        // An escaped space stays inside the argument.
        if (rest[i] === '\\' && i + 1 < rest.length) {
          arg += rest.slice(i, i + 2);
          i += 2;
          continue;
        }
        arg += rest[i++];
      }
      out.push(arg);
    }
  }
  return out;
}

/** man macros whose arguments alternate between two fonts: printed with no space between them. */
const ALTERNATING = new Set(['BI', 'BR', 'IB', 'IR', 'RB', 'RI']);
/** man and mdoc macros (and requests) with no text of their own. */
const SILENT = new Set([
  'PP', 'P', 'LP', 'RS', 'RE', 'PD', 'IX', 'EX', 'EE', 'YS', 'UE', 'ME', 'AT', 'UC', 'DT', 'HP', 'TP', 'TQ', 'Sp', 'Vb', 'Ve',
  'Os', 'Pp', 'Lp', 'Bl', 'El', 'Bd', 'Ed', 'Bf', 'Ef', 'Bk', 'Ek', 'Ss', 'Dd', 'Dt', 'Rs', 'Re', 'Tg',
]);
/** mdoc's inline macros: their names are not text, their arguments are. */
const MDOC_CALLABLE = new Set([
  'Ar', 'Cm', 'Ic', 'Pa', 'Va', 'Ev', 'Em', 'Sy', 'Li', 'Fn', 'Fa', 'Ft', 'Fd', 'Fo', 'Fc', 'Dv', 'Er', 'Tn', 'Ux', 'At', 'Bx',
  'Nx', 'Fx', 'Ox', 'Bsx', 'St', 'Lb', 'Ad', 'An', 'Cd', 'Ms', 'Mt', 'Lk', 'Sx', 'Ot', 'Vt', 'No', 'It', 'Pf', 'Ap', 'Ta',
  'Nd', 'Dl', 'D1', 'In', 'Ex', 'Rv', 'Ao', 'Ac', 'Bo', 'Bc', 'Qo', 'Qc', 'So', 'Sc', 'Do', 'Dc', 'Po', 'Pc',
  'Eo', 'Ec', 'Xo', 'Xc', 'Sm', '%A', '%B', '%C', '%D', '%I', '%J', '%N', '%O', '%P', '%Q', '%R', '%T', '%U', '%V',
]);
/** Macros that start a new paragraph or list item. */
const PARAGRAPH = new Set(['PP', 'P', 'LP', 'TP', 'TQ', 'IP', 'HP', 'SY', 'EX', 'Pp', 'Lp', 'It', 'Bd', 'Bl', 'Dl', 'D1', 'Sp', 'Vb', 'sp', 'br']);
/** Enclosures of mdoc: the macro opens, the end of its line closes. */
const MDOC_ENCLOSE: Record<string, [string, string]> = {
  Op: ['[', ']'], Oo: ['[', ''], Oc: ['', ']'], Pq: ['(', ')'], Dq: ['“', '”'], Sq: ['‘', '’'], Ql: ['‘', '’'], Qq: ['"', '"'],
  Aq: ['⟨', '⟩'], Bq: ['[', ']'], Brq: ['{', '}'],
};
/** mdoc macros that mdocLine renders in a way of their own. */
const MDOC_RENDERED = new Set(['Fl', 'Xr', 'Ns', 'Nm']);

/** Whether a request or an argument names an mdoc macro. */
function isMdocMacro(name: string): boolean {
  return MDOC_CALLABLE.has(name) || name in MDOC_ENCLOSE || MDOC_RENDERED.has(name);
}

/** Punctuation that mdoc sets against the word before it. */
const CLOSING = /^[.,:;)\]?!]+$/;

interface PageState {
  name?: string;
  /** mdoc's `.Nm` name, which a bare `.Nm` repeats. */
  mdocName?: string;
  section?: string;
  heading?: string;
  nameLine: string[];
}

/** One mdoc request's text: callable macros dropped, Fl as a dash, Xr as name(section), enclosures closed. */
function mdocLine(macro: string, args: string[], state: PageState): string {
  const words: string[] = [];
  const closers: string[] = [];
  let glue = false;
  const push = (word: string): void => {
    if (word === '') return;
    if (glue || CLOSING.test(word) || words.length === 0) {
      if (words.length === 0) words.push(word);
      else words[words.length - 1] += word;
    } else words.push(word);
    glue = false;
  };
  const tokens = [macro, ...args];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const enclose = MDOC_ENCLOSE[token];
    if (enclose) {
      if (enclose[0]) {
        push(enclose[0]);
        glue = true;
      }
      if (enclose[1]) {
        if (enclose[0]) closers.push(enclose[1]);
        else push(enclose[1]);
      }
      continue;
    }
    if (token === 'Fl') {
      const next = tokens[i + 1];
      if (next !== undefined && !isMacroName(next)) {
        push(`-${unescapeTroff(next)}`);
        i++;
      } else push('-');
      continue;
    }
    if (token === 'Xr') {
      const [page, section] = [tokens[i + 1], tokens[i + 2]];
      if (page !== undefined) {
        push(section !== undefined && /^\d/.test(section) ? `${unescapeTroff(page)}(${section})` : unescapeTroff(page));
        i += section !== undefined && /^\d/.test(section) ? 2 : 1;
      }
      continue;
    }
    if (token === 'Ns') {
      glue = true;
      continue;
    }
    if (token === 'Nm') {
      const next = tokens[i + 1];
      if (next === undefined || isMacroName(next)) push(state.mdocName ?? state.name ?? '');
      continue;
    }
    if (token === 'Nd') {
      push('-');
      continue;
    }
    if (MDOC_CALLABLE.has(token) || SILENT.has(token)) continue;
    push(unescapeTroff(token));
  }
  // An open enclosure ends with the line, after its trailing punctuation's place.
  for (const closer of closers.reverse()) push(closer);
  return words.join(' ');
}

function isMacroName(token: string): boolean {
  return /^[A-Z%][a-z]{1,2}$/.test(token) && isMdocMacro(token);
}

/** The words of one page, a paragraph per heading or text block, and what its title needs. */
export function manPageText(source: string, maxChars = Infinity): { text: string; title?: string; truncated: boolean } {
  const lines = source.split(/\r?\n/);
  const out: string[] = [];
  let length = 0;
  const state: PageState = { nameLine: [] };
  let skipUntilDots = false;
  let tableFormat = false;
  let mdoc = false;
  let truncated = false;
  const paragraph = (): void => {
    if (out.length > 0 && out[out.length - 1] !== '\n') out.push('\n');
  };
  const emit = (text: string, heading = false): void => {
    const clean = text.replace(/[ \t]+/g, ' ').trim();
    if (clean === '') return;
    if (state.heading === 'NAME' && !heading) state.nameLine.push(clean);
    if (heading) paragraph();
    out.push(clean);
    if (heading) out.push('\n');
    length += clean.length + 1;
  };
  for (const line of lines) {
    if (length >= maxChars) {
      truncated = true;
      break;
    }
    if (tableFormat) {
      // A table's options and format lines (tbl): up to the one that ends with a full stop.
      if (/\.\s*$/.test(line)) tableFormat = false;
      continue;
    }
    if (skipUntilDots) {
      if (/^[.'][ \t]*\.(?:\s|$)/.test(line) || line.startsWith('..')) skipUntilDots = false;
      continue;
    }
    if (!(line.startsWith('.') || line.startsWith("'"))) {
      // A table's cells: tab-separated, a long one between T{ and T}.
      emit(unescapeTroff(line.replace(/^T[{}]|T[{}]$/g, '').replace(/\tT[{}]|T[{}]\t/g, '\t')));
      continue;
    }
    const request = /^[.'][ \t]*(\S*)[ \t]*(.*)$/.exec(line);
    const name = request?.[1] ?? '';
    const rest = request?.[2] ?? '';
    if (name === '' || name.startsWith('\\"') || name.startsWith('\\#')) continue; // an empty request, a comment
    if (name === 'TS') {
      tableFormat = true;
      continue;
    }
    if (['de', 'de1', 'dei', 'am', 'am1', 'ami', 'ig'].includes(name)) {
      skipUntilDots = true;
      continue;
    }
    const args = splitArguments(rest);
    if (PARAGRAPH.has(name)) paragraph();
    switch (name) {
      case 'TH':
      case 'Dt':
        state.name ??= args[0] !== undefined ? unescapeTroff(args[0]) : undefined;
        state.section ??= args[1];
        mdoc ||= name === 'Dt';
        continue;
      case 'Dd':
        mdoc = true;
        continue;
      case 'SH':
      case 'SS':
      case 'Sh':
      case 'Ss': {
        const heading = unescapeTroff(args.join(' '));
        if (name === 'SH' || name === 'Sh') state.heading = heading.toUpperCase();
        emit(heading, true);
        continue;
      }
      case 'B':
      case 'I':
      case 'SM':
      case 'SB':
      case 'UR':
      case 'MT':
      case 'SY':
        emit(unescapeTroff(args.join(' ')));
        continue;
      case 'IP':
        emit(unescapeTroff(args[0] ?? ''));
        continue;
      case 'OP':
        emit(`[${unescapeTroff(args.join(' '))}]`);
        continue;
      case 'Nm':
        if (args.length > 0 && !isMacroName(args[0]!)) state.mdocName ??= unescapeTroff(args[0]!);
        break;
      case 'so':
        // A page that is another's alias (printf.3 -> man3/printf.3): the page it stands for, as text.
        emit(unescapeTroff(args[0] ?? ''));
        continue;
    }
    if (ALTERNATING.has(name)) {
      emit(args.map(unescapeTroff).join(''));
      continue;
    }
    if (SILENT.has(name) || /^[a-z]/.test(name)) continue; // layout macros; requests (br, sp, if, ds, so, ...)
    if (mdoc || isMdocMacro(name)) {
      emit(mdocLine(name, args, state));
      continue;
    }
    emit(unescapeTroff(args.join(' '))); // a macro of the page's own: its arguments are most likely text
  }
  const text = out.join(' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  const nameLine = state.nameLine.join(' ').replace(/\s+/g, ' ').trim();
  const title = nameLine !== '' ? nameLine : state.name ? `${state.name}${state.section ? `(${state.section})` : ''}` : undefined;
  return { text: text.length > maxChars ? text.slice(0, maxChars) : text, ...(title ? { title: title.slice(0, 300) } : {}), truncated };
}

export async function extractMan(input: ExtractInput): Promise<ExtractResult> {
  const decoded = decodeBytes(input.bytes);
  const page = manPageText(decoded.text, input.maxTextChars);
  return {
    ok: true,
    format: 'man',
    mime: 'text/troff',
    text: page.text,
    metadata: { ...(page.title ? { title: page.title } : {}), encoding: decoded.encoding },
    truncated: page.truncated,
  };
}
