/**
 * What the watcher last saw of each file (size, mtime, device, inode), kept by folder: it tells an add from a
 * change or a no-op when a folder's watch names a file, pairs the unlink half of a rename (move-pairer.ts), and
 * lists a departed folder's files.
 *
 * It holds every accepted file of every watched tree (a large home directory: 300,000), for as long as the service
 * runs, so it is laid out for memory by hand: a Map of folders, each a Map from a file's name to a slot of four
 * Float64Array columns. A Map of whole paths to an object each, and a Set of paths by folder beside it, held the
 * path (often a concatenated string), the object and its four numbers boxed one by one: ~75 MB of the watcher
 * thread's heap for 162,000 files of a real home directory (docs/benchmarks/memory.md).
 */
import path from 'node:path';
import type { FileIdentity } from './move-pairer.js';

const FIRST_CAPACITY = 1024;
/**
 * V8 keeps a slice of 13 characters or more as a view of the whole string: a name cut from its path would keep the
 * path alive. A UTF-16 round trip copies it, losslessly for any string (a lone surrogate too).
 */
const SLICE_MIN = 13;

function ownCopy(name: string): string {
  return name.length < SLICE_MIN ? name : Buffer.from(name, 'utf16le').toString('utf16le');
}

export class StatCache {
  readonly #folders = new Map<string, Map<string, number>>();
  #size: Float64Array = new Float64Array(FIRST_CAPACITY);
  #mtimeMs: Float64Array = new Float64Array(FIRST_CAPACITY);
  #dev: Float64Array = new Float64Array(FIRST_CAPACITY);
  #ino: Float64Array = new Float64Array(FIRST_CAPACITY);
  /** Slots given back by delete(), reused before the columns grow. */
  readonly #free: number[] = [];
  #used = 0;
  #count = 0;

  /** Files held. */
  get size(): number {
    return this.#count;
  }

  has(file: string): boolean {
    return this.#slot(file) !== undefined;
  }

  get(file: string): FileIdentity | undefined {
    const slot = this.#slot(file);
    if (slot === undefined) return undefined;
    return { size: this.#size[slot]!, mtimeMs: this.#mtimeMs[slot]!, dev: this.#dev[slot]!, ino: this.#ino[slot]! };
  }

  /** Whether `file` is held and looked like `id` when last seen (a fs.Stats will do). */
  matches(file: string, id: FileIdentity): boolean {
    const slot = this.#slot(file);
    return slot !== undefined && this.#size[slot] === id.size && this.#mtimeMs[slot] === id.mtimeMs && this.#ino[slot] === id.ino && this.#dev[slot] === id.dev;
  }

  /** Holds what `file` looks like now (a fs.Stats will do: only its four numbers are kept). */
  set(file: string, id: FileIdentity): void {
    const [folder, name] = split(file);
    let names = this.#folders.get(folder);
    if (!names) this.#folders.set(folder, (names = new Map()));
    let slot = names.get(name);
    if (slot === undefined) {
      slot = this.#allocate();
      names.set(ownCopy(name), slot);
      this.#count++;
    }
    this.#size[slot] = id.size;
    this.#mtimeMs[slot] = id.mtimeMs;
    this.#dev[slot] = id.dev;
    this.#ino[slot] = id.ino;
  }

  delete(file: string): boolean {
    const [folder, name] = split(file);
    const names = this.#folders.get(folder);
    const slot = names?.get(name);
    if (names === undefined || slot === undefined) return false;
    names.delete(name);
    if (names.size === 0) this.#folders.delete(folder);
    this.#free.push(slot);
    this.#count--;
    return true;
  }

  /** The files held directly in `folder` (not below it), as whole paths. */
  filesIn(folder: string): string[] {
    const names = folder === '' ? undefined : this.#folders.get(folder);
    return names ? [...names.keys()].map((name) => join(folder, name)) : [];
  }

  #slot(file: string): number | undefined {
    const [folder, name] = split(file);
    return this.#folders.get(folder)?.get(name);
  }

  #allocate(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#used === this.#size.length) {
      const grow = (column: Float64Array): Float64Array => {
        const bigger = new Float64Array(column.length * 2);
        bigger.set(column);
        return bigger;
      };
      this.#size = grow(this.#size);
      this.#mtimeMs = grow(this.#mtimeMs);
      this.#dev = grow(this.#dev);
      this.#ino = grow(this.#ino);
    }
    return this.#used++;
  }
}

/**
 * `file`'s folder (path.dirname, as the watcher names folders) and its name there, whose join gives `file` back.
 * A path its folder is not a prefix of (none the watcher holds: chokidar's are absolute) is held whole under ''.
 */
function split(file: string): [folder: string, name: string] {
  const folder = path.dirname(file);
  if (folder.endsWith(path.sep) && file.startsWith(folder)) return [folder, file.slice(folder.length)];
  if (file.startsWith(folder) && file[folder.length] === path.sep) return [folder, file.slice(folder.length + 1)];
  return ['', file];
}

function join(folder: string, name: string): string {
  return folder === '' || folder.endsWith(path.sep) ? folder + name : folder + path.sep + name;
}
