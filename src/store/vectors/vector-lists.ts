/**
 * The store's vector index (sql/0021): per model and dimension, lists grown by splits (lists.ts), each list's
 * vectors packed into blocks of a byte a component (layout.ts). A write only inserts its chunk rows: the chunks past
 * the packed watermark are the tail, which a search compares exactly. The upkeep packs the tail into the lists
 * (maintain): each vector joins the list found down the tree of past splits and is appended to that list's last
 * block; a list past its bound is split in two (its blocks rewritten, the entries of deleted chunks dropped); the
 * lists of a model no file is embedded by any more are deleted at the end of a pass. A search compares the query
 * with the lists' centroids, scores the probed lists' packed vectors in JavaScript, and answers the best chunks'
 * sequence numbers: their exact scores, and whether they still exist and pass the filters, are the chunk rows'
 * (search.repository.ts).
 *
 * The tree lives in the store's memory, read once from vector_nodes and vector_sums, and changes only in the
 * upkeep's transactions; a failed one drops it, to be read again as committed.
 *
 * Hand-written: the index layout is ours (docs/benchmarks/corpus.md, stops 56-57, for the measurements behind it):
 * on PGlite's one thread an HNSW insert cost ~0.45 ms a 100-d vector, a list's ~0.06 ms of JavaScript in the upkeep.
 */
import { decodeInt4 } from '../binary.js';
import { LargestK } from '../largest-k.js';
import type { SqlDatabase, SqlExecutor } from '../sql.js';
import { packedStride, packVectors } from './layout.js';
import { LIST_CACHE_BYTES, ListCache } from './list-cache.js';
import { PackedScorer } from './packed-dot.js';
import { ListTree, normalizeAt, splitInTwo, type TreeNode } from './lists.js';

/** A list is split in two past this many vectors (bench:vector-lists --grow 256: recall and search time). */
export const MAX_LIST_SIZE = 256;
/**
 * Lists compared with the query at least: 96 lists found 0.936-0.949 of the exact top 50 files of SciFact's test
 * queries at 100,000 synthetic files (309,053 vectors in 2,305 lists) and 0.815 on a real /usr/share, where the HNSW
 * graph before them found 0.948 and 0.788 (`npm run bench:vector-lists -- DIR --grow 256 --beam 8 --probes 96`).
 */
export const FIRST_PROBES = 96;
/** ... and at least this share of a model's lists, so that recall holds as lists multiply (1M files: ~23,000). */
export const PROBE_SHARE = 1 / 24;
/** Nodes kept a level on the way down the tree to a vector's list (--beam 8). */
const ASSIGN_BEAM = 8;
/**
 * Bytes of a block row's vectors and sequence numbers: a row stays within a page (8 KB), so it is read without a
 * second lookup, and a pack rewrites at most this much of a list.
 */
const BLOCK_BYTES = 7000;
/** Serialises a pack against the writes of chunks on PostgreSQL (an arbitrary constant key; see holdTail). */
const TAIL_LOCK_KEY = 7_100_310_422;
/** The last sequence number a chunk was given (0 before the first): the tail's upper end. */
const LAST_SEQ = '(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM chunks_seq)';
/** Bytes of blocks rewritten after which a long upkeep pass vacuums on PGlite (see maintain). */
const VACUUM_AFTER_BYTES = 8 * 1024 * 1024;

/** Entries a block of vectors of `dim` holds. */
export const blockEntries = (dim: number): number => Math.max(1, Math.floor(BLOCK_BYTES / (8 + packedStride(dim))));

interface Lists {
  tree: ListTree;
  /** Entries a list holds, the entries of deleted chunks included. Every block of a list but its last is full. */
  sizes: number[];
}

export interface VectorListsOptions {
  /** Split a list past this many vectors (tests make it small). */
  maxListSize?: number;
  /** Lists a search compares at least. */
  firstProbes?: number;
  /** Bytes of lists read by searches kept for the next ones (list-cache.ts; 0: none, as on a server). */
  cacheBytes?: number;
}

