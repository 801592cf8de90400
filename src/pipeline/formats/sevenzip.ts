/**
 * Reading 7z archives with 7z-wasm: 7-Zip's own command line compiled to WebAssembly (LGPL with the unRAR
 * restriction, a 1.6 MB module in the npm package, no native binary). The archive is written into the module's
 * in-memory file system, listed (`l -slt`), and the members chosen within the budget are extracted in one run into
 * that same in-memory file system: the module mounts nothing of the host's, so a member named ../../etc/passwd
 * never reaches a disk. A fresh module instance per archive (about 20 ms) keeps no state between files.
 *
 * 7-Zip cannot stop a member part-way, and in a solid archive a member is reached only by decoding the members
 * before it in its block, so members are chosen by what reaching them costs (their block's bytes up to and
 * including them): those past the byte budget, or larger than a member may be, are listed by name only.
 */
import sevenZipPackage, { type SevenZipModule } from '7z-wasm';
import { MEMBER_LIMIT } from './archive.js';
import type { ArchiveBudget, ArchiveMember } from './types.js';

// The package is CommonJS typed as an ES module: its factory is module.exports.default.
const SevenZip = sevenZipPackage.default;

const MAGIC = Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]);
/** A password no archive has: 7-Zip then reports an encrypted listing instead of asking on stdin. */
const NO_PASSWORD = '-pfilesift-no-password';
const ARCHIVE = '/archive.7z';
const OUT = '/out';
const MB = 1024 * 1024;

export function is7z(head: Uint8Array): boolean {
  return head.length >= MAGIC.length && MAGIC.equals(head.subarray(0, MAGIC.length));
}

/** AES-256 + SHA-256, 7-Zip's only cipher: its method id in a coder list. */
const AES_METHOD = Buffer.from([0x06, 0xf1, 0x07, 0x01]);
const ENCODED_HEADER = 0x17;

/**
 * Whether the listing itself is encrypted (7z -mhe): the start header points at the next header, which is then an
 * encoded header whose coders include AES. 7-Zip, asked to list such an archive without its password, throws
 * from inside the module instead of answering, so this is checked first.
 */
function namesEncrypted(bytes: Buffer): boolean {
  if (bytes.length < 32) return false;
  const offset = 32 + Number(bytes.readBigUInt64LE(12));
  const size = Number(bytes.readBigUInt64LE(20));
  if (offset >= bytes.length || bytes[offset] !== ENCODED_HEADER) return false;
  // The encoded header's own description is small: its coders are in its first few hundred bytes.
  return bytes.subarray(offset, Math.min(bytes.length, offset + Math.min(size, 1024))).includes(AES_METHOD);
}

interface Listed {
  name: string;
  size: number;
  directory: boolean;
  encrypted: boolean;
  /** The solid block it is decoded in ('' when it has its own stream or none). */
  block: string;
}

export type SevenZipArchive =
  | { ok: true; listed: Listed[]; membersWithin(budget: ArchiveBudget, maxMemberBytes: number): ArchiveMember[] }
  | { ok: false; encrypted: boolean; reason: string };

/** Lists a 7z archive held in memory; its members are extracted only when asked, within a budget. */
export async function open7z(bytes: Buffer): Promise<SevenZipArchive> {
  const run = await instance();
  run.module.FS.writeFile(ARCHIVE, bytes);
  if (namesEncrypted(bytes)) return { ok: false, encrypted: true, reason: '7Z archive is encrypted (password required even to list its members)' };
  const { lines, errors } = run.call(['l', '-slt', '-ba', '-bsp0', '-sccUTF-8', NO_PASSWORD, ARCHIVE]);
  if (errors.some((e) => /ERROR/.test(e))) return { ok: false, encrypted: false, reason: errors.filter((e) => e.trim() !== '').slice(-2).join(' ') };
  const listed = parseListing(lines);
  return { ok: true, listed, membersWithin: (budget, maxMemberBytes) => extractWithin(run, listed, budget, maxMemberBytes) };
}

