/**
 * Splits extracted text into blocks (headings, paragraphs, list items, code, table rows) so that the later steps
 * know what is prose worth summarising, what is a heading worth a title, and what is neither. Understands the
 * Markdown that plain-text formats commonly carry (ATX/setext headings, fences, lists, pipe tables, inline
 * links and emphasis) and the "title line, blank line, body" shape of many text files.
 */

export type BlockKind = 'heading' | 'paragraph' | 'list' | 'code' | 'table';

export interface Block {
  kind: BlockKind;
  /** Cleaned text: inline Markdown removed, a paragraph's lines joined by single spaces. */
  text: string;
  /** Heading level: 1–6 for Markdown headings, 0 for a first line that only looks like a heading. */
  level?: number;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const SETEXT_UNDERLINE = /^\s{0,3}(=+|-+)\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const LIST_ITEM = /^\s*(?:[-*+•‣◦▪]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)])\s+(?=\S)/;
const PIPE_ROW = /^\s*\|.*\|\s*$/;
const PIPE_DIVIDER = /^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const LINK_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s+\S+/;
const BLOCKQUOTE = /^\s{0,3}(?:>\s?)+/;
const MAIL_HEADER = /^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$/;
const MAIL_HEADER_NAMES = /^(from|to|cc|subject|date|newsgroups|message-id|path|reply-to|organization|received|return-path)$/i;
const KEY_VALUE = /^\s*[\p{L}][\p{L}\d _-]{0,30}:\s+\S/u;
const TERMINAL_PUNCTUATION = /[.,;:!?]["')\]]?$/;

/** Removes inline Markdown and HTML so that text reads as plain prose. */
export function stripInlineMarkup(text: string): string {
  // Every pattern below needs one of these characters: most prose has none, and the nine passes cost time.
  if (!/[[<`*_~]/.test(text)) return text.replace(/\s+/g, ' ').trim();
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images → alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1') // links → link text
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1') // reference links
    .replace(/<(https?:\/\/[^>\s]+)>/g, '$1') // autolinks
    .replace(/<\/?[a-zA-Z][^<>]*>/g, ' ') // HTML tags
    .replace(/`+([^`]+)`+/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[\s(])([*_])(?=\S)(.+?)(?<=\S)\2(?=[\s).,;:!?]|$)/g, '$1$3')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Text as lines, with line endings, tabs and invisible characters normalised. */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\f\v\u2028\u2029]/g, '\n')
    .replace(/\u200b|\u200c|\u200d|\ufeff|\u00ad/g, '')
    .replace(/[\t\u00a0]/g, ' ');
}

/** Blocks of a prose document (anything that is not source code or a table). */
export function proseBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = withoutMailHeaders(normaliseText(text).split('\n'), blocks);
  let paragraph: string[] = [];
  let listItem: string[] | undefined;
  let tableRows: string[] = [];

  const flushParagraph = (): void => {
    if (paragraph.length > 0) pushParagraph(blocks, paragraph);
    paragraph = [];
  };
  const flushList = (): void => {
    if (listItem) push(blocks, 'list', listItem.join(' '));
    listItem = undefined;
  };
  const flushTable = (): void => {
    for (const row of tableRows) push(blocks, 'table', row);
    tableRows = [];
  };
  const flushAll = (): void => {
    flushParagraph();
    flushList();
    flushTable();
  };

  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] ?? '').replace(BLOCKQUOTE, '');
    const fence = FENCE.exec(line);
    if (fence?.[1]) {
      flushAll();
      const marker = fence[1];
      const code: string[] = [];
      for (i += 1; i < lines.length && !(lines[i] ?? '').trimStart().startsWith(marker); i += 1) code.push(lines[i] ?? '');
      if (code.some((codeLine) => codeLine.trim() !== '')) blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      flushAll();
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading?.[1]) {
      flushAll();
      push(blocks, 'heading', heading[2] ?? '', heading[1].length);
      continue;
    }
    if (paragraph.length === 1 && SETEXT_UNDERLINE.test(line)) {
      // "Title\n=====" — but "---" under a multi-line paragraph is a rule, not an underline.
      push(blocks, 'heading', paragraph[0] ?? '', line.includes('=') ? 1 : 2);
      paragraph = [];
      continue;
    }
    if (RULE.test(line) || LINK_DEFINITION.test(line)) {
      flushAll();
      continue;
    }
    if (PIPE_ROW.test(line)) {
      flushParagraph();
      flushList();
      if (!PIPE_DIVIDER.test(line)) tableRows.push(line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim()).join(' | '));
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flushParagraph();
      flushList();
      flushTable();
      listItem = [line.replace(LIST_ITEM, '')];
      continue;
    }
    if (listItem) {
      listItem.push(line); // indented or "lazy" continuation of the item, as in CommonMark
      continue;
    }
    flushList();
    flushTable();
    paragraph.push(line);
  }
  flushAll();
  markImplicitHeading(blocks, lines);
  return blocks;
}

