/**
 * DOCX, PPTX and XLSX (Office Open XML), read directly from their XML parts. We walk the parts ourselves
 * instead of using mammoth/exceljs because text search needs every visible string (headers, footers, notes,
 * comments, all sheets) and nothing else (field codes, deleted revisions, fallback copies of text boxes),
 * streamed under a text budget; the libraries convert layout we would throw away and load whole workbooks.
 */
import type { DocumentMetadata } from '../types.js';
import { normalizeText, TextCollector, type TextLimits } from './normalize.js';
import { byType, coreProperties, readPart, relationships } from './opc.js';
import type { ExtractResult } from './types.js';
import { parseXml } from './xml.js';
import type { ZipArchive } from './zip.js';

export type OoxmlKind = 'docx' | 'pptx' | 'xlsx';

const MIME: Record<OoxmlKind, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Which OOXML document a package holds, from its main part's folder; undefined if it is none of them. */
export function ooxmlKind(mainPartName: string | undefined): OoxmlKind | undefined {
  if (!mainPartName) return undefined;
  if (mainPartName.startsWith('word/')) return 'docx';
  if (mainPartName.startsWith('ppt/')) return 'pptx';
  if (mainPartName.startsWith('xl/')) return 'xlsx';
  return undefined;
}

export async function extractOoxml(zip: ZipArchive, kind: OoxmlKind, main: string, limits: TextLimits): Promise<ExtractResult> {
  const out = new TextCollector(limits);
  const metadata: DocumentMetadata = await coreProperties(zip);
  if (kind === 'docx') await wordText(zip, main, out);
  else if (kind === 'pptx') metadata.slides = await slidesText(zip, main, out);
  else metadata.sheets = await sheetsText(zip, main, out);
  return { ok: true, format: kind, mime: MIME[kind], text: normalizeText(out.toString()), metadata, truncated: out.truncated };
}

/** WordprocessingML: w:t runs; tabs/breaks inside runs; paragraphs, cells and rows as separators. */
function wordXmlText(xml: string, out: TextCollector): void {
  const stack: string[] = [];
  let fallbackDepth = 0; // mc:Fallback repeats the mc:Choice content (e.g. VML copies of text boxes)
  parseXml(
    xml,
    {
      onopentag(name) {
        const parent = stack[stack.length - 1];
        stack.push(name);
        if (name === 'mc:Fallback') fallbackDepth++;
        if (fallbackDepth > 0 || parent !== 'w:r') return;
        if (name === 'w:tab' || name === 'w:ptab') out.push('\t');
        else if (name === 'w:br' || name === 'w:cr') out.push('\n');
        else if (name === 'w:noBreakHyphen') out.push('-');
      },
      ontext(text) {
        // Only w:t is visible text: w:instrText (field codes) and w:delText (deleted revisions) are not.
        if (fallbackDepth === 0 && stack[stack.length - 1] === 'w:t') out.push(text);
      },
      onclosetag(name) {
        stack.pop();
        if (name === 'mc:Fallback') fallbackDepth--;
        if (fallbackDepth > 0) return;
        if (name === 'w:p') out.push('\n');
        else if (name === 'w:tc') out.push('\t');
        else if (name === 'w:tr') out.push('\n');
      },
    },
    () => out.full,
  );
}

async function wordText(zip: ZipArchive, main: string, out: TextCollector): Promise<void> {
  const rels = await relationships(zip, main);
  // Body first, then the parts that hang off it, in reading order of importance.
  const parts = [
    main,
    ...['/footnotes', '/endnotes', '/comments', '/header', '/footer'].flatMap((t) => byType(rels, t).map((r) => r.target)),
  ];
  for (const part of new Set(parts)) {
    if (out.full) break;
    const xml = await readPart(zip, part);
    if (xml === undefined) continue;
    wordXmlText(xml, out);
    out.push('\n\n');
  }
}

/** DrawingML text (slides, notes, charts in slides): a:t runs, a:br breaks, a:p paragraphs. */
function drawingText(xml: string, out: TextCollector, textElements = new Set(['a:t'])): void {
  const stack: string[] = [];
  parseXml(
    xml,
    {
      onopentag(name) {
        stack.push(name);
        if (name === 'a:br') out.push('\n');
      },
      ontext(text) {
        if (textElements.has(stack[stack.length - 1] ?? '')) out.push(text);
      },
      onclosetag(name) {
        stack.pop();
        if (name === 'a:p' || name === 'p:text' || name === 'p:cm') out.push('\n');
        else if (name === 'a:tc') out.push('\t');
      },
    },
    () => out.full,
  );
}

