/**
 * Compaction of the keyword index's blocks (sql/0012_keyword_compaction.sql). Sealing in short slices leaves each
 * lexeme a block per slice that held it, and a departed document's postings in their blocks; compaction copies
 * keyword_blocks into keyword_blocks_next a slice of lexemes at a time (each slice one short transaction, so
 * searches go between them), every lexeme's live postings packed 128 a block exactly as one seal of them all would
 * pack them, and swaps the tables in one transaction once the copy is complete. Searches read the old table until
 * then; a seal meanwhile would add blocks the copy misses, so a seal voids a running copy (upkeep seals only when
 * none runs). Hand-written: it is the index layout's own upkeep (Lucene's segment merges play this part), and the
 * packing is ours.
 */
import type { SqlExecutor, SqlDatabase } from '../sql.js';
import { decodeInt8, decodeText, view } from '../binary.js';
import { BLOCK_SIZE, POSTING_BYTES, type Fields } from './layout.js';

/** When a compaction is due: the sealed range has grown by this many documents and doubled since the last one. */
export const COMPACT_AFTER_DOCS = 1000;

/** Whether a call may start a compaction when none runs: never, when one is due, or at once. */
export type CompactionStart = 'no' | 'due' | 'now';

/**
 * How much one step copies at most: whole lexemes of about `blocks` blocks, and no more lexemes once they hold
 * `postings` postings (one lexeme at least, however many it has). A block holds 1 to 128 postings and a step's cost
 * follows its postings (~2 µs each at 100k files: packed, then written), so a slice sized in blocks alone ran 3–5×
 * its 150 ms where the lexemes' blocks were full; the block bound keeps the bytes read bounded.
 */
export interface CompactionSlice {
  blocks: number;
  postings?: number;
}

export interface CompactionProgress {
  /** idle: none runs (none was due or asked for); running: a slice was copied; done: this call swapped the tables. */
  state: 'idle' | 'running' | 'done';
  /** Blocks and postings read from the index and written to the copy by this call, and dead postings left out. */
  blocksRead: number;
  postingsRead: number;
  blocksWritten: number;
  deadDropped: number;
  /** Time the store's thread spent on this call, in ms (on the main thread the call also waits behind searches). */
  ms: number;
}

/** A block as a seal writes it: its doc range, size, the maxima and minima of its bound, and its posting records. */
export interface PackedBlock {
  first: number;
  last: number;
  n: number;
  maxTf: Fields;
  minLen: Fields;
  postings: Uint8Array;
}

/**
 * One lexeme's postings (the records of its blocks, in block order), without the dead documents', 128 a block from
 * the first: what filesift_keyword_seal would write sealing them all at once. The live records are copied once,
 * straight into one buffer that the blocks share: a slice reaches hundreds of thousands of postings, and an object
 * a posting left the store's heap 14–18 MB higher at the end of a bulk run (docs/benchmarks/memory.md, stop 46).
 */
export function packPostings(blocks: readonly Uint8Array[], dead: ReadonlySet<number>): PackedBlock[] {
  // Room for every record; the dead ones leave its end unused.
  const all = new Uint8Array(blocks.reduce((n, bytes) => n + bytes.byteLength, 0));
  let to = 0;
  let previous = -1;
  for (const bytes of blocks) {
    if (bytes.byteLength % POSTING_BYTES !== 0) throw new Error(`postings: ${bytes.byteLength} bytes is not a whole number of records`);
    const v = view(bytes);
    // Runs of live records are copied whole; a dead document's record is stepped over.
    let run = 0;
    for (let at = 0; at <= bytes.byteLength; at += POSTING_BYTES) {
      if (at < bytes.byteLength) {
        const doc = v.getInt32(at);
        if (doc <= previous) throw new Error(`postings out of document order (${doc} after ${previous})`);
        previous = doc;
        if (!dead.has(doc)) continue;
      }
      all.set(bytes.subarray(run, at), to);
      to += at - run;
      run = at + POSTING_BYTES;
    }
  }
  const records = to / POSTING_BYTES;
  const out: PackedBlock[] = [];
  const v = view(all);
  for (let start = 0; start < records; start += BLOCK_SIZE) {
    const end = Math.min(records, start + BLOCK_SIZE);
    const maxTf: Fields = [0, 0, 0, 0];
    const minLen: Fields = [Infinity, Infinity, Infinity, Infinity];
    for (let at = start * POSTING_BYTES; at < end * POSTING_BYTES; at += POSTING_BYTES) {
      for (let f = 0; f < 4; f++) maxTf[f] = Math.max(maxTf[f]!, v.getInt16(at + 4 + 2 * f));
      for (let f = 0; f < 3; f++) minLen[f] = Math.min(minLen[f]!, v.getInt16(at + 12 + 2 * f));
      minLen[3] = Math.min(minLen[3], v.getInt32(at + 18));
    }
    out.push({
      first: v.getInt32(start * POSTING_BYTES),
      last: v.getInt32((end - 1) * POSTING_BYTES),
      n: end - start,
      maxTf,
      minLen,
      postings: all.subarray(start * POSTING_BYTES, end * POSTING_BYTES),
    });
  }
  return out;
}

