/**
 * The built-in embedder's memory, one copy per process (main thread side): its vocabulary index (src/lib/word-
 * index.ts, ~11 MB) and its table (static-table.ts, ~35 MB), in SharedArrayBuffers that every thread which needs
 * them is sent and uses as they are. Its holders are the pipeline pool (while it has threads: src/pipeline/pool.ts)
 * and a query lane (while its thread lives: src/models/query-embedder.ts). Each part is read when a holder first
 * asks for it and dropped when the last holder lets go, so both kinds of thread get the same copy, and an idle
 * service keeps none (a thread that still uses a dropped copy keeps it alive until it ends). Measured in README
 * "Memory": one table instead of one onnxruntime session's copy per thread that embeds.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { countSharedMemory } from '../../lib/thread-memory.js';
import { WordIndex, type SharedWordIndex } from '../../lib/word-index.js';
import { readStaticMeta } from './static.js';
import { StaticTable, type SharedStaticTable } from './static-table.js';

/** The built-in vocabulary's index, built once by the main thread: a thread adopts it instead of building its own. */
export interface SharedWords {
  /** The vocabulary file it indexes (what the thread's readers ask WordIndex.fromFile for). */
  file: string;
  index: SharedWordIndex;
}

/** A hold on one build's shared memory: ask for the parts when needed, release once no thread of yours needs them. */
export interface BuiltinHold {
  /** The vocabulary's index; null when it cannot be read (each thread then reads the file itself and says why). */
  words(): SharedWords | null;
  /** The embedder's table; null when it cannot be read (each thread then reads it itself and says why). */
  table(): SharedStaticTable | null;
  release(): void;
}

interface Entry {
  holders: number;
  /** undefined: not read yet; null: could not be. */
  words?: SharedWords | null;
  table?: SharedStaticTable | null;
}

const entries = new Map<string, Entry>();

/** Holds the shared memory of the built-in embedder in `dir` (read on demand, kept until released). */
export function holdBuiltin(dir: string): BuiltinHold {
  const key = path.resolve(dir);
  let entry = entries.get(key);
  if (!entry) entries.set(key, (entry = { holders: 0 }));
  entry.holders += 1;
  const held = entry;
  let released = false;
  return {
    words() {
      if (held.words === undefined) {
        const file = path.join(dir, 'vocab.txt');
        try {
          held.words = { file, index: new WordIndex(readFileSync(file, 'utf8')).shared() };
        } catch {
          held.words = null;
        }
      }
      return held.words;
    },
    table() {
      if (held.table === undefined) {
        const meta = readStaticMeta(dir);
        try {
          held.table = meta ? StaticTable.read(dir, meta.table, meta.vocabSize, meta.dimension).shared() : null;
        } catch {
          held.table = null;
        }
      }
      return held.table;
    },
    release() {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders === 0 && entries.get(key) === held) entries.delete(key);
    },
  };
}

/** Bytes of shared memory held now (the memory log's `shared` row: counted once, whichever threads use it). */
export function heldBuiltinBytes(): number {
  let bytes = 0;
  for (const entry of entries.values()) {
    if (entry.words) bytes += entry.words.index.codes.byteLength + entry.words.index.starts.byteLength + entry.words.index.table.byteLength;
    if (entry.table) bytes += entry.table.vectors.byteLength + entry.table.weights.byteLength;
  }
  return bytes;
}

countSharedMemory(heldBuiltinBytes);

/** Builds whose memory is held: by how many holders, and which parts were read (tests). */
export function builtinHolders(): Record<string, { holders: number; words: boolean; table: boolean }> {
  return Object.fromEntries([...entries].map(([dir, e]) => [dir, { holders: e.holders, words: Boolean(e.words), table: Boolean(e.table) }]));
}
