/**
 * Title: the document's own metadata title when it means something, else its first heading, else the file name
 * made readable. Office tools fill the metadata title with junk ("Microsoft Word - report.doc", "untitled",
 * "Slide 1", the file name itself), which is why it is checked before it is trusted.
 */
import type { Block } from './blocks.js';
import { stripInlineMarkup } from './blocks.js';
import { truncate } from './summary.js';

export const MAX_TITLE_CHARS = 300;

const JUNK_TITLES = [
  /^microsoft\s+(word|excel|powerpoint|office|outlook)\b/i,
  /^untitled\b/i,
  /^(no\s*title|none|null|undefined|unknown|default|title|document|doc|draft|template|new\s+document)\s*\d*(\.\w+)?$/i,
  /^(slide|page|sheet|book|presentation|powerpoint\s+presentation|layout|chart|image|picture|workbook)\s*\d*$/i,
  /^(title|subject)\s*[:-]?\s*$/i,
  /\.(docx?|dotx?|pdf|pptx?|xlsx?|odt|ods|odp|rtf|txt|html?|md|tex|wpd|pages|key|numbers)$/i,
  /^[a-z]:\\|^\/[\w.-]+\//i, // a path
  /^[\W\d_]+$/u, // no letters at all
];

/** A usable title from metadata, or undefined when it is missing or junk. */
export function meaningfulMetadataTitle(title: string | undefined, filename: string): string | undefined {
  if (typeof title !== 'string') return undefined;
  const cleaned = title.replace(/\s+/g, ' ').trim();
  if (cleaned.length < 2 || !/\p{L}/u.test(cleaned)) return undefined;
  if (JUNK_TITLES.some((pattern) => pattern.test(cleaned))) return undefined;
  const stem = filename.replace(/\.[^.]*$/, '').toLowerCase();
  if (cleaned.toLowerCase() === filename.toLowerCase() || cleaned.toLowerCase() === stem) return undefined;
  return truncate(cleaned, MAX_TITLE_CHARS);
}

/** The document's first heading: a leading heading of any kind, else the first level-1 Markdown heading. */
export function firstHeading(blocks: Block[]): string | undefined {
  const first = blocks[0];
  const heading =
    first?.kind === 'heading' ? first : blocks.find((block) => block.kind === 'heading' && block.level === 1);
  if (!heading) return undefined;
  const text = stripInlineMarkup(heading.text).replace(/[\s:]+$/, '');
  return /\p{L}/u.test(text) ? truncate(text, MAX_TITLE_CHARS) : undefined;
}

/** "quarterly_report-2024.final.pdf" → "quarterly report 2024 final"; "myNotes.txt" → "my Notes". */
export function titleFromFilename(filename: string): string {
  const withoutExtension = filename.includes('.', 1) ? filename.replace(/\.[^.]*$/, '') : filename;
  const readable = withoutExtension
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/[_\-.+]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return truncate(readable === '' ? filename : readable, MAX_TITLE_CHARS);
}
