/**
 * Archives (ZIP, tar, a tar inside gzip/bzip2/xz/zstd): one archive file is indexed as one file whose text is its
 * members' text, each introduced by its path inside the archive on a line of its own ("[docs/report.docx]"), so
 * a search for a member's name or words finds the archive and the snippet shows which member it came from.
 * Members are parsed by the format registry itself (a DOCX in a ZIP gives its text, a .txt.gz its text, an archive
 * in an archive is opened up to MAX_DEPTH levels); members that are not text (images, binaries) give their name.
 *
 * Hand-written because the bounds are ours, as Recoll and sist2 bound theirs (member size, count, depth, time):
 * members are read into memory only, never to disk (a name like ../../etc/passwd is only text), and one budget
 * (decompressed bytes, members read, a deadline) is shared by every nesting level. A zip bomb, a tar bomb, a
 * million-member archive or a deep nest ends as text_truncated with a note saying what was cut, never a timeout.
 */
import path from 'node:path';
import { compressionOf, decompress, innerExtension, type Decompressed } from './compressed.js';
import { looksLikeText } from './encoding.js';
import { memberHeader } from './member-header.js';
import { isTar } from './tar.js';
import { describeError, type ArchiveBudget, type ArchiveMember, type ExtractInput, type ExtractResult, type Extractor } from './types.js';

/** Archives inside archives are opened this deep: a member of a member of the file; a third level is a name. */
export const MAX_DEPTH = 2;
/** Decompressed bytes read from any one member: a longer text member is read in part, a container is skipped. */
export const MAX_MEMBER_BYTES = 16 * 1024 * 1024;
/** Decompressed bytes read from all the members of one file, nested archives included. */
export const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;
/** Members whose content is read per file, nested archives included; the rest are listed by name. */
export const MAX_MEMBERS_READ = 1000;
/** Members listed at most (names only past MAX_MEMBERS_READ): more names than any search needs. */
export const MAX_MEMBERS_LISTED = 100_000;
/** Time one file's members may take when the parse stage sets no deadline of its own. */
export const ARCHIVE_TIME_MS = 30_000;
/** Characters of the text limit kept for member names (at most a tenth of it). */
const NAMES_RESERVE = 100_000;
/** The opening of a member read first, to tell text, a container or a binary apart before reading more. */
const HEAD_BYTES = 64 * 1024;
/** Bytes per character of text wanted (as the parse stage keeps of a plain file). */
const BYTES_PER_CHAR = 8;

/** How members are parsed: the format registry, passed in (it calls back into this module for nested archives). */
export interface MemberParser {
  extract: Extractor;
  /** Whether a member must be read whole to be parsed (a container), judged from its opening. */
  needsWholeFile(head: Buffer): boolean;
}

type MemberOutcome =
  | { kind: 'text'; text: string; cut?: string }
  | { kind: 'skipped'; reason: string }
  | { kind: 'encrypted' }
  | { kind: 'failed'; reason: string };

const MB = 1024 * 1024;
export const MEMBER_LIMIT = `member limit (${MAX_MEMBERS_READ.toLocaleString('en')} read) reached`;
const BYTE_LIMIT = `byte limit (${MAX_ARCHIVE_BYTES / MB} MB decompressed) reached`;