/** What one maintenance call did. */
export interface VectorUpkeep {
  /** Vectors of the tail packed into lists. */
  packed: number;
  /** Lists split in two (or rewritten without their deleted chunks' entries). */
  split: number;
  /** Whether more is left to do (another call would find work). */
  more: boolean;
}

/** The entries of a search's probed lists, each scored by its packed vector. */
export interface ListCandidates {
  /** Entries scored. */
  scored: number;
  /** Lists probed. */
  probes: number;
  /** Whether every list was probed. */
  everyList: boolean;
  /**
   * Sequence numbers of the best `keep` entries (some may be of chunks deleted since): a search that asks for more
   * of the same lists takes them from the scores at hand instead of reading the blocks again.
   */
  best(keep: number): number[];
}

const key = (model: string, dim: number): string => `${dim}\u0000${model}`;

/** Float32s as little-endian bytes (a list's sum in vector_sums), and back. */
function toBytes(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}
function fromBytes(bytes: Uint8Array, dim: number): Float32Array {
  if (bytes.length !== dim * 4) throw new Error(`a list's sum of ${bytes.length} bytes for ${dim} dimensions`);
  return new Float32Array(ownBuffer(bytes));
}

/** A block's sequence numbers (float64, little-endian: exact below 2^53). */
function seqsOf(bytes: Uint8Array): Float64Array {
  return new Float64Array(ownBuffer(bytes));
}

