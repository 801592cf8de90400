/**
 * A full garbage collection on demand, without starting Node with `--expose-gc`: the flag is set at run time and
 * the `gc` function taken from a fresh context, the one place V8 then defines it. The flag is process-wide, but it
 * only adds that function to contexts made afterwards; nothing else changes.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/** Collects this thread's whole heap now (tens of ms for a pipeline thread's). */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