export async function extractArchive(
  kind: { format: string; mime: string },
  /** The members, given the budget they may spend (a reader that extracts ahead, as 7z's does, stays within it). */
  membersWithin: (budget: ArchiveBudget) => AsyncIterable<ArchiveMember> | Iterable<ArchiveMember>,
  input: ExtractInput,
  parser: MemberParser,
): Promise<ExtractResult> {
  const depth = (input.archive?.depth ?? 0) + 1;
  if (depth > MAX_DEPTH) {
    return { ok: true, ...kind, text: '', metadata: {}, truncated: true, note: `archive nested more than ${MAX_DEPTH} deep: not opened` };
  }
  const budget: ArchiveBudget = input.archive?.budget ?? {
    bytesLeft: MAX_ARCHIVE_BYTES,
    membersLeft: MAX_MEMBERS_READ,
    deadline: Math.min(input.deadline ?? Infinity, Date.now() + ARCHIVE_TIME_MS),
  };
  const prefix = input.archive ? `${input.archive.path}/` : '';
  const sections: string[] = [];
  const skipped = new Map<string, number>();
  const cuts: string[] = [];
  const failures: string[] = [];
  let listed = 0;
  let read = 0;
  let encrypted = 0;
  let chars = 0;
  let stoppedListing: string | undefined;
  // Members' text stops short of the text limit, so one huge member does not crowd out the names of the others.
  const textForMembers = input.maxTextChars - Math.min(NAMES_RESERVE, Math.floor(input.maxTextChars / 10));
  try {
    for await (const member of membersWithin(budget)) {
      if (member.directory) continue;
      // Names are listed past the other limits (they cost no decompression), up to these two.
      if (listed >= MAX_MEMBERS_LISTED || chars >= input.maxTextChars) {
        stoppedListing = listed >= MAX_MEMBERS_LISTED ? `listing stopped at ${MAX_MEMBERS_LISTED.toLocaleString('en')} members` : 'listing stopped at the text limit';
        break;
      }
      listed++;
      const name = `${prefix}${member.name}`;
      const header = memberHeader(name);
      chars += header.length + 2;
      const limit = budgetLimit(budget, chars >= textForMembers, input.maxTextChars);
      const unreadable = limit ?? member.unread;
      const outcome: MemberOutcome = member.encrypted
        ? { kind: 'encrypted' }
        : unreadable
          ? { kind: 'skipped', reason: unreadable }
          : await readMember(member, name, depth, budget, textForMembers - chars, parser);
      switch (outcome.kind) {
        case 'encrypted':
          encrypted++;
          break;
        case 'failed':
          failures.push(`${name}: ${outcome.reason}`);
          break;
        case 'skipped':
          skipped.set(outcome.reason, (skipped.get(outcome.reason) ?? 0) + 1);
          break;
        case 'text':
          if (outcome.text !== '') read++;
          if (outcome.cut) cuts.push(`${name} ${outcome.cut}`);
          chars += outcome.text.length;
          break;
      }
      sections.push(outcome.kind === 'text' && outcome.text !== '' ? `${header}\n${outcome.text}` : header);
    }
  } catch (err) {
    if (listed === 0) throw err; // not an archive we can read at all: the registry reports it as corrupt
    stoppedListing = `the archive ends early, after ${listed} member${listed === 1 ? '' : 's'} (cut at the byte budget, or damaged: ${describeError(err)})`;
  }
  const skippedCount = [...skipped.values()].reduce((a, b) => a + b, 0);
  const metadata = { members: listed, membersRead: read, membersSkipped: skippedCount, membersCut: cuts.length, encryptedMembers: encrypted, unreadableMembers: failures.length };
  const truncated = skippedCount > 0 || cuts.length > 0 || stoppedListing !== undefined;
  const note = listed === 0 && !stoppedListing ? 'empty archive' : describe(listed, read, encrypted, failures, skipped, cuts, stoppedListing);
  return { ok: true, ...kind, text: sections.join('\n\n'), metadata, truncated, note };
}

/** Which shared bound stops the next member from being read, if any. */
function budgetLimit(budget: ArchiveBudget, textFull: boolean, maxTextChars: number): string | undefined {
  if (textFull) return `text limit (${maxTextChars.toLocaleString('en')} characters) reached`;
  if (Date.now() > budget.deadline) return 'time limit reached';
  if (budget.membersLeft <= 0) return MEMBER_LIMIT;
  if (budget.bytesLeft <= 0) return BYTE_LIMIT;
  return undefined;
}

/**
 * Reads one member within the budget: its opening first, then as much as its kind needs (a container whole, up
 * to the member limit; text as far as the text still wanted; a binary nothing more), and parses that.
 */