interface CompactionState {
  upto: number;
  compactedUpto: number;
  /** The watermark the running copy started from; null when none runs. */
  copying: number | null;
  cursor: string | null;
}

async function readState(tx: SqlExecutor): Promise<CompactionState> {
  const { rows } = await tx.query<{ upto: string; compacted_upto: string; compaction_upto: string | null; compaction_cursor: string | null }>(
    // FOR UPDATE: the watermark's row is the first lock of every step (sql/0015_keyword_lock_order.sql).
    'SELECT upto::text, compacted_upto::text, compaction_upto::text, compaction_cursor FROM keyword_seal FOR UPDATE',
  );
  const row = rows[0]!;
  return {
    upto: Number(row.upto),
    compactedUpto: Number(row.compacted_upto),
    copying: row.compaction_upto === null ? null : Number(row.compaction_upto),
    cursor: row.compaction_cursor,
  };
}

/** A new, empty copy (the old one of a voided run dropped): the same columns, storage, checks and key. */
const BEGIN_COPY = `
  DROP TABLE IF EXISTS keyword_blocks_next;
  CREATE TABLE keyword_blocks_next (LIKE keyword_blocks INCLUDING ALL) WITH (toast_tuple_target = 8160);
  ALTER TABLE keyword_blocks_next ALTER COLUMN postings SET STATISTICS 0;
  TRUNCATE keyword_compaction_dead;
  UPDATE keyword_seal SET compaction_upto = upto, compaction_cursor = NULL`;

const VOID_COPY = `
  DROP TABLE IF EXISTS keyword_blocks_next;
  TRUNCATE keyword_compaction_dead;
  UPDATE keyword_seal SET compaction_upto = NULL, compaction_cursor = NULL`;

/** The copy becomes the index: the dead postings it left out stop being listed, the old table's space is freed. */
const SWAP = `
  DELETE FROM keyword_dead d USING keyword_compaction_dead c WHERE d.lexeme = c.lexeme AND d.doc = c.doc;
  TRUNCATE keyword_compaction_dead;
  DROP TABLE keyword_blocks;
  ALTER TABLE keyword_blocks_next RENAME TO keyword_blocks;
  ALTER INDEX keyword_blocks_next_pkey RENAME TO keyword_blocks_pkey;
  UPDATE keyword_seal SET compacted_upto = compaction_upto, compaction_upto = NULL, compaction_cursor = NULL`;

const BLOCK_COLUMNS = `convert_to(b.lexeme, 'UTF8'), int8send(b.first_doc), b.postings`;

interface SourceBlock {
  lexeme: string;
  first: number;
  postings: Uint8Array;
}

function toSourceBlock(row: (Uint8Array | null)[]): SourceBlock {
  return { lexeme: decodeText(row[0]!), first: decodeInt8(row[1]!), postings: row[2]! };
}

/**
 * The first whole lexemes of `blocks` (in order) whose postings stay within `maxPostings`, the first lexeme at least,
 * and how many postings they hold.
 */
export function withinPostings<T extends { lexeme: string; postings: Uint8Array }>(blocks: readonly T[], maxPostings: number): { blocks: T[]; postings: number } {
  let postings = 0;
  let end = 0;
  while (end < blocks.length) {
    const lexeme = blocks[end]!.lexeme;
    let next = end;
    let own = 0;
    for (; next < blocks.length && blocks[next]!.lexeme === lexeme; next++) own += blocks[next]!.postings.byteLength / POSTING_BYTES;
    if (end > 0 && postings + own > maxPostings) break;
    postings += own;
    end = next;
  }
  return { blocks: blocks.slice(0, end), postings };
}