async function slidesText(zip: ZipArchive, main: string, out: TextCollector): Promise<number> {
  const rels = await relationships(zip, main);
  const presentation = (await readPart(zip, main)) ?? '';
  // Slide order is p:sldIdLst's order, which need not follow the slide file numbers.
  const order: string[] = [];
  parseXml(presentation, {
    onopentag(name, attrs) {
      const id = attrs['r:id'];
      if (name === 'p:sldId' && id) order.push(id);
    },
  });
  const slideRels = byType(rels, '/slide');
  const slides = order.map((id) => slideRels.find((r) => r.id === id)?.target).filter((t): t is string => !!t);
  for (const rel of slideRels) if (!slides.includes(rel.target)) slides.push(rel.target);

  for (const slide of slides) {
    if (out.full) break;
    const xml = await readPart(zip, slide);
    if (xml === undefined) continue;
    drawingText(xml, out);
    const own = await relationships(zip, slide);
    for (const notes of byType(own, '/notesSlide')) {
      const notesXml = await readPart(zip, notes.target);
      if (notesXml !== undefined) drawingText(notesXml, out);
    }
    // Legacy comments keep their text in p:text; modern (2018+) comments use DrawingML a:t.
    for (const comments of own.filter((r) => !r.external && /\/comments$/i.test(r.type))) {
      const commentsXml = await readPart(zip, comments.target);
      if (commentsXml !== undefined) drawingText(commentsXml, out, new Set(['a:t', 'p:text']));
    }
    out.push('\n\n');
  }
  return slides.length;
}

/** Shared strings: one entry per <si>, its <t> runs joined, phonetic guides (<rPh>) left out. */
function sharedStrings(xml: string): string[] {
  const strings: string[] = [];
  const stack: string[] = [];
  let current = '';
  parseXml(xml, {
    onopentag(name) {
      stack.push(name);
      if (name === 'si') current = '';
    },
    ontext(text) {
      if (stack[stack.length - 1] === 't' && !stack.includes('rPh')) current += text;
    },
    onclosetag(name) {
      stack.pop();
      if (name === 'si') strings.push(current);
    },
  });
  return strings;
}

async function sheetsText(zip: ZipArchive, main: string, out: TextCollector): Promise<number> {
  const rels = await relationships(zip, main);
  const sstPart = byType(rels, '/sharedStrings')[0]?.target;
  const sstXml = sstPart ? await readPart(zip, sstPart) : undefined;
  const strings = sstXml ? sharedStrings(sstXml) : [];
  const sheets: Array<{ name: string; target: string }> = [];
  parseXml((await readPart(zip, main)) ?? '', {
    onopentag(name, attrs) {
      const target = rels.find((r) => r.id === attrs['r:id'])?.target;
      if (name === 'sheet' && target) sheets.push({ name: attrs.name ?? '', target });
    },
  });
  for (const sheet of sheets) {
    if (out.full) break;
    out.push(`${sheet.name}\n`);
    const xml = await readPart(zip, sheet.target);
    if (xml !== undefined) sheetCells(xml, strings, out);
    const own = await relationships(zip, sheet.target);
    for (const comments of byType(own, '/comments')) {
      const commentsXml = await readPart(zip, comments.target);
      if (commentsXml !== undefined) drawingText(commentsXml, out, new Set(['t']));
    }
    out.push('\n\n');
  }
  return sheets.length;
}

/** Cell values in row order: shared/inline strings, numbers, booleans and cached formula results. */
function sheetCells(xml: string, strings: string[], out: TextCollector): void {
  const stack: string[] = [];
  let type = '';
  let value = '';
  parseXml(
    xml,
    {
      onopentag(name, attrs) {
        stack.push(name);
        if (name === 'c') {
          type = attrs.t ?? 'n';
          value = '';
        }
      },
      ontext(text) {
        const top = stack[stack.length - 1];
        if (top === 'v' || (top === 't' && stack.includes('is'))) value += text;
      },
      onclosetag(name) {
        stack.pop();
        if (name === 'c') {
          const cell = type === 's' ? (strings[Number(value)] ?? '') : type === 'b' ? (value === '1' ? 'TRUE' : 'FALSE') : value;
          if (cell !== '') out.push(`${cell}\t`);
        } else if (name === 'row') out.push('\n');
      },
    },
    () => out.full,
  );
}
