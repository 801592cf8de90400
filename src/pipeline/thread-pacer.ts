/**
 * How many pipeline threads may work at once, between one and queue.max_concurrency, paced by demand.
 *
 * Why: a bulk run with the built-in embedder is paced by the store's one thread (~17 ms a Debian file against a
 * pipeline thread's ~13), so past one or two threads the rest idle between bursts, yet each keeps its ~80–110 MB
 * of heap and buffers, and the default gives a 4-core laptop three and an 8-core one seven. A transformer model
 * turns that around (the pipeline is the slow side) and every thread earns its place. The pool cannot know which
 * case it is in from the settings, so it watches: the threads are a closed loop's stage (a run keeps a bounded
 * number of files in flight, so a thread more than the store can absorb only lets them wait there instead).
 *
 * The rule, per window of windowMs (written here rather than taken from a library: it is the queue's own
 * scheduling, and what it reads — tasks admitted and waiting — exists only inside the pool):
 * - **grow** by one when this window and the one before were both *saturated*: the admitted tasks kept at least
 *   90 % of the limit busy and tasks waited for a thread at least a quarter of the time (busy threads with nobody
 *   waiting gain nothing from another), and a core stood free: half a core's time left by the process (a
 *   container's quota) and idle on the machine (other programs). With every core busy another thread adds memory
 *   and no speed. Two windows so that a burst does not start a thread (each costs ~1.5 CPU-s of loading).
 * - **shrink** by one after three windows in a row whose work one thread fewer would have done at most 80 % busy
 *   (busy ≤ 0.8 × (limit − 1)), or in which no core stood free and the threads were not saturated: when the cores
 *   are all busy, a task's wall time (what "busy" counts) includes its wait for a core, and a thread fewer gives
 *   its core to the store's thread, which paces the run. Between the two rules the pacer holds still. A thread
 *   never handed a task leaves after the pool's idle timeout, and piscina hands a task to the first idle thread in
 *   order, so the last ones are those left idle.
 * Measured on the Debian corpus with three threads allowed on two cores (README "Memory"): on saturation alone
 * it reached three threads in runs of PDFs; with the process's free core alone it stayed at two, the second's
 * tasks ~80 % "busy" waiting beside the store's; with all of the above it grows to two in the run's first seconds
 * (the pipeline is the slow side until the store has work) and is back at one 6 s later.
 * The limit starts at one; a long task that holds the only thread with others waiting is a saturated window too,
 * so a slow file cannot stall the rest for long when more threads are allowed.
 */

import { availableParallelism, cpus } from 'node:os';

export interface ThreadPacerOptions {
  /** queue.max_concurrency: the most threads that may work. */
  max: number;
  /** Length of a window (default 2 s; tests pass shorter ones). */
  windowMs?: number;
  /** The clock (test seam). */
  now?: () => number;
  /** The cores this process may use (default os.availableParallelism()). */
  cores?: number;
  /** The process's CPU time so far, all threads, in ms (test seam; default process.cpuUsage()). */
  cpuMs?: () => number;
  /** The machine's idle time so far, all cores, in ms (test seam; default os.cpus()). */
  idleMs?: () => number;
}

const DEFAULT_WINDOW_MS = 2_000;
/** Growing needs this much of a core's time left free over the window, by the process and on the machine. */
const FREE_CORE = 0.5;
const SATURATED_BUSY = 0.9;
const SATURATED_WAITING = 0.25;
const GROW_WINDOWS = 2;
const SHRINK_BUSY = 0.8;
const SHRINK_WINDOWS = 3;

export class ThreadPacer {
  #max: number;
  #limit = 1;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #cores: number;
  readonly #cpuMs: () => number;
  readonly #idleMs: () => number;
  #idleReading: number;
  /** The last CPU reading and when it was taken. */
  #cpuReading: number;
  #cpuReadAt: number;
  #running = 0;
  #waiting = 0;
  #windowStart: number;
  #lastChange: number;
  /** ∫ running dt and ∫ [waiting > 0] dt over the window so far. */
  #busyMs = 0;
  #waitedMs = 0;
  #saturatedRun = 0;
  #idleRun = 0;

  constructor(options: ThreadPacerOptions) {
    this.#max = checkMax(options.max);
    this.#windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    this.#cores = options.cores ?? availableParallelism();
    this.#cpuMs = options.cpuMs ?? processCpuMs;
    this.#idleMs = options.idleMs ?? machineIdleMs;
    this.#windowStart = this.#lastChange = this.#cpuReadAt = this.#now();
    this.#cpuReading = this.#cpuMs();
    this.#idleReading = this.#idleMs();
  }