/** The bytes copied into a buffer of their own (a Buffer's slice() is a view, often of a shared pool). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy.buffer;
}

/** Byte arrays end to end, in a buffer of their own. */
function joined(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Rows to write in one statement: their bytes laid end to end in one parameter, cut in SQL. */
class RowBytes {
  readonly parts: Uint8Array[] = [];
  readonly lengths: number[] = [];
  add(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.lengths.push(bytes.length);
  }
  joined(): Uint8Array {
    return Buffer.concat(this.parts);
  }
  /** 1-based offsets for substring(). */
  offsets(): number[] {
    let at = 1;
    return this.lengths.map((n) => ((at += n), at - n));
  }
}

/** Block rows to write in one statement (writeBlocks): lists' entries cut into blocks of blockEntries(dim). */
class BlockRows {
  readonly lists: number[] = [];
  readonly blocks: number[] = [];
  readonly seqs = new RowBytes();
  readonly vecs = new RowBytes();
  constructor(readonly dim: number) {}

  /** A list's entries (sequence numbers as float64 bytes, vectors packed) as its blocks from block `first` on. */
  add(list: number, first: number, seqBytes: Uint8Array, vecBytes: Uint8Array): void {
    const perBlock = blockEntries(this.dim);
    const stride = packedStride(this.dim);
    const entries = seqBytes.length / 8;
    for (let at = 0, block = first; at < entries; at += perBlock, block++) {
      const end = Math.min(entries, at + perBlock);
      this.lists.push(list);
      this.blocks.push(block);
      this.seqs.add(seqBytes.subarray(at * 8, end * 8));
      this.vecs.add(vecBytes.subarray(at * stride, end * stride));
    }
  }
}

/**
 * The blocks ($3[i], $4[i]) (list, block) of a model's lists: one index probe each. A join of the pairs with
 * vector_blocks was planned, without the statistics PGlite never gathers by itself, as a hash of every block of the
 * model (rows=1 estimated for the model): each pack read the whole index, 1.3 s at 4,740 lists, and a bulk run's
 * vector upkeep grew with the collection (0.8 → 4.6 ms a file from 14,000 to 143,000 files). The LIMIT keeps the
 * lateral subquery a probe of its own.
 */
export const lastBlocksSql = (vecs: string): string =>
  `SELECT int4send(u.list), b.seqs, ${vecs} FROM unnest($3::integer[], $4::integer[]) AS u (list, block)
   CROSS JOIN LATERAL (SELECT b.seqs, b.vecs FROM vector_blocks b
                       WHERE b.model = $1 AND b.dim = $2 AND b.list = u.list AND b.block = u.block LIMIT 1) AS b`;

/** Sequence numbers as a block stores them. */
const seqBytesOf = (seqs: readonly number[]): Uint8Array => new Uint8Array(new Float64Array(seqs).buffer);

/**
 * On PostgreSQL, a write of chunk rows holds this until it commits, and a pack takes it exclusively: so a pack sees
 * every sequence number handed out before it as committed or rolled back, and never moves its watermark past a
 * chunk still being written. PGlite runs one transaction at a time: nothing to hold.
 */
export async function holdTail(tx: SqlExecutor, engine: SqlDatabase['engine']): Promise<void> {
  if (engine === 'postgres') await tx.query('SELECT pg_advisory_xact_lock_shared($1)', [TAIL_LOCK_KEY]);
}

export class VectorLists {
  maxListSize: number;
  firstProbes: number;
  readonly #lists = new Map<string, Promise<Lists>>();
  /** Bytes of blocks written since the last VACUUM (PGlite). */
  #rewritten = 0;
  readonly #cache: ListCache;

  constructor(options: VectorListsOptions = {}) {
    this.maxListSize = options.maxListSize ?? MAX_LIST_SIZE;
    this.firstProbes = options.firstProbes ?? FIRST_PROBES;
    this.#cache = new ListCache(options.cacheBytes ?? 0);
  }

  /** Bytes of lists kept for searches (list-cache.ts). */
  get cachedBytes(): number {
    return this.#cache.bytes;
  }

  /** Lists a search probes first: FIRST_PROBES, or PROBE_SHARE of the lists when that is more. */
  firstProbesOf(lists: number): number {
    return Math.max(this.firstProbes, Math.ceil(lists * PROBE_SHARE));
  }

  /** The packed watermark: chunks past it are the tail, compared exactly by a search. */
  async packed(tx: SqlExecutor): Promise<number> {
    const { rows } = await tx.query<{ packed: string | number }>('SELECT packed FROM vector_tail', [], { prepare: true });
    return Number(rows[0]?.packed ?? 0);
  }

  /** Chunks written past the watermark, as far as the sequence says (deleted ones and rolled-back numbers too). */
  async unpacked(db: SqlExecutor): Promise<number> {
    const { rows } = await db.query<{ n: string | number }>(
      `SELECT greatest(0, ${LAST_SEQ} - packed) AS n FROM vector_tail`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * The entries of the `probes` lists nearest `query` (unit length or not; 0 probes: firstProbesOf the lists), each
   * scored by its packed vector; none before the model's first pack.
   */
  async candidates(tx: SqlExecutor, model: string, dim: number, query: Float32Array, probes: number): Promise<ListCandidates> {
    const lists = await this.#read(tx, model, dim);
    const count = lists.tree.count;
    if (count === 0) return { scored: 0, probes: 0, everyList: true, best: () => [] };
    const unit = Float32Array.from(query);
    normalizeAt(unit, 0, dim);
    const probed = lists.tree.nearestLists(unit, probes > 0 ? probes : this.firstProbesOf(count));
    // Sized by the entries this process knows the lists hold; grown should the blocks hold more (another writer).
    let scores = new Float32Array(probed.reduce((n, list) => n + (lists.sizes[list] ?? 0), 0));
    let seqs = new Float64Array(scores.length);
    let scored = 0;
    const scorer = new PackedScorer(unit, dim);
    /** Room for `n` more entries: where they go (the arrays grown when the lists hold more than counted). */
    const room = (n: number): number => {
      if (scored + n > scores.length) {
        const capacity = 2 * (scored + n);
        scores = grown(scores, new Float32Array(capacity));
        seqs = grown(seqs, new Float64Array(capacity));
      }
      scored += n;
      return scored - n;
    };
    const k = key(model, dim);
    const caching = this.#cache.budget > 0;
    const missing: number[] = [];
    for (const list of probed) {
      const kept = caching ? this.#cache.get(k, list) : undefined;
      if (!kept) {
        missing.push(list);
        continue;
      }
      const at = room(kept.seqs.length);
      scorer.score(kept.vecs, scores, at);
      seqs.set(kept.seqs, at);
    }
    if (missing.length === 0) return this.#found(scored, scores, seqs, probed.length, count);
    // The lists not kept, read (a list's blocks, in any order, are the list: kept whole when caching).
    const read = new Map<number, { seqs: Uint8Array[]; vecs: Uint8Array[] }>();
    await tx.readBytes(
      `SELECT seqs, ${tx.bytesColumn('vecs')}, list FROM vector_blocks WHERE model = $1 AND dim = $2 AND list = ANY($3::integer[])`,
      [model, dim, missing],
      (rows) => {
        for (const [seqBytes, vecBytes, listBytes] of rows) {
          const n = (seqBytes?.length ?? 0) / 8;
          if (n === 0 || !vecBytes) continue;
          const at = room(n);
          scorer.score(vecBytes, scores, at);
          const view = new DataView(seqBytes!.buffer, seqBytes!.byteOffset, seqBytes!.byteLength);
          for (let i = 0; i < n; i++) seqs[at + i] = view.getFloat64(i * 8, true);
          if (!caching) continue;
          // The rows are views on a buffer the engine reuses: copied to be kept.
          const list = decodeInt4(listBytes ?? null);
          let parts = read.get(list);
          if (!parts) read.set(list, (parts = { seqs: [], vecs: [] }));
          parts.seqs.push(seqBytes!.slice());
          parts.vecs.push(vecBytes.slice());
        }
      },
    );
    for (const [list, parts] of read) this.#cache.set(k, list, { seqs: new Float64Array(joined(parts.seqs).buffer), vecs: joined(parts.vecs) });
    return this.#found(scored, scores, seqs, probed.length, count);
  }

  /** The candidates of a search's probed lists, their scores at hand. */
  #found(scored: number, scores: Float32Array, seqs: Float64Array, probes: number, count: number): ListCandidates {
    const best = (keep: number): number[] => {
      const top = new LargestK(keep);
      for (let i = 0; i < scored; i++) top.push(scores[i]!, seqs[i]!);
      return top.values();
    };
    return { scored, probes, everyList: probes >= count, best };
  }

  /**
   * One step of upkeep, one short transaction: a list past its bound split in two, or else up to `batch` vectors
   * of the tail packed into their lists. Answers what it did.
   */
  async maintain(db: SqlDatabase, batch = 1000): Promise<VectorUpkeep> {
    // Any step may change blocks: the lists kept for searches go, before it and after it (list-cache.ts).
    this.#cache.clear();
    try {
      return await this.#maintain(db, batch);
    } finally {
      this.#cache.clear();
    }
  }

  async #maintain(db: SqlDatabase, batch: number): Promise<VectorUpkeep> {
    const full = await this.#overfull();
    if (full) {
      this.#rewritten += await this.#guarded(full.key, () => this.#split(db, full.model, full.dim, full.lists, full.list));
      return { packed: 0, split: 1, more: true };
    }
    const packed = await this.#pack(db, batch);
    const more = packed >= batch || (await this.#overfull()) !== null;
    if (!more) this.#rewritten += await this.#dropUnused(db);
    if (db.engine === 'pglite' && ((!more && this.#rewritten > 0) || this.#rewritten >= VACUUM_AFTER_BYTES)) {
      // A pack rewrites lists' last blocks and a split whole lists: dead rows PGlite never vacuums by itself (no
      // autovacuum). Vacuumed once a pass is done (or a long one has written this much), their space is reused by
      // the next writes: 1,083 Debian files packed 1,000 vectors a step left 5.9 MB for 1.1 MB live without it.
      await db.exec('VACUUM vector_blocks');
      this.#rewritten = 0;
    }
    return { packed, split: 0, more };
  }

  /**
   * Deletes the lists of every model no indexed file is embedded by any more (the model was changed and every file
   * embedded again): their blocks would otherwise stay on disk for good. A file written by such a model meanwhile
   * is in the tail, and its model's next pack starts a new tree. Answers the bytes of blocks deleted.
   */
  async #dropUnused(db: SqlDatabase): Promise<number> {
    // One root a model; a model's files found through files_embedding_model_idx (sql/0011).
    const { rows } = await db.query<{ model: string; dim: number; bytes: string | number }>(
      `SELECT n.model, n.dim::integer AS dim,
              (SELECT coalesce(sum(octet_length(b.seqs) + octet_length(b.vecs)), 0) FROM vector_blocks b
                WHERE b.model = n.model AND b.dim = n.dim) AS bytes
       FROM vector_nodes n
       WHERE n.node = 0 AND NOT EXISTS (SELECT 1 FROM files f WHERE f.status = 'indexed' AND f.embedding_model = n.model)`,
    );
    let dropped = 0;
    for (const { model, dim, bytes } of rows) {
      await db.transaction(async (tx) => {
        for (const table of ['vector_blocks', 'vector_sums', 'vector_nodes']) {
          await tx.query(`DELETE FROM ${table} WHERE model = $1 AND dim = $2`, [model, dim]);
        }
      });
      this.#lists.delete(key(model, dim));
      dropped += Math.max(1, Number(bytes));
    }
    return dropped;
  }

  /** A list past its bound, of the models read so far; null when there is none. */
  async #overfull(): Promise<{ key: string; model: string; dim: number; lists: Lists; list: number } | null> {
    for (const [k, pending] of this.#lists) {
      const lists = await pending.catch(() => null);
      if (!lists) continue;
      const list = lists.sizes.findIndex((size) => size > this.maxListSize);
      if (list < 0) continue;
      const at = k.indexOf('\u0000');
      return { key: k, model: k.slice(at + 1), dim: Number(k.slice(0, at)), lists, list };
    }
    return null;
  }

  /** Drops what is kept in memory: read again when next needed (tests; after a failed upkeep step). */
  forget(): void {
    this.#lists.clear();
    this.#cache.clear();
  }

  #read(tx: SqlExecutor, model: string, dim: number): Promise<Lists> {
    const k = key(model, dim);
    let pending = this.#lists.get(k);
    if (!pending) {
      pending = readLists(tx, model, dim);
      this.#lists.set(k, pending);
      pending.catch(() => this.#lists.delete(k)); // read again next time
    }
    return pending;
  }

  /** Runs an upkeep step that changes the tree in memory as it goes: if it fails, the tree is read again. */
  async #guarded<T>(k: string | null, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (k === null) this.#lists.clear();
      else this.#lists.delete(k);
      throw err;
    }
  }

  /** Packs up to `batch` vectors of the tail into their lists; answers how many. */
  async #pack(db: SqlDatabase, batch: number): Promise<number> {
    return this.#guarded(null, () =>
      db.transaction(async (tx) => {
        if (db.engine === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [TAIL_LOCK_KEY]);
        const { rows: state } = await tx.query<{ packed: string | number; hi: string | number }>(
          `SELECT packed, ${LAST_SEQ} AS hi FROM vector_tail FOR UPDATE`,
        );
        const from = Number(state[0]?.packed ?? 0);
        const hi = Number(state[0]?.hi ?? 0);
        if (hi <= from) return 0;
        const tail = await tx.queryBytes(
          `SELECT int8send(seq), textsend(model), int2send(dim), ${tx.bytesColumn('vector_send(embedding)')}
           FROM chunks WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`,
          [from, hi, batch],
        );
        const groups = new Map<string, { model: string; dim: number; seqs: number[]; vectors: Float32Array[] }>();
        let last = from;
        for (const [seqBytes, modelBytes, dimBytes, vecBytes] of tail) {
          const seq = Number(new DataView(seqBytes!.buffer, seqBytes!.byteOffset, 8).getBigInt64(0));
          const model = Buffer.from(modelBytes!.buffer, modelBytes!.byteOffset, modelBytes!.byteLength).toString('utf8');
          const dim = new DataView(dimBytes!.buffer, dimBytes!.byteOffset, 2).getInt16(0);
          const vec = new DataView(vecBytes!.buffer, vecBytes!.byteOffset, vecBytes!.byteLength);
          const vector = new Float32Array(dim);
          for (let d = 0; d < dim; d++) vector[d] = vec.getFloat32(4 + d * 4);
          normalizeAt(vector, 0, dim);
          const k = key(model, dim);
          let group = groups.get(k);
          if (!group) groups.set(k, (group = { model, dim, seqs: [], vectors: [] }));
          group.seqs.push(seq);
          group.vectors.push(vector);
          last = seq;
        }
        for (const group of groups.values()) await this.#append(tx, group.model, group.dim, group.seqs, group.vectors);
        // Fewer than asked for: the tail is done up to `hi` (numbers past the last row were rolled back or deleted).
        const watermark = tail.length < batch ? hi : last;
        await tx.query('UPDATE vector_tail SET packed = $1', [watermark]);
        return tail.length;
      }),
    );
  }

  /** Appends vectors (unit length) to their lists' last blocks, in `tx`. */
  async #append(tx: SqlExecutor, model: string, dim: number, seqs: readonly number[], vectors: readonly Float32Array[]): Promise<void> {
    const lists = await this.#read(tx, model, dim);
    const tree = lists.tree;
    const newTree = tree.count === 0;
    const byList = new Map<number, number[]>();
    vectors.forEach((vector, i) => {
      let list: number;
      if (tree.count === 0) list = tree.start(vector);
      else {
        list = tree.assign(vector, ASSIGN_BEAM);
        tree.join(list, vector);
      }
      let members = byList.get(list);
      if (!members) byList.set(list, (members = []));
      members.push(i);
    });
    const perBlock = blockEntries(dim);
    const touched = [...byList.keys()];
    // The last block of each touched list that has one and is not full: its entries come first in the new rows.
    const partial = touched.filter((list) => (lists.sizes[list] ?? 0) % perBlock !== 0);
    const lastBlocks = new Map<number, { seqs: Uint8Array; vecs: Uint8Array }>();
    if (partial.length > 0) {
      const rows = await tx.queryBytes(lastBlocksSql(tx.bytesColumn('b.vecs')), [
        model,
        dim,
        partial,
        partial.map((list) => Math.floor((lists.sizes[list] ?? 0) / perBlock)),
      ]);
      for (const [listBytes, seqBytes, vecBytes] of rows) {
        const list = new DataView(listBytes!.buffer, listBytes!.byteOffset, 4).getInt32(0);
        lastBlocks.set(list, { seqs: new Uint8Array(ownBuffer(seqBytes!)), vecs: new Uint8Array(ownBuffer(vecBytes!)) });
      }
    }
    const rows = new BlockRows(dim);
    const grown = new Map<number, number>();
    for (const [list, members] of byList) {
      const size = lists.sizes[list] ?? 0;
      const old = lastBlocks.get(list);
      if (size % perBlock !== 0 && !old) throw new Error(`vector list ${list} of ${model}: its last block is missing`);
      const packed = packVectors(concat(members.map((i) => vectors[i]!), dim), dim);
      const allSeqs = Buffer.concat([old?.seqs ?? new Uint8Array(0), seqBytesOf(members.map((i) => seqs[i]!))]);
      const allVecs = Buffer.concat([old?.vecs ?? new Uint8Array(0), packed]);
      rows.add(list, Math.floor(size / perBlock), allSeqs, allVecs);
      grown.set(list, members.length);
    }
    this.#rewritten += await writeBlocks(tx, model, rows);
    if (newTree) {
      // Another process may have written it first (two services on one server): the same root either way.
      await tx.query('INSERT INTO vector_nodes (model, dim, node, parent, child, list) VALUES ($1, $2, 0, -1, -1, 0) ON CONFLICT DO NOTHING', [model, dim]);
    }
    await saveSums(tx, model, dim, tree, touched);
    for (const [list, n] of grown) lists.sizes[list] = (lists.sizes[list] ?? 0) + n;
  }

  /**
   * Splits `list` of a model in two, in one transaction: its entries read, those of deleted chunks dropped, the
   * rest split by spherical 2-means over their packed vectors and written as two lists' blocks. Few left: the list
   * is only rewritten without the dropped ones.
   */
  async #split(db: SqlDatabase, model: string, dim: number, lists: Lists, list: number): Promise<number> {
    const stride = packedStride(dim);
    const applied = await db.transaction(async (tx) => {
      const rows = await tx.queryBytes(
        `SELECT seqs, ${tx.bytesColumn('vecs')} FROM vector_blocks WHERE model = $1 AND dim = $2 AND list = $3 ORDER BY block`,
        [model, dim, list],
      );
      const seqs = seqsOf(Buffer.concat(rows.map((r) => r[0]!)));
      const vecs = Buffer.concat(rows.map((r) => r[1]!));
      const { rows: alive } = await tx.query<{ seq: string | number }>('SELECT seq FROM chunks WHERE seq = ANY($1::bigint[])', [Array.from(seqs)], { prepare: true });
      const live = new Set(alive.map((r) => Number(r.seq)));
      const kept = [...seqs.keys()].filter((i) => live.has(seqs[i]!));
      const entry = (i: number): Uint8Array => vecs.subarray(i * stride, (i + 1) * stride);
      await tx.query('DELETE FROM vector_blocks WHERE model = $1 AND dim = $2 AND list = $3', [model, dim, list]);
      const written = kept.length * (8 + stride);
      const blocks = new BlockRows(dim);
      const addList = (to: number, members: readonly number[]): void =>
        blocks.add(to, 0, seqBytesOf(members.map((i) => seqs[i]!)), Buffer.concat(members.map(entry)));
      if (kept.length <= this.maxListSize / 2 || kept.length < 2) {
        addList(list, kept);
        await writeBlocks(tx, model, blocks);
        return { sizes: [kept.length] as const, split: null, added: -1, written };
      }
      const vectors = unpack(Buffer.concat(kept.map(entry)), dim);
      for (let r = 0; r < kept.length; r++) normalizeAt(vectors, r * dim, dim);
      const split = splitInTwo(vectors, dim);
      const shape = lists.tree.shape();
      const [left, right] = [shape.length, shape.length + 1];
      const added = lists.tree.count;
      const sides = [0, 1].map((s) => kept.filter((_, r) => split.side[r] === s));
      addList(list, sides[0]!);
      addList(added, sides[1]!);
      await writeBlocks(tx, model, blocks);
      const node = shape.findIndex((n) => n.list === list);
      await tx.query('UPDATE vector_nodes SET child = $4, list = -1 WHERE model = $1 AND dim = $2 AND node = $3', [model, dim, node, left]);
      await tx.query('INSERT INTO vector_nodes (model, dim, node, parent, child, list) VALUES ($1, $2, $3, $5, -1, $6), ($1, $2, $4, $5, -1, $7)', [
        model,
        dim,
        left,
        right,
        node,
        list,
        added,
      ]);
      const sums = new RowBytes();
      sums.add(toBytes(split.sums[0]));
      sums.add(toBytes(split.sums[1]));
      await upsertSums(tx, model, dim, [list, added], sums);
      return { sizes: [sides[0]!.length, sides[1]!.length] as const, split, added, written };
    });
    if (applied.split) {
      const added = lists.tree.split(list, applied.split);
      if (added !== applied.added) throw new Error(`vector lists of ${model}: split into ${added}, written as ${applied.added}`);
      lists.sizes[added] = applied.sizes[1]!;
    }
    lists.sizes[list] = applied.sizes[0];
    return applied.written;
  }
}

