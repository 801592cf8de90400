import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import type { SqlResult, SqlValue } from '../sql.js';

/** Statements kept prepared at once; the least recently used one is closed beyond this. */
export const PREPARED_STATEMENT_CAPACITY = 32;

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
    if (params.length !== statement.paramTypes.length) {
      throw new RangeError(`statement takes ${statement.paramTypes.length} parameters, got ${params.length}`);
    }
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.db.serializers[statement.paramTypes[i] ?? 0];
      return serializer ? (serializer(value) as string) : String(value);
    });
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