/** The next whole lexemes after the cursor, about `maxBlocks` blocks (more when one lexeme alone has more). */
async function readSlice(tx: SqlExecutor, cursor: string | null, maxBlocks: number): Promise<SourceBlock[]> {
  const rows = cursor === null
    ? await tx.queryBytes(`SELECT ${BLOCK_COLUMNS} FROM keyword_blocks b ORDER BY b.lexeme, b.first_doc LIMIT $1`, [maxBlocks])
    : await tx.queryBytes(`SELECT ${BLOCK_COLUMNS} FROM keyword_blocks b WHERE b.lexeme > $1 ORDER BY b.lexeme, b.first_doc LIMIT $2`, [cursor, maxBlocks]);
  const blocks = rows.map(toSourceBlock);
  if (blocks.length < maxBlocks) return blocks;
  const last = blocks[blocks.length - 1]!;
  const whole = blocks.filter((b) => b.lexeme !== last.lexeme);
  if (whole.length > 0) return whole; // the last lexeme may go on: the next slice takes it whole
  const rest = await tx.queryBytes(`SELECT ${BLOCK_COLUMNS} FROM keyword_blocks b WHERE b.lexeme = $1 AND b.first_doc > $2 ORDER BY b.first_doc`, [last.lexeme, last.first]);
  return [...blocks, ...rest.map(toSourceBlock)];
}

async function readDead(tx: SqlExecutor, from: string, to: string): Promise<Map<string, Set<number>>> {
  const rows = await tx.queryBytes(`SELECT convert_to(lexeme, 'UTF8'), int8send(doc) FROM keyword_dead WHERE lexeme >= $1 AND lexeme <= $2`, [from, to]);
  const dead = new Map<string, Set<number>>();
  for (const [lexeme, doc] of rows) {
    const key = decodeText(lexeme!);
    let docs = dead.get(key);
    if (!docs) dead.set(key, (docs = new Set()));
    docs.add(decodeInt8(doc!));
  }
  return dead;
}

async function writeBlocks(tx: SqlExecutor, packed: readonly { lexeme: string; block: PackedBlock }[]): Promise<void> {
  if (packed.length === 0) return;
  const bytes = new Uint8Array(packed.reduce((n, p) => n + p.block.postings.byteLength, 0));
  const offsets: number[] = [];
  let at = 0;
  for (const { block } of packed) {
    bytes.set(block.postings, at);
    offsets.push(at + 1); // substring() counts from 1
    at += block.postings.byteLength;
  }
  const column = (f: (b: PackedBlock) => number): number[] => packed.map((p) => f(p.block));
  // The records travel as one hex text, decoded once: a bytea parameter would go through PGlite's serializer, which
  // hex-encodes byte by byte in JavaScript (a fifth of a compaction's CPU); Buffer's hex is native.
  await tx.query(
    `WITH records AS (SELECT decode($14, 'hex') AS bytes)
     INSERT INTO keyword_blocks_next (lexeme, first_doc, last_doc, n, max_tf_a, max_tf_b, max_tf_c, max_tf_d,
                                      min_len_a, min_len_b, min_len_c, min_len_d, postings)
     SELECT u.lexeme, u.first_doc, u.last_doc, u.n, u.ta, u.tb, u.tc, u.td, u.la, u.lb, u.lc, u.ld,
            substring(r.bytes FROM u.off FOR u.n * ${POSTING_BYTES})
     FROM records r, unnest($1::text[], $2::bigint[], $3::bigint[], $4::smallint[], $5::smallint[], $6::smallint[], $7::smallint[],
                 $8::smallint[], $9::smallint[], $10::smallint[], $11::smallint[], $12::integer[], $13::integer[])
          AS u (lexeme, first_doc, last_doc, n, ta, tb, tc, td, la, lb, lc, ld, off)`,
    [
      packed.map((p) => p.lexeme),
      column((b) => b.first),
      column((b) => b.last),
      column((b) => b.n),
      column((b) => b.maxTf[0]),
      column((b) => b.maxTf[1]),
      column((b) => b.maxTf[2]),
      column((b) => b.maxTf[3]),
      column((b) => b.minLen[0]),
      column((b) => b.minLen[1]),
      column((b) => b.minLen[2]),
      column((b) => b.minLen[3]),
      offsets,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'),
    ],
  );
}

/** A timed slice copies this share of its blocks first, and the rest only if that share kept to its time. */
const PROBE_SHARE = 4;

/**
 * One step of compaction, in one transaction: starts a copy when none runs and `start` allows it, copies the next
 * slice (whole lexemes of about `slice.blocks` blocks and at most `slice.postings` postings), or, the copy
 * complete, swaps it in. A copy whose watermark a seal has moved
 * since is voided first (and started again when `start` allows). With a `budgetMs`, as a seal slice does
 * (maintenance.ts), a quarter of the slice is copied first and the rest only if the quarter took at most a
 * quarter of the budget: a slice sized from earlier ones ran up to 571 ms on a loaded machine (bench:search's
 * stall run, slices sized to 150 ms), every search waiting behind it.
 */
