/**
 * The index's upkeep after writes, in the background: long texts' keyword indexes left unfinished are finished
 * (store/keyword/slices.ts), documents of the keyword index are sealed into blocks (a
 * large tail makes every search slower), the chunks written since the last pass are packed into the vector index's
 * lists (store/vectors/: a search compares its tail chunk by chunk), the blocks are compacted at the end of a run once the sealed range has
 * doubled (sealing in slices leaves many small blocks, and departed documents' postings), and planner statistics
 * are refreshed after a burst. PGlite runs one
 * statement at a time, so the work is cut into slices sized to take about `sliceMs` each, with a pause between
 * them in which waiting searches go first: no search ever waits behind upkeep for long. Hand-written scheduling:
 * it is ours (what to do, how much at once, when to yield), not a solved problem a library could take.
 */
import type { Logger } from '../logger.js';
import type { CompactionSlice, CompactionStart } from '../store/keyword/compaction.js';
import type { StoreApi } from '../store/store.js';

/** A background call this long held every search waiting for it past issue 13's bound: logged with its slice. */
const SLOW_SLICE_MS = 1_000;

export interface IndexUpkeepDeps {
  store: Pick<StoreApi, 'search'>;
  logger: Logger;
  /** Target time of one slice (default 150 ms: well under a second even when the machine is loaded). */
  sliceMs?: number;
  /** Pause between slices, for waiting searches (default 25 ms). */
  pauseMs?: number;
  /** How often to look for work while a run is going on or after a failed pass (default 5 s; 0: never). */
  checkEveryMs?: number;
  /** Unsealed documents worth sealing without being asked (default 256): a trickle waits for a run's end. */
  tailThreshold?: number;
  /** Chunks written since the vector index's last pack worth packing without being asked (default 1,000). */
  vectorTailThreshold?: number;
  /** Documents written since the last ANALYZE that make another worth it (default 1,000). */
  analyzeAfter?: number;
  /** Documents sealed since the last compaction that make the next one due, once the sealed range has doubled too. */
  compactAfter?: number;
}

/**
 * A seal's slice, in documents and in postings, each sized from its own rate: a slice's time is its postings'
 * (5–12 µs each), and a count of documents sized on small files ran long when larger ones followed: 1,338 ms in a
 * home directory's first run (stop 63), 18 s once on its tenth (docs/benchmarks/corpus.md, stop 64). The first is
 * small enough to stay short on a loaded machine before the first measurement sizes the next.
 */
const SEAL_SLICE = {
  docs: { first: 64, min: 16, max: 8192 },
  postings: { first: 16_384, min: 1024, max: 4_194_304 },
} as const;
/**
 * The same for compaction, in blocks (a block is one to 128 postings, which bounds the bytes a step reads) and in
 * postings (which bound its work: keyword/compaction.ts, CompactionSlice); each sized from its own rate.
 */
const COMPACT_SLICE = {
  blocks: { first: 1024, min: 64, max: 262_144 },
  postings: { first: 16_384, min: 1024, max: 4_194_304 },
} as const;
/**
 * The same for packing vectors into the vector index's lists, in vectors (~0.1 ms each on this kind of machine:
 * finding its list in JavaScript, reading its chunk row, rewriting its list's last block).
 */
const VECTOR_SLICE = { first: 256, min: 32, max: 16_384 } as const;
/** A tail of fewer chunks costs a search less than ~1 ms to compare exactly: left for the next run or a restart. */
const VECTOR_TAIL_THRESHOLD = 1000;

export interface UpkeepState {
  /** Whether a pass is running now. */
  busy: boolean;
  /** Documents sealed since start-up. */
  sealed: number;
  /** Tables whose statistics were refreshed since start-up (a table little changed since its last ANALYZE is left). */
  analyzed: number;
  /** Compactions of the keyword index finished since start-up. */
  compactions: number;
  /** Vectors packed into the vector index's lists since start-up. */
  packedVectors: number;
  /** Vector lists split in two since start-up. */
  vectorSplits: number;
  /** The longest single slice so far on the store's thread, in ms (the longest any search could wait behind upkeep). */
  longestSliceMs: number;
}

export class IndexUpkeep {
  readonly #deps: IndexUpkeepDeps;
  #sealSlice: { docs: number; postings: number } = { docs: SEAL_SLICE.docs.first, postings: SEAL_SLICE.postings.first };
  #compactSlice: CompactionSlice & { postings: number } = { blocks: COMPACT_SLICE.blocks.first, postings: COMPACT_SLICE.postings.first };
  #vectorSlice: number = VECTOR_SLICE.first;
  #running: Promise<void> | null = null;
  #again = false;
  #urgent = false;
  #written = 0;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Runs going on: their files are written all along, but say so (written()) only at their end. */
  #runs = 0;
  /** Whether the next periodic check may find work: at start (a restart's leftovers), after writes or a run's end, after a failed pass. */
  #due = true;
  readonly #state: UpkeepState = { busy: false, sealed: 0, analyzed: 0, compactions: 0, packedVectors: 0, vectorSplits: 0, longestSliceMs: 0 };

