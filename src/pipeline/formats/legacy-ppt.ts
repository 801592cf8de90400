/**
 * Legacy PowerPoint (.ppt): the "PowerPoint Document" stream is a tree of records ([MS-PPT]); slide and notes
 * text sits in TextCharsAtom (UTF-16) and TextBytesAtom (8-bit) records, comments in CString records inside
 * Comment10 containers. We walk the tree in stream order, skipping master slides (their text is layout
 * placeholders such as "Click to edit Master title style"), the notes master and the handout master.
 * No maintained JS library reads PPT text.
 */
import { normalizeText, TextCollector } from './normalize.js';
import { summaryInformation, type OleFile } from './ole.js';
import { failure, type ExtractResult } from './types.js';

const TEXT_CHARS_ATOM = 0x0fa0;
const TEXT_BYTES_ATOM = 0x0fa8;
const CSTRING = 0x0fba;
const MAIN_MASTER = 0x03f8;
const NOTES = 0x03f0;
const NOTES_ATOM = 0x03f1;
const HANDOUT = 0x0fc9;
const COMMENT10 = 0x2ee0;
const CRYPT_SESSION10 = 0x2f14;

export function extractPpt(ole: OleFile, maxTextChars: number): ExtractResult {
  if (ole.stream('EncryptedSummary')) return failure('encrypted', 'PPT is encrypted (password required)');
  const stream = ole.stream('PowerPoint Document');
  if (!stream) return failure('corrupt', 'PPT has no "PowerPoint Document" stream');
  const out = new TextCollector(maxTextChars);
  let slides = 0;
  // Containers we are inside, as [type, end offset]; the walk is iterative so depth costs no stack.
  const open: Array<[number, number]> = [];
  let pos = 0;
  while (pos + 8 <= stream.length && !out.full) {
    while (open.length > 0 && pos >= (open[open.length - 1]?.[1] ?? 0)) open.pop();
    const verInstance = stream.readUInt16LE(pos);
    const type = stream.readUInt16LE(pos + 2);
    const length = stream.readUInt32LE(pos + 4);
    const body = pos + 8;
    const end = body + length;
    if (end > stream.length) break; // a truncated record: keep what we have
    if (type === CRYPT_SESSION10) return failure('encrypted', 'PPT is encrypted (password required)');
    const isContainer = (verInstance & 0x0f) === 0x0f;
    if (isContainer) {
      if (type === MAIN_MASTER || type === HANDOUT || (type === NOTES && isNotesMaster(stream, body, end))) {
        pos = end;
        continue;
      }
      if (type === 0x03ee) slides++; // Slide container
      open.push([type, end]);
      pos = body;
      continue;
    }
    const inComment = open.some(([t]) => t === COMMENT10);
    if (type === TEXT_CHARS_ATOM || (type === CSTRING && inComment)) {
      out.push(stream.subarray(body, end).toString('utf16le'));
      out.push('\n');
    } else if (type === TEXT_BYTES_ATOM) {
      out.push(stream.subarray(body, end).toString('latin1'));
      out.push('\n');
    }
    pos = end;
  }
  return {
    ok: true,
    format: 'ppt',
    mime: 'application/vnd.ms-powerpoint',
    text: normalizeText(out.toString()),
    metadata: { ...summaryInformation(ole), slides },
    truncated: out.truncated,
  };
}

/**
 * The notes master is a Notes container whose NotesAtom does not point at a slide: its slideIdRef is 0 or,
 * as PowerPoint writes it, a master id (0x80000000 and up) rather than a slide id.
 */
function isNotesMaster(stream: Buffer, body: number, end: number): boolean {
  if (body + 12 > end || stream.readUInt16LE(body + 2) !== NOTES_ATOM) return false;
  const slideIdRef = stream.readUInt32LE(body + 8);
  return slideIdRef === 0 || slideIdRef >= 0x80000000;
}
