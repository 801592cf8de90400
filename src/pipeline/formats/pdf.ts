/**
 * PDF with Mozilla's pdf.js (pdfjs-dist, legacy build for Node). pdf.js normally parses in a Web Worker; in
 * Node it uses a "fake worker" that runs in the calling thread. We load the worker module ourselves and hand
 * it over through globalThis.pdfjsWorker, so pdf.js never resolves a worker URL at run time: that works the
 * same on the main thread and inside a worker_thread of the pool. Standard font metrics and CMaps (needed for
 * CJK text) are read from the pdfjs-dist package folder, never fetched.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';
import { keepingNativeBuiltins } from '../../lib/native-builtins.js';
import type { DocumentMetadata } from '../types.js';
import { normalizeText, TextCollector } from './normalize.js';
import { cutWidePageTreeNodes } from './pdf-page-tree.js';
import { describeError, failure, type ExtractInput, type ExtractResult } from './types.js';

type PdfJs = typeof PdfJsModule;

let pdfjs: Promise<PdfJs> | undefined;

/**
 * Loads pdf.js once per thread (module objects are immutable; the cache is not shared mutable state). Its
 * legacy build's core-js would replace `Array.prototype.push`, `JSON.parse` and others for the whole thread with
 * slower JavaScript versions: they are put back (lib/native-builtins.ts).
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= keepingNativeBuiltins(async () => {
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  });
  return pdfjs;
}

/**
 * Pages read at most. Real documents reach the text limit long before (2 million characters are 100 per page
 * over 20,000 pages); a page tree of 500,000 empty pages (a "page bomb") would otherwise be walked for minutes.
 * A page-tree node wider than this is cut before pdf.js opens the document (pdf-page-tree.ts), which bounds
 * its memory too.
 */
const MAX_PAGES = 20_000;

const packageDir = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const STANDARD_FONTS = path.join(packageDir, 'standard_fonts') + path.sep;
const CMAPS = path.join(packageDir, 'cmaps') + path.sep;

export async function extractPdf(input: ExtractInput): Promise<ExtractResult> {
  const { getDocument } = await loadPdfJs();
  // pdf.js takes ownership of (and may detach) the buffer it is given: pass a copy, cut where a node is too wide.
  const data = new Uint8Array(input.bytes);
  const listedPages = cutWidePageTreeNodes(data, MAX_PAGES);
  const task = getDocument({
    data,
    standardFontDataUrl: STANDARD_FONTS,
    cMapUrl: CMAPS,
    cMapPacked: true,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  try {
    let doc;
    try {
      doc = await task.promise;
    } catch (err) {
      return classify(err);
    }
    const out = new TextCollector(input);
    const pages = Math.min(doc.numPages, MAX_PAGES);
    for (let n = 1; n <= pages && !out.full; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      for (const item of content.items) {
        if (!('str' in item)) continue;
        out.push(item.str);
        if (item.hasEOL) out.push('\n');
      }
      // Comments and pop-up notes live in annotations, not in the page's text. Asked for with the print intent:
      // with the display intent (the default) pdf.js reads the page's whole text a second time whenever a link or
      // a highlight on it is visible, to tell which text each one covers (nothing we read): hyperlinked manuals
      // parsed in 1.6–1.7 s instead of 3.0–3.4 (gnuplot's 311 pages, debian-reference's 261). Print leaves out
      // notes their author marked not to print (viewers set the print flag on comments by default).
      for (const note of annotationTexts(await page.getAnnotations({ intent: 'print' }))) out.push(`\n${note}\n`);
      out.push('\n\n');
      page.cleanup();
    }
    const metadata = await pdfMetadata(doc);
    // A cut page tree lists at least `listedPages` pages, of which pdf.js saw the first MAX_PAGES or more.
    metadata.pages = Math.max(doc.numPages, listedPages);
    const skipped = metadata.pages > MAX_PAGES && !out.full;
    return {
      ok: true,
      format: 'pdf',
      mime: 'application/pdf',
      text: normalizeText(out.toString()),
      metadata,
      truncated: out.truncated || skipped,
      ...(skipped ? { note: `only the first ${MAX_PAGES.toLocaleString('en')} of ${listedPages > 0 ? 'at least ' : ''}${metadata.pages.toLocaleString('en')} pages were read` } : {}),
    };
  } catch (err) {
    return classify(err);
  } finally {
    await task.destroy();
  }
}

function annotationTexts(annotations: unknown[]): string[] {
  const texts: string[] = [];
  for (const annotation of annotations) {
    if (typeof annotation !== 'object' || annotation === null) continue;
    const { contentsObj, contents } = annotation as { contentsObj?: { str?: unknown }; contents?: unknown };
    const text = typeof contentsObj?.str === 'string' ? contentsObj.str : typeof contents === 'string' ? contents : '';
    if (text.trim() !== '') texts.push(text);
  }
  return texts;
}

function classify(err: unknown): ExtractResult {
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return failure('encrypted', 'PDF is encrypted (password required)');
  if (name === 'InvalidPDFException') return failure('corrupt', `PDF is damaged: ${describeError(err)}`);
  return failure('corrupt', `PDF could not be read: ${describeError(err)}`);
}

type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

async function pdfMetadata(doc: PdfDocument): Promise<DocumentMetadata> {
  const metadata: DocumentMetadata = {};
  let info: Record<string, unknown> = {};
  let xmpTitle: string | undefined;
  try {
    const result = await doc.getMetadata();
    info = (result.info ?? {}) as Record<string, unknown>;
    const xmp = result.metadata?.get('dc:title');
    if (typeof xmp === 'string') xmpTitle = xmp;
  } catch {
    return metadata; // a broken info dictionary costs us the metadata, not the text
  }
  const text = (key: string) => {
    const value = info[key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const title = text('Title') ?? xmpTitle?.trim();
  if (title) metadata.title = title;
  const author = text('Author');
  if (author) metadata.author = author;
  const subject = text('Subject');
  if (subject) metadata.subject = subject;
  const keywords = text('Keywords');
  if (keywords) metadata.keywords = keywords.split(/[,;]/).map((k) => k.trim()).filter(Boolean);
  const created = pdfDate(text('CreationDate'));
  if (created) metadata.created = created;
  const language = text('Language');
  if (language) metadata.language = language;
  return metadata;
}

/** PDF dates look like D:20090101120000+01'00'; returns ISO 8601 or undefined. */
export function pdfDate(value: string | undefined): string | undefined {
  const m = value && /^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?/.exec(value);
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh = '00', om = '00'] = m;
  const zone = !sign || sign.toUpperCase() === 'Z' ? 'Z' : `${sign}${oh}:${om}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