  constructor(deps: IndexUpkeepDeps) {
    this.#deps = deps;
    const every = deps.checkEveryMs ?? 5000;
    if (every > 0) {
      this.#timer = setInterval(() => this.check(), every);
      this.#timer.unref();
    }
  }

  get state(): UpkeepState {
    return { ...this.#state };
  }

  /**
   * `documents` files were written (indexed or removed). At the end of a run (`runEnded`) everything unsealed is
   * sealed; otherwise only a tail past the threshold is.
   */
  written(documents: number, runEnded: boolean): void {
    this.#written += documents;
    this.#due = true;
    if (runEnded || this.#written >= (this.#deps.tailThreshold ?? 256)) this.#start(runEnded);
  }

  /**
   * A run of any kind began (the service passes on index_run_started). While one goes on, the periodic check looks
   * for a tail worth sealing: a bulk run's documents are sealed as it goes, and the queue's runs never call written().
   */
  runStarted(): void {
    this.#runs++;
  }

  /** A run ended (index_run_completed): one more check may find its tail past the threshold. */
  runEnded(): void {
    this.#runs = Math.max(0, this.#runs - 1);
    this.#due = true;
  }

  /**
   * The periodic check: starts a pass if one may find work (a run going on, or something due since the last pass)
   * and says whether it did. At rest there is nothing to find, and the check leaves the database alone instead of
   * waking the store's thread every few seconds for a few statements.
   */
  check(): boolean {
    if (this.#runs === 0 && !this.#due) return false;
    this.#start(false);
    return true;
  }

  /** Resolves when no pass is running or due (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.idle();
  }

  #start(urgent: boolean): void {
    if (this.#closed) return;
    this.#urgent ||= urgent;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#due = false;
    this.#running = this.#pass()
      .catch((err: unknown) => {
        this.#due = true;
        this.#deps.logger.warn({ err }, 'index upkeep failed; it is tried again later');
      })
      .finally(() => {
        this.#running = null;
        this.#state.busy = false;
        if (this.#again && !this.#closed) {
          this.#again = false;
          this.#start(false);
        }
      });
  }

  async #pass(): Promise<void> {
    this.#state.busy = true;
    const { search } = this.#deps.store;
    const urgent = this.#urgent;
    this.#urgent = false;
    // A long text's keyword index left unfinished (a stop or a crash between its slices) is finished first, a
    // slice at a time; the indexer finishes its own writes, so this list is almost always empty.
    for (const fileId of await search.pendingKeywords()) {
      while (!this.#closed && !(await search.continueKeywords(fileId))) await pause(this.#deps.pauseMs ?? 25);
    }
    // A compaction left running (by a restart, or a pass cut short) goes first: a seal would void its copy.
    let compacted = await this.#compact('no');
    const threshold = urgent ? 1 : (this.#deps.tailThreshold ?? 256);
    if ((await search.unsealedKeywords()) >= threshold) {
      for (;;) {
        if (this.#closed) return;
        // The slice's own time on the store's thread: the call's round trip also counts its wait behind searches.
        // The target is also the slice's budget: a slice that runs slow (a loaded machine) stops early.
        const { sealed, postings, large, remaining, ms } = await search.sealKeywords(
          this.#sealSlice.docs,
          this.#deps.sliceMs ?? 150,
          this.#sealSlice.postings,
        );
        this.#state.sealed += sealed;
        // What a pass seals was written: while a run goes on (it says written() only at its end), this is what
        // brings its tables' statistics along (below). A home directory's first run lasts an hour, and its
        // searches were planned without any statistics until its end (stop 63: at 139,000 files, the typo
        // lexicon 52 against 27 CPU ms a search, the keyword statement 63 against 43, with them).
        this.#written += sealed;
        this.#state.longestSliceMs = Math.max(this.#state.longestSliceMs, ms);
        // Over a second, searches waited that long (issue 13's bound): what the slice held, for its cause (a seal of
        // 29.9 s on the Debian corpus once at stop 66, not reproduced: docs/benchmarks/corpus.md).
        if (ms > SLOW_SLICE_MS) {
          this.#deps.logger.warn({ ms: Math.round(ms), sealed, postings, large, remaining, bound: { ...this.#sealSlice } }, 'a keyword seal held the store over a second');
        }
        // A large document's slice is sized by its words, not by #sealSlice: its time says nothing of the rate.
        if (!large) this.#adapt(sealed, postings, remaining, ms);
        if (remaining === 0 || (sealed === 0 && !large)) break;
        await pause(this.#deps.pauseMs ?? 25);
      }
    }
    await this.#packVectors(urgent);
    // At the end of a run only: compacting a bulk run's blocks as it goes would copy them again at every doubling.
    compacted = (await this.#compact(urgent ? 'due' : 'no')) || compacted;
    // A compaction swaps in a new blocks table without statistics: analyzed here, a call of its own (in the swap's
    // call it made that call the longest of a compaction, ~830 ms in bench:search's stall run at 100k files).
    if (this.#written >= (this.#deps.analyzeAfter ?? 1000) || compacted) {
      this.#written = 0;
      for (let part = 0; !this.#closed; part++) {
        const done = await search.analyze(part);
        if (done === null) break;
        this.#state.longestSliceMs = Math.max(this.#state.longestSliceMs, done.ms);
        if (done.outcome === 'analyzed') {
          this.#state.analyzed++;
          await pause(this.#deps.pauseMs ?? 25);
        }
      }
    }
  }

  /** Packs the vector index's tail into its lists, slice after slice, when it has grown past the threshold. */
  async #packVectors(urgent: boolean): Promise<void> {
    const { search } = this.#deps.store;
    if ((await search.unpackedVectors()) < (urgent ? 1 : (this.#deps.vectorTailThreshold ?? VECTOR_TAIL_THRESHOLD))) return;
    for (;;) {
      if (this.#closed) return;
      const slice = this.#vectorSlice;
      const { packed, split, more, ms } = await search.maintainVectors(slice);
      this.#state.packedVectors += packed;
      this.#state.vectorSplits += split;
      this.#state.longestSliceMs = Math.max(this.#state.longestSliceMs, ms);
      // A full slice measures the rate (a split's step packs nothing and says nothing of it).
      if (packed === slice && ms > 0) this.#vectorSlice = nextSlice(packed, slice, ms, this.#deps.sliceMs ?? 150, VECTOR_SLICE);
      if (!more) return;
      await pause(this.#deps.pauseMs ?? 25);
    }
  }

  /** Runs compaction slices until it is done (or none runs, or none was due); true when one was swapped in. */
  async #compact(start: CompactionStart): Promise<boolean> {
    const { search } = this.#deps.store;
    const total = { read: 0, written: 0, dropped: 0 };
    for (let step = start; !this.#closed; step = 'no') {
      // As for sealing, the target is also the slice's budget: a slice that runs slow stops after its first quarter.
      const target = this.#deps.sliceMs ?? 150;
      const progress = await search.compactKeywords(this.#compactSlice, step, this.#deps.compactAfter, target);
      const { ms } = progress; // the store's own time: a round trip would count waiting behind searches too
      this.#state.longestSliceMs = Math.max(this.#state.longestSliceMs, ms);
      if (progress.state === 'idle') return false;
      total.read += progress.blocksRead;
      total.written += progress.blocksWritten;
      total.dropped += progress.deadDropped;
      if (progress.state === 'done') {
        this.#state.compactions++;
        this.#deps.logger.info(total, 'keyword index compacted');
        return true;
      }
      this.#compactSlice = {
        blocks: nextSlice(progress.blocksRead, this.#compactSlice.blocks, ms, target, COMPACT_SLICE.blocks),
        postings: nextSlice(progress.postingsRead, this.#compactSlice.postings, ms, target, COMPACT_SLICE.postings),
      };
      await pause(this.#deps.pauseMs ?? 25);
    }
    return false; // closed meanwhile
  }

  /** Sizes the next seal's slice so that it takes about the target time, by documents and by postings. */
  #adapt(sealed: number, postings: number, remaining: number, ms: number): void {
    // A short last slice says nothing of the rate; one the clock or its postings stopped early does.
    if (sealed === 0 || (sealed < this.#sealSlice.docs && remaining === 0)) return;
    const target = this.#deps.sliceMs ?? 150;
    this.#sealSlice = {
      docs: nextSlice(sealed, this.#sealSlice.docs, ms, target, SEAL_SLICE.docs),
      // Documents without words (emptied files) move no postings and say nothing of their rate.
      postings: postings > 0 ? nextSlice(postings, this.#sealSlice.postings, ms, target, SEAL_SLICE.postings) : this.#sealSlice.postings,
    };
  }
}

/**
 * The next slice of any upkeep step: `done` units took `ms`, so about `target` ms' worth of them (twice `now` when
 * the clock read 0), at most twice `now` (one fast slice proves little), within `bounds`.
 */
function nextSlice(done: number, now: number, ms: number, target: number, bounds: { min: number; max: number }): number {
  const next = ms > 0 ? Math.round((done * target) / ms) : now * 2;
  return Math.min(bounds.max, Math.max(bounds.min, Math.min(next, now * 2)));
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
