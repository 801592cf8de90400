import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import type { SqlResult, SqlValue } from '../sql.js';

/** Statements kept prepared at once; the least recently used one is closed beyond this. */
export const PREPARED_STATEMENT_CAPACITY = 32;
/** The binary reply buffer's first size, and the size beyond which it is dropped after use. */
const REPLY_BUFFER_START = 1 << 20;
const REPLY_BUFFER_KEPT = 16 << 20;

interface Prepared {
  name: string;
  /** Type OIDs of the parameters, as the server inferred them at Parse: they pick each value's serializer. */
  paramTypes: number[];
}

/**
 * Named prepared statements on PGlite, for the statements a caller runs over and over (the search queries).
 *
 * PGlite's query() sends every statement unnamed: PostgreSQL parses, analyses and plans it again each time, which
 * in WASM is a fifth of a search query (1 ms of 5 for the BM25 statement at 5k files). Here a statement is parsed
 * once per text, and each run sends Bind/Describe/Execute/Sync in one buffer. Results are decoded by PGlite's own
 * parsers, so rows look exactly as query() returns them.
 *
 * The caller must hold PGlite's locks (see openPglite): these calls bypass PGlite's query() and its mutexes.
 */
export class PgliteStatements {
  /** Text → statement, in least-recently-used order (a Map keeps insertion order; a hit re-inserts). */
  readonly #prepared = new Map<string, Prepared>();
  #nextId = 0;
  /** Where binary replies are copied out of PGlite's memory (readBytes reuses it). */
  #reply = new Uint8Array(REPLY_BUFFER_START);

  constructor(
    private readonly db: PGlite,
    private readonly capacity = PREPARED_STATEMENT_CAPACITY,
  ) {}

  /** How many statements are prepared now (for tests). */
  get size(): number {
    return this.#prepared.size;
  }