async function readMember(member: ArchiveMember, name: string, depth: number, budget: ArchiveBudget, charsWanted: number, parser: MemberParser): Promise<MemberOutcome> {
  budget.membersLeft--;
  const limit = Math.min(MAX_MEMBER_BYTES, budget.bytesLeft);
  const head = await member.read(Math.min(HEAD_BYTES, limit));
  const compression = compressionOf(head);
  const whole = compression !== null || parser.needsWholeFile(head);
  let extension = path.posix.extname(member.name).slice(1).toLowerCase();
  let bytes = head;
  let cut: string | undefined;
  if (whole) {
    if (member.size > limit && !compression) {
      budget.bytesLeft -= head.length;
      return { kind: 'skipped', reason: limit < MAX_MEMBER_BYTES ? BYTE_LIMIT : `over the member size limit (${MAX_MEMBER_BYTES / MB} MB)` };
    }
    if (member.size > head.length) bytes = await member.read(limit);
    if (compression) {
      budget.bytesLeft -= bytes.length;
      const room = Math.max(0, Math.min(MAX_MEMBER_BYTES, budget.bytesLeft));
      let inner: Decompressed;
      try {
        inner = await decompress(compression, bytes, HEAD_BYTES, () => room);
      } catch (err) {
        return { kind: 'failed', reason: `its ${compression} data could not be decompressed (${describeError(err)})` };
      }
      bytes = inner.bytes;
      extension = innerExtension(member.name, compression);
      if (inner.cut) {
        if (parser.needsWholeFile(bytes.subarray(0, HEAD_BYTES)) && !isTar(bytes)) {
          budget.bytesLeft -= bytes.length;
          return { kind: 'skipped', reason: `over the member size limit once decompressed (${Math.floor(room / MB)} MB)` };
        }
        cut = `read in part (first ${Math.floor(room / MB)} MB of ${compression} data)`;
      }
    }
  } else if (looksLikeText(head) && member.size > head.length) {
    bytes = await member.read(Math.min(limit, Math.max(HEAD_BYTES, charsWanted * BYTES_PER_CHAR)));
    if (member.size > bytes.length) cut = `read in part (first ${(bytes.length / MB).toFixed(1)} MB)`;
  }
  budget.bytesLeft -= bytes.length;
  const result = await parser.extract({ bytes, extension, maxTextChars: Math.max(0, charsWanted), deadline: budget.deadline, archive: { depth, path: name, budget } });
  if (!result.ok) return result.code === 'encrypted' ? { kind: 'encrypted' } : { kind: 'failed', reason: result.reason };
  if (result.truncated) cut ??= result.note ? `cut (${result.note})` : 'cut at the text limit';
  // Extractors may hand back more than asked (the parse stage cuts files exactly): a member is cut here.
  let text = result.text;
  if (text.length > charsWanted) {
    text = text.slice(0, Math.max(0, charsWanted));
    cut ??= 'cut at the text limit';
  }
  return { kind: 'text', text, ...(cut ? { cut } : {}) };
}

const MAX_NOTED = 3;

/** The note: how many members, how many read, and what was left out and why. */
function describe(listed: number, read: number, encrypted: number, failures: string[], skipped: Map<string, number>, cuts: string[], stoppedListing: string | undefined): string {
  const parts = [`archive: ${listed.toLocaleString('en')} member${listed === 1 ? '' : 's'}, ${read.toLocaleString('en')} read as text`];
  if (encrypted > 0) parts.push(`${encrypted} encrypted (name only)`);
  if (failures.length > 0) parts.push(`${failures.length} unreadable (name only): ${noted(failures)}`);
  for (const [reason, count] of skipped) parts.push(`${count.toLocaleString('en')} not read: ${reason}`);
  if (cuts.length > 0) parts.push(`${cuts.length} cut: ${noted(cuts)}`);
  if (stoppedListing) parts.push(stoppedListing);
  return parts.join('; ');
}

function noted(items: string[]): string {
  return items.slice(0, MAX_NOTED).join('; ') + (items.length > MAX_NOTED ? `; and ${items.length - MAX_NOTED} more` : '');
}