/** `into` (larger) with `from`'s values at its start. */
function grown<T extends Float32Array | Float64Array>(from: T, into: T): T {
  into.set(from);
  return into;
}

function concat(vectors: readonly Float32Array[], dim: number): Float32Array {
  const out = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => out.set(v, i * dim));
  return out;
}

/** Packed vectors (layout.ts) back to floats: each byte times its vector's scale. */
function unpack(bytes: Uint8Array, dim: number): Float32Array {
  const stride = packedStride(dim);
  const n = bytes.length / stride;
  const out = new Float32Array(n * dim);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ints = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let r = 0; r < n; r++) {
    const scale = view.getFloat32(r * stride, true);
    for (let d = 0; d < dim; d++) out[r * dim + d] = ints[r * stride + 4 + d]! * scale;
  }
  return out;
}

/** Inserts or replaces block rows: their bytes in two parameters, cut in SQL. Answers the bytes written. */
async function writeBlocks(tx: SqlExecutor, model: string, rows: BlockRows): Promise<number> {
  const { dim, lists, blocks, seqs, vecs } = rows;
  if (lists.length === 0) return 0;
  await tx.query(
    `INSERT INTO vector_blocks (model, dim, list, block, seqs, vecs)
     SELECT $1, $2, u.list, u.block, substring($5::bytea FROM u.s_at FOR u.s_len), substring($8::bytea FROM u.v_at FOR u.v_len)
     FROM unnest($3::integer[], $4::integer[], $6::integer[], $7::integer[], $9::integer[], $10::integer[]) AS u (list, block, s_at, s_len, v_at, v_len)
     ON CONFLICT (model, dim, list, block) DO UPDATE SET seqs = EXCLUDED.seqs, vecs = EXCLUDED.vecs`,
    [model, dim, [...lists], [...blocks], seqs.joined(), seqs.offsets(), seqs.lengths, vecs.joined(), vecs.offsets(), vecs.lengths],
    // Prepared: PGlite then sends the bytes as they are (its own query() hex-encodes a bytea, ~15× slower).
    { prepare: true },
  );
  return seqs.lengths.reduce((a, b) => a + b, 0) + vecs.lengths.reduce((a, b) => a + b, 0);
}