  /** The threads that may work now. */
  get limit(): number {
    return this.#limit;
  }

  get max(): number {
    return this.#max;
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  /** A new maximum (queue.max_concurrency changed): the limit keeps within it. */
  setMax(max: number): void {
    this.#max = checkMax(max);
    this.#limit = Math.min(this.#limit, this.#max);
  }

  /**
   * The tasks admitted (running) and waiting for admission changed, or a timer ticked: accounts the time since the
   * last call at the old counts, closes the windows that ended, and answers the limit they leave.
   */
  observe(running: number, waiting: number): number {
    const now = this.#now();
    // Whether a core was free since the last reading, one answer for every window this call closes.
    let freeCore: boolean | undefined;
    // Windows that ended since the last call, each closed at its own end with the counts that held then.
    while (now >= this.#windowStart + this.#windowMs) {
      const end = this.#windowStart + this.#windowMs;
      this.#account(end);
      freeCore ??= this.#coreFreeSince(now);
      this.#closeWindow(freeCore);
      this.#windowStart = end;
      // A long idle gap: every further whole window was idle at the same counts; a few suffice to reach the floor.
      if (this.#running === 0 && this.#waiting === 0 && now - end > SHRINK_WINDOWS * this.#windowMs * this.#max) {
        this.#limit = 1;
        this.#saturatedRun = this.#idleRun = 0;
        this.#windowStart = now;
        this.#lastChange = now;
        break;
      }
    }
    this.#account(now);
    this.#running = running;
    this.#waiting = waiting;
    return this.#limit;
  }

  #account(until: number): void {
    const span = Math.max(0, until - this.#lastChange);
    this.#busyMs += span * this.#running;
    if (this.#waiting > 0) this.#waitedMs += span;
    this.#lastChange = Math.max(this.#lastChange, until);
  }

  /**
   * Since the last reading (the last window closed), did the process leave half a core of its own free, and did
   * the machine's cores stand idle for half a core's time? Both: a container's quota bounds the first, other
   * programs (a build, a browser) the second, and the process's CPU alone reads a busy machine as a free one.
   */
  #coreFreeSince(now: number): boolean {
    const cpu = this.#cpuMs();
    const idle = this.#idleMs();
    const span = now - this.#cpuReadAt;
    const used = span > 0 ? (cpu - this.#cpuReading) / span : 0;
    // No reading (os.cpus() empty in some sandboxes): the machine's side is not known, so not held against growth.
    const idleCores = span > 0 && Number.isFinite(idle - this.#idleReading) ? (idle - this.#idleReading) / span : this.#cores;
    this.#cpuReading = cpu;
    this.#idleReading = idle;
    this.#cpuReadAt = now;
    return used <= this.#cores - FREE_CORE && idleCores >= FREE_CORE;
  }

  #closeWindow(freeCore: boolean): void {
    const busy = this.#busyMs / this.#windowMs;
    const waited = this.#waitedMs / this.#windowMs;
    this.#busyMs = this.#waitedMs = 0;
    const wanted = busy >= SATURATED_BUSY * this.#limit && waited >= SATURATED_WAITING;
    const saturated = wanted && freeCore;
    const idle = busy <= SHRINK_BUSY * (this.#limit - 1) || (!freeCore && !wanted);
    this.#saturatedRun = saturated ? this.#saturatedRun + 1 : 0;
    this.#idleRun = idle ? this.#idleRun + 1 : 0;
    if (this.#saturatedRun >= GROW_WINDOWS && this.#limit < this.#max) {
      this.#limit += 1;
      // The next step needs its own evidence at the new limit, one window of it.
      this.#saturatedRun = GROW_WINDOWS - 1;
    } else if (this.#idleRun >= SHRINK_WINDOWS && this.#limit > 1) {
      this.#limit -= 1;
      this.#idleRun = 0;
    }
  }
}

function machineIdleMs(): number {
  const all = cpus();
  if (all.length === 0) return Number.NaN;
  let idle = 0;
  for (const cpu of all) idle += cpu.times.idle;
  return idle;
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function checkMax(max: number): number {
  if (!Number.isInteger(max) || max < 1) throw new TypeError('max must be a positive integer');
  return max;
}