/**
 * Mail and news messages saved as text start with RFC 822 headers ("From: …", "Subject: …"). They are not
 * prose: the subject becomes the leading heading and the other headers are dropped.
 */
function withoutMailHeaders(lines: string[], blocks: Block[]): string[] {
  let end = 0;
  let known = 0;
  let subject: string | undefined;
  while (end < lines.length) {
    const line = lines[end] ?? '';
    const header = MAIL_HEADER.exec(line);
    if (header?.[1]) {
      if (MAIL_HEADER_NAMES.test(header[1])) known += 1;
      if (/^subject$/i.test(header[1])) subject = header[2];
    } else if (!(end > 0 && /^\s+\S/.test(line))) break; // folded header lines continue with whitespace
    end += 1;
  }
  if (end < 3 || known < 2 || (lines[end] ?? '').trim() !== '') return lines;
  if (subject?.trim()) push(blocks, 'heading', subject.replace(/^(re|fwd?|aw|sv):\s*/i, ''), 1);
  return lines.slice(end);
}

function push(blocks: Block[], kind: BlockKind, raw: string, level?: number): void {
  const text = stripInlineMarkup(raw);
  if (text === '') return;
  blocks.push(level === undefined ? { kind, text } : { kind, text, level });
}

/**
 * A paragraph whose first line is short, unpunctuated and followed by a line that starts a new sentence
 * ("Meeting notes\nWe agreed…") carries a heading on that line; wrapped prose continues in lower case.
 */
function pushParagraph(blocks: Block[], lines: string[]): void {
  // "Version: 1.2\nAuthor: …" is a record of fields, not prose: keep it for keywords, out of the summary.
  if (lines.length >= 2 && lines.every((line) => KEY_VALUE.test(line))) {
    for (const line of lines) push(blocks, 'table', line);
    return;
  }
  const [first, second] = lines;
  if (
    blocks.length === 0 &&
    first !== undefined &&
    second !== undefined &&
    first.trim().length <= 100 &&
    !TERMINAL_PUNCTUATION.test(first.trim()) &&
    /^\s*[\p{Lu}\d]/u.test(second) &&
    /\p{L}/u.test(first)
  ) {
    push(blocks, 'heading', first, 0);
    push(blocks, 'paragraph', lines.slice(1).join(' '));
    return;
  }
  push(blocks, 'paragraph', lines.join(' '));
}

/**
 * The first block is a heading in disguise when it is a single line of at most 300 characters and one sentence,
 * standing alone before more text (SciFact files are "title\n\nabstract").
 */
function markImplicitHeading(blocks: Block[], lines: string[]): void {
  const first = blocks[0];
  if (!first || first.kind !== 'paragraph' || blocks.length < 2) return;
  const firstLine = lines.find((line) => line.trim() !== '')?.trim() ?? '';
  const isSingleLine = stripInlineMarkup(firstLine) === first.text;
  const isOneSentence = !/[.!?]["')\]]?\s+[\p{Lu}\d]/u.test(first.text);
  if (isSingleLine && isOneSentence && first.text.length <= 300 && /\p{L}/u.test(first.text)) {
    blocks[0] = { kind: 'heading', text: first.text, level: 0 };
  }
}