/** `l -slt` prints one "Key = value" block per entry, blocks separated by an empty line. */
function parseListing(lines: string[]): Listed[] {
  const entries: Listed[] = [];
  let fields = new Map<string, string>();
  const flush = () => {
    const name = fields.get('Path');
    if (name !== undefined) {
      entries.push({
        name,
        size: Number(fields.get('Size') ?? 0) || 0,
        directory: fields.get('Folder') === '+' || (fields.get('Attributes') ?? '').startsWith('D'),
        encrypted: fields.get('Encrypted') === '+',
        block: fields.get('Block') ?? '',
      });
    }
    fields = new Map();
  };
  for (const line of lines) {
    if (line.trim() === '') flush();
    const at = line.indexOf(' = ');
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 3));
  }
  flush();
  return entries;
}

/** Chooses the members whose reaching cost fits the budget, extracts them in one run, and hands all members over. */
function extractWithin(run: Instance, listed: Listed[], budget: ArchiveBudget, maxMemberBytes: number): ArchiveMember[] {
  const decoded = new Map<string, number>(); // bytes of each solid block decoded so far (in listing order)
  const reached = new Map<string, number>(); // cost of reaching each listed member through its block
  let spent = 0;
  let chosen = 0;
  const unread = new Map<Listed, string>();
  const wanted: Listed[] = [];
  for (const entry of listed) {
    const before = entry.block ? (reached.get(entry.block) ?? 0) : 0;
    const cost = before + entry.size;
    if (entry.block) reached.set(entry.block, cost);
    if (entry.directory || entry.encrypted) continue;
    const extra = cost - (entry.block ? (decoded.get(entry.block) ?? 0) : 0);
    if (entry.size > maxMemberBytes) unread.set(entry, `over the member size limit (${maxMemberBytes / MB} MB)`);
    else if (spent + extra > budget.bytesLeft) unread.set(entry, `byte limit (7z: members past ${Math.floor(budget.bytesLeft / MB)} MB of decoding not reached)`);
    else if (chosen >= budget.membersLeft) unread.set(entry, MEMBER_LIMIT);
    else {
      spent += extra;
      chosen++;
      if (entry.block) decoded.set(entry.block, cost);
      wanted.push(entry);
    }
  }
  // The walker charges each member's own bytes as it reads it; what decoding past unread members costs is charged here.
  budget.bytesLeft -= spent - wanted.reduce((sum, e) => sum + e.size, 0);
  if (wanted.length > 0) {
    run.module.FS.writeFile('/wanted.txt', wanted.map((e) => e.name).join('\n'));
    // -spd: names are names, not wildcards; -y: never ask.
    run.call(['x', ARCHIVE, `-o${OUT}`, '-y', '-bsp0', '-spd', '-scsUTF-8', '-sccUTF-8', NO_PASSWORD, '@/wanted.txt']);
  }
  const extracted = new Set(wanted);
  return listed.map((entry) => {
    const reason = unread.get(entry);
    return {
      name: entry.name,
      size: entry.size,
      directory: entry.directory,
      encrypted: entry.encrypted,
      ...(reason ? { unread: reason } : {}),
      read: (maxBytes: number) => Promise.resolve(extracted.has(entry) ? readOut(run.module, entry.name, maxBytes) : Buffer.alloc(0)),
    };
  });
}

/** An extracted member's bytes; a name 7-Zip had to change to extract (../x) is not found: no content. */
function readOut(module: SevenZipModule, name: string, maxBytes: number): Buffer {
  try {
    const bytes = module.FS.readFile(`${OUT}/${name}`);
    return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, maxBytes));
  } catch {
    return Buffer.alloc(0);
  }
}

interface Instance {
  module: SevenZipModule;
  call(args: string[]): { lines: string[]; errors: string[] };
}

async function instance(): Promise<Instance> {
  let lines: string[] = [];
  let errors: string[] = [];
  // No stdin: -y and a password given mean 7-Zip never asks.
  const module = await SevenZip({ print: (line) => lines.push(line), printErr: (line) => errors.push(line) });
  return {
    module,
    call(args) {
      lines = [];
      errors = [];
      // The module's exit sets process.exitCode to 7-Zip's status (2 for a damaged archive): not ours to change.
      const exitCode = process.exitCode;
      try {
        module.callMain(args);
      } catch (err) {
        // A C++ exception 7-Zip did not catch arrives as a number: the run is over, its output so far stands.
        errors.push(`ERROR: 7-Zip stopped (${err instanceof Error ? err.message : String(err)})`);
      } finally {
        process.exitCode = exitCode;
      }
      return { lines, errors };
    },
  };
}