  async run<Row>(text: string, params: readonly SqlValue[]): Promise<SqlResult<Row>> {
    const statement = await this.#statement(text);
    const values = this.#values(statement, params);
    const messages = await this.db.execProtocolStream(
      Buffer.concat([
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.describe({ type: 'P' }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const result: Results<Row> | undefined = parse.parseResults(messages, this.db.parsers)[0] as Results<Row> | undefined;
    return { rows: result?.rows ?? [], affectedRows: result?.affectedRows ?? 0 };
  }

  /**
   * Runs a statement in the binary result format and answers each row's fields as raw bytes, in a buffer of
   * their own. PGlite's own bind serializer cannot ask for binary results (it writes a format count without the
   * format), and its parser reads every field as UTF-8 text, so this builds the Bind and reads the answer's
   * messages itself.
   */
  async runBytes(text: string, params: readonly SqlValue[]): Promise<(Uint8Array | null)[][]> {
    const used = await this.#fill(text, params);
    return dataRows(this.#reply.slice(0, used));
  }

  /**
   * runBytes() for a reader that keeps nothing of the bytes: `read` gets views on a reply buffer this instance
   * reuses, valid until it returns. A search's replies (2 MB of postings at 100k files) copied into a new buffer
   * each time made the store thread's small heap collect in full every few searches, external memory counting
   * towards its limit: 43 full collections in 300 keyword searches at 25k files against 11 with the buffer reused
   * (bench:search-profile, --trace-gc). The caller must hold PGlite's query lock until `read` returns, as
   * pglite.ts does, so no other statement refills the buffer meanwhile.
   */
  async readBytes<T>(text: string, params: readonly SqlValue[], read: (rows: (Uint8Array | null)[][]) => T): Promise<T> {
    const used = await this.#fill(text, params);
    try {
      return read(dataRows(this.#reply.subarray(0, used)));
    } finally {
      // One huge reply (a common word at a million files) is not kept for the life of the thread.
      if (this.#reply.byteLength > REPLY_BUFFER_KEPT) this.#reply = new Uint8Array(REPLY_BUFFER_START);
    }
  }

  /** Runs the statement and copies its reply into #reply (grown as needed); answers the reply's length. */
  async #fill(text: string, params: readonly SqlValue[]): Promise<number> {
    const statement = await this.#statement(text);
    let used = 0;
    // execProtocolRaw would also run PGlite's message parser over the reply (every field through a TextDecoder: a
    // tenth of a keyword search at 100k files); the raw stream hands over the bytes alone, as views on PGlite's
    // memory that are gone after the callback.
    await this.db.execProtocolRawStream(
      Buffer.concat([binaryResultBind(statement.name, this.#values(statement, params)), protocol.serialize.execute({}), protocol.serialize.sync()]),
      {
        syncToFs: false,
        onRawData: (chunk) => {
          if (used + chunk.byteLength > this.#reply.byteLength) {
            const grown = new Uint8Array(Math.max(2 * this.#reply.byteLength, used + chunk.byteLength));
            grown.set(this.#reply.subarray(0, used));
            this.#reply = grown;
          }
          this.#reply.set(chunk, used);
          used += chunk.byteLength;
        },
      },
    );
    // The raw stream leaves its callback installed (PGlite 0.5.14): query() and exec() install their own first, but
    // execProtocol() (close() uses it) would hand its replies to ours. A Sync through execProtocolStream, which ends
    // by clearing the callback, puts PGlite back as it was.
    await this.db.execProtocolStream(protocol.serialize.sync(), { syncToFs: false });
    return used;
  }

  /**
   * The parameters as text, by the type PostgreSQL inferred for each; a Uint8Array as it is, which Bind sends in
   * the binary format (the type's receive function reads it: raw bytes for bytea, pgvector's packed floats for a
   * vector), as node-postgres does with a Buffer.
   */
  #values(statement: Prepared, params: readonly SqlValue[]): (string | Uint8Array | null)[] {
    if (params.length !== statement.paramTypes.length) {
      throw new RangeError(`statement takes ${statement.paramTypes.length} parameters, got ${params.length}`);
    }
    return params.map((value, i) => {
      if (value === null || value === undefined) return null;
      if (value instanceof Uint8Array) return value;
      const serializer = this.db.serializers[statement.paramTypes[i] ?? 0];
      return serializer ? (serializer(value) as string) : String(value);
    });
  }

  async #statement(text: string): Promise<Prepared> {
    const known = this.#prepared.get(text);
    if (known) {
      this.#prepared.delete(text);
      this.#prepared.set(text, known);
      return known;
    }
    const name = `filesift_${this.#nextId++}`;
    // Parse errors (a bad statement) throw here, after the Sync: nothing is cached and the session stays usable.
    const described = await this.db.execProtocolStream(
      Buffer.concat([protocol.serialize.parse({ name, text }), protocol.serialize.describe({ type: 'S', name }), protocol.serialize.sync()]),
      { syncToFs: false },
    );
    const prepared: Prepared = { name, paramTypes: parse.parseDescribeStatementResults(described) };
    this.#prepared.set(text, prepared);
    if (this.#prepared.size > this.capacity) await this.#closeOldest();
    return prepared;
  }

  async #closeOldest(): Promise<void> {
    const [text, oldest] = this.#prepared.entries().next().value ?? [];
    if (text === undefined || !oldest) return;
    this.#prepared.delete(text);
    await this.db.execProtocolStream(Buffer.concat([protocol.serialize.close({ type: 'S', name: oldest.name }), protocol.serialize.sync()]), {
      syncToFs: false,
    });
  }
}

/**
 * A Bind message (protocol v3) with every result column in the binary format; parameters in text, a Uint8Array
 * in binary (one format code per parameter).
 */
function binaryResultBind(statement: string, values: readonly (string | Uint8Array | null)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`\0${statement}\0`), int16(values.length)];
  for (const value of values) parts.push(int16(value instanceof Uint8Array ? 1 : 0));
  parts.push(int16(values.length));
  for (const value of values) {
    if (value === null) {
      parts.push(int32(-1));
      continue;
    }
    const bytes = value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : Buffer.from(value, 'utf8');
    parts.push(int32(bytes.length), bytes);
  }
  parts.push(int16(1), int16(1)); // one result format code, applying to every column: binary
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([0x42]), int32(body.length + 4), body]);
}

function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

/** The DataRow fields of a reply, as views on it; an ErrorResponse is thrown with the server's message. */
function dataRows(reply: Uint8Array): (Uint8Array | null)[][] {
  const view = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
  const rows: (Uint8Array | null)[][] = [];
  let error: string | null = null;
  for (let at = 0; at + 5 <= reply.length; ) {
    const type = reply[at]!;
    const length = view.getInt32(at + 1);
    const body = at + 5;
    if (type === 0x44) {
      // 'D': field count, then each field's length (-1 for NULL) and bytes
      const count = view.getInt16(body);
      const row: (Uint8Array | null)[] = [];
      for (let i = 0, p = body + 2; i < count; i++) {
        const size = view.getInt32(p);
        p += 4;
        row.push(size < 0 ? null : reply.subarray(p, p + size));
        if (size > 0) p += size;
      }
      rows.push(row);
    } else if (type === 0x45) {
      // 'E': fields of (code byte, cstring) until a zero byte; 'M' is the message
      for (let p = body; p < at + 1 + length && reply[p] !== 0; ) {
        const code = reply[p]!;
        const end = reply.indexOf(0, p + 1);
        if (code === 0x4d) error = Buffer.from(reply.subarray(p + 1, end)).toString('utf8');
        p = end + 1;
      }
    }
    at += 1 + length;
  }
  if (error !== null) throw new Error(error);
  return rows;
}