/** Saves the sums of `lists` as the tree has them. */
async function saveSums(tx: SqlExecutor, model: string, dim: number, tree: ListTree, lists: readonly number[]): Promise<void> {
  const sums = new RowBytes();
  for (const list of lists) sums.add(toBytes(tree.sum(list)));
  await upsertSums(tx, model, dim, lists, sums);
}

async function upsertSums(tx: SqlExecutor, model: string, dim: number, lists: readonly number[], sums: RowBytes): Promise<void> {
  if (lists.length === 0) return;
  await tx.query(
    `INSERT INTO vector_sums (model, dim, list, sum)
     SELECT $1, $2, u.list, substring($4::bytea FROM u.at FOR u.len)
     FROM unnest($3::integer[], $5::integer[], $6::integer[]) AS u (list, at, len)
     ON CONFLICT (model, dim, list) DO UPDATE SET sum = EXCLUDED.sum`,
    [model, dim, [...lists], sums.joined(), sums.offsets(), sums.lengths],
    { prepare: true },
  );
}

/** A model's lists as stored: its tree, each list's sum and size. */
async function readLists(tx: SqlExecutor, model: string, dim: number): Promise<Lists> {
  const nodes = (
    await tx.query<TreeNode>('SELECT node, parent, child, list FROM vector_nodes WHERE model = $1 AND dim = $2 ORDER BY node', [model, dim])
  ).rows;
  const sums = new Map<number, Float32Array>();
  for (const r of (await tx.query<{ list: number; sum: Uint8Array }>('SELECT list, sum FROM vector_sums WHERE model = $1 AND dim = $2', [model, dim])).rows) {
    sums.set(r.list, fromBytes(r.sum, dim));
  }
  const sizes: number[] = [];
  const counted = await tx.query<{ list: number; n: number }>(
    'SELECT list, (sum(octet_length(seqs)) / 8)::integer AS n FROM vector_blocks WHERE model = $1 AND dim = $2 GROUP BY list',
    [model, dim],
  );
  for (const r of counted.rows) sizes[r.list] = r.n;
  const tree = nodes.length === 0 ? new ListTree(dim) : ListTree.restore(dim, nodes, sums);
  for (let list = 0; list < tree.count; list++) sizes[list] ??= 0;
  return { tree, sizes };
}

const perDatabase = new WeakMap<SqlDatabase, VectorLists>();

/**
 * The vector lists of a database: one per database object, shared by its repositories (the searches that probe,
 * the upkeep that packs and splits), with a cache of lists on PGlite (list-cache.ts). `options` count only at the
 * first call for a database (tests).
 */
export function vectorListsOf(db: SqlDatabase, options?: VectorListsOptions): VectorLists {
  let lists = perDatabase.get(db);
  if (!lists) perDatabase.set(db, (lists = new VectorLists({ cacheBytes: db.engine === 'pglite' ? LIST_CACHE_BYTES : 0, ...options })));
  return lists;
}