export async function compactKeywordIndex(
  db: SqlDatabase,
  slice: CompactionSlice,
  start: CompactionStart,
  dueAfterDocs = COMPACT_AFTER_DOCS,
  budgetMs = Infinity,
): Promise<CompactionProgress> {
  const { blocks: maxBlocks, postings: maxPostings = Infinity } = slice;
  if (!Number.isSafeInteger(maxBlocks) || maxBlocks < 1) throw new RangeError(`bad slice size ${maxBlocks}`);
  if (!(maxPostings === Infinity || (Number.isSafeInteger(maxPostings) && maxPostings >= 1))) throw new RangeError(`bad slice size ${maxPostings} postings`);
  if (!(budgetMs > 0)) throw new RangeError(`bad time budget ${budgetMs}`);
  const started = performance.now();
  const progress = await db.transaction(async (tx): Promise<Omit<CompactionProgress, 'ms'>> => {
    const idle = { state: 'idle', blocksRead: 0, postingsRead: 0, blocksWritten: 0, deadDropped: 0 } as const;
    const state = await readState(tx);
    if (state.copying !== null && state.copying !== state.upto) {
      await tx.exec(VOID_COPY);
      state.copying = null;
    }
    if (state.copying === null) {
      const grown = state.upto - state.compactedUpto;
      const due = start === 'now' || (start === 'due' && grown >= dueAfterDocs && grown >= state.compactedUpto);
      if (!due) return idle;
      await tx.exec(BEGIN_COPY);
      state.cursor = null;
    }
    const probing = Number.isFinite(budgetMs) && maxBlocks >= PROBE_SHARE;
    const share = (n: number): number => (probing && n !== Infinity ? Math.ceil(n / PROBE_SHARE) : n);
    const first = await copySlice(tx, state.cursor, share(maxBlocks), share(maxPostings));
    if (first === null) {
      await tx.exec(SWAP);
      return { ...idle, state: 'done' };
    }
    let copied = first;
    if (probing && performance.now() - started <= budgetMs / PROBE_SHARE) {
      const rest = await copySlice(tx, first.cursor, maxBlocks - first.blocksRead, maxPostings - first.postingsRead);
      if (rest) {
        copied = {
          cursor: rest.cursor,
          blocksRead: first.blocksRead + rest.blocksRead,
          postingsRead: first.postingsRead + rest.postingsRead,
          blocksWritten: first.blocksWritten + rest.blocksWritten,
          deadDropped: first.deadDropped + rest.deadDropped,
        };
      }
    }
    await tx.query('UPDATE keyword_seal SET compaction_cursor = $1', [copied.cursor]);
    const { cursor: _cursor, ...counts } = copied;
    return { state: 'running', ...counts };
  });
  return { ...progress, ms: performance.now() - started };
}

/**
 * Copies the whole lexemes of about `maxBlocks` blocks and at most `maxPostings` postings (one lexeme at least)
 * after `cursor` into the copy; null when none are left (or the share left to copy is spent).
 */
async function copySlice(
  tx: SqlExecutor,
  cursor: string | null,
  maxBlocks: number,
  maxPostings: number,
): Promise<{ cursor: string; blocksRead: number; postingsRead: number; blocksWritten: number; deadDropped: number } | null> {
  if (maxBlocks < 1 || maxPostings < 1) return null;
  const { blocks, postings: postingsRead } = withinPostings(await readSlice(tx, cursor, maxBlocks), maxPostings);
  if (blocks.length === 0) return null;
  const lastLexeme = blocks[blocks.length - 1]!.lexeme;
  const dead = await readDead(tx, blocks[0]!.lexeme, lastLexeme);
  const packed: { lexeme: string; block: PackedBlock }[] = [];
  const dropped: { lexeme: string; doc: number }[] = [];
  for (let i = 0; i < blocks.length; ) {
    const lexeme = blocks[i]!.lexeme;
    const own: Uint8Array[] = [];
    for (; i < blocks.length && blocks[i]!.lexeme === lexeme; i++) own.push(blocks[i]!.postings);
    const gone = dead.get(lexeme) ?? new Set<number>();
    for (const block of packPostings(own, gone)) packed.push({ lexeme, block });
    for (const doc of gone) dropped.push({ lexeme, doc });
  }
  await writeBlocks(tx, packed);
  if (dropped.length > 0) {
    await tx.query(
      'INSERT INTO keyword_compaction_dead (lexeme, doc) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING',
      [dropped.map((d) => d.lexeme), dropped.map((d) => d.doc)],
    );
  }
  return { cursor: lastLexeme, blocksRead: blocks.length, postingsRead, blocksWritten: packed.length, deadDropped: dropped.length };
}
