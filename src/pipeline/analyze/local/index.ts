/**
 * The local analyzer: title, extractive summary and keywords from the text alone, offline and deterministic.
 * Source code, delimited tables and prose each get their own block structure; the rest is shared.
 */
import { ARCHIVE_FORMATS, splitMembers } from '../../formats/member-header.js';
import type { Analysis, ParsedDocument } from '../../types.js';
import type { Block } from './blocks.js';
import { proseBlocks } from './blocks.js';
import { codeBlocks, isCodeFile, isPreamble } from './code.js';
import { extractKeywords } from './keywords.js';
import type { Sentence, TextAnalysis } from './nlp.js';
import { analyseBlocks } from './nlp.js';
import { summarize, truncate } from './summary.js';
import type { TableShape } from './table.js';
import { describeTable, detectTable, tableBlocks } from './table.js';
import { firstHeading, meaningfulMetadataTitle, titleFromFilename } from './title.js';

export interface LocalAnalyzeOptions {
  /** Only the first this-many characters of the text are analysed (huge files cost no more than this). */
  maxInputChars: number;
  /** Summary length bound in characters (default 400). */
  maxSummaryChars?: number;
}

const TABLE_EXTENSIONS = new Set(['csv', 'tsv', 'tab', 'psv']);
const NEVER_TABLE_FORMATS = new Set(['markdown', 'html', 'xml']);

type Shape =
  | { kind: 'prose'; blocks: Block[] }
  /** An archive: its members' text as prose; their paths are neither headings nor sentences. */
  | { kind: 'archive'; blocks: Block[]; members: string[] }
  | { kind: 'code'; blocks: Block[]; leadingComment?: number }
  | { kind: 'table'; blocks: Block[]; table: TableShape };

export function analyzeLocally(doc: ParsedDocument, options: LocalAnalyzeOptions): Analysis {
  const maxSummaryChars = options.maxSummaryChars ?? 400;
  const text = capText(doc.text, options.maxInputChars);
  const shape = shapeOf(doc, text);

  const metadataTitle = meaningfulMetadataTitle(doc.metadata.title, doc.filename);
  // An archive is named by its file, not by whichever heading its first member starts with.
  const headingTitle = shape.kind === 'prose' ? firstHeading(shape.blocks) : undefined;
  const title = metadataTitle ?? headingTitle ?? titleFromFilename(doc.filename);

  // Words the author put in the metadata weigh like a heading's; they are not text to summarise.
  // Metadata crosses a thread boundary from the parser: trust its types no further than a check.
  const metadataKeywords: unknown = doc.metadata.keywords;
  const keywordsText = Array.isArray(metadataKeywords)
    ? metadataKeywords.filter((keyword): keyword is string => typeof keyword === 'string').join(', ')
    : metadataKeywords;
  const metadataBlocks: Block[] = [metadataTitle, doc.metadata.subject, keywordsText]
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '')
    .map((value) => ({ kind: 'heading', text: value, level: 0 }));
  const analysis = analyseBlocks([...metadataBlocks, ...shape.blocks]);

  return {
    title,
    summary: summaryOf(shape, analysis, text, metadataBlocks.length, maxSummaryChars),
    keywords: extractKeywords(analysis.tokens, analysis.sentences, { code: shape.kind === 'code' }),
    provider: 'local',
  };
}

/** The first maxInputChars characters, cut back to the last whitespace so no word is split. */
function capText(text: string, maxInputChars: number): string {
  if (text.length <= maxInputChars) return text;
  const cut = text.slice(0, maxInputChars);
  const space = cut.search(/\s\S*$/);
  return space > maxInputChars / 2 ? cut.slice(0, space) : cut;
}

function shapeOf(doc: ParsedDocument, text: string): Shape {
  if (ARCHIVE_FORMATS.has(doc.format)) {
    const members = splitMembers(text);
    return { kind: 'archive', blocks: members.flatMap((member) => proseBlocks(member.text)), members: members.map((member) => member.name) };
  }
  if (isCodeFile(doc.extension, doc.filename) && doc.format !== 'markdown') {
    const { blocks, leadingComment } = codeBlocks(text, doc.extension, doc.filename);
    return leadingComment === undefined ? { kind: 'code', blocks } : { kind: 'code', blocks, leadingComment };
  }
  if (!NEVER_TABLE_FORMATS.has(doc.format)) {
    const table = detectTable(text, TABLE_EXTENSIONS.has(doc.extension));
    if (table) return { kind: 'table', blocks: tableBlocks(table), table };
  }
  return { kind: 'prose', blocks: proseBlocks(text) };
}

function summaryOf(shape: Shape, analysis: TextAnalysis, text: string, blockOffset: number, maxChars: number): string {
  const options = { maxChars };
  const inBlocks = (predicate: (block: number) => boolean): Sentence[] =>
    analysis.sentences.filter((sentence) => sentence.block >= blockOffset && predicate(sentence.block - blockOffset));

  if (shape.kind === 'table') return describeTable(shape.table, maxChars);
  if (shape.kind === 'code') {
    const leading = shape.leadingComment;
    const header = leading === undefined ? [] : inBlocks((block) => block === leading);
    const comments = header.length > 0 ? header : inBlocks((block) => shape.blocks[block]?.kind === 'paragraph');
    return comments.length > 0 ? summarize(comments, analysis.tokens, options) : firstCodeLines(text, maxChars);
  }
  const prose = inBlocks((block) => ['paragraph', 'list'].includes(shape.blocks[block]?.kind ?? ''));
  if (prose.length > 0) return summarize(prose, analysis.tokens, options);
  // An archive without prose (pictures, binaries): what it holds.
  if (shape.kind === 'archive' && shape.members.length > 0) {
    const count = `${shape.members.length.toLocaleString('en')} member${shape.members.length === 1 ? '' : 's'}`;
    return truncate(`${count}: ${shape.members.join(', ')}`, maxChars);
  }
  // No prose at all (only headings, tables or code): the first block that is not the title line.
  const rest = shape.blocks.slice(shape.blocks[0]?.kind === 'heading' && shape.blocks.length > 1 ? 1 : 0);
  return truncate(rest.map((block) => block.text).join(' ').replace(/\s+/g, ' ').trim(), maxChars);
}

/** Up to three lines of actual code (no imports, no lone braces) when a source file has no comments. */
function firstCodeLines(text: string, maxChars: number): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length >= 3 && /[\p{L}\d]/u.test(line) && !isPreamble(line) && !line.startsWith('#!'))
    .slice(0, 3);
  return truncate(lines.join(' ').replace(/\s+/g, ' '), maxChars);
}
