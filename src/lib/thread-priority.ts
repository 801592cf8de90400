/**
 * A lower scheduling priority for the calling thread only, for the threads that do background work (the pipeline:
 * parsing, analysis, embedding). On PGlite a search runs on the store's thread while a bulk run keeps every core
 * busy with pipeline threads; at equal priority the store's thread gets a core only its share of the time, so a
 * 200 ms search took 1–2 s during a 100k bulk run (bench:search's stall run). Niced, the pipeline threads still
 * take every idle cycle, but a search (or anything else the person runs) gets a core first, as desktop indexers
 * do (Baloo, Tracker run their indexers at nice 19).
 *
 * Linux only: there `setpriority(PRIO_PROCESS, 0, …)` (Node's os.setPriority(0, …)) changes the calling thread,
 * and threads it starts later (ONNX Runtime's) inherit it. Elsewhere it would change the whole process, the thread
 * answering requests included, so nothing is done. Hand-written: one system call.
 */
import os from 'node:os';

/** The nice value of background threads: a nice-0 thread gets ~9× their share of a busy core. */
export const BACKGROUND_NICE = 10;

/** Lowers the calling thread's priority to `nice` (never raises it); answers whether it is now at least that nice. */
export function lowerThreadPriority(nice = BACKGROUND_NICE): boolean {
  if (process.platform !== 'linux') return false;
  try {
    if (os.getPriority(0) >= nice) return true;
    os.setPriority(0, nice);
    return true;
  } catch {
    return false; // a sandbox that forbids it: the thread keeps its priority
  }
}
