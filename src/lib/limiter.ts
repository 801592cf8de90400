/** Bounds how many async jobs run at once; `acquire` waits for a free slot, `drain` for all to finish. */
export class Limiter {
  #running = 0;
  #waiting: ((acquired: boolean) => void)[] = [];
  #idle: (() => void)[] = [];

  constructor(private limit: number) {}

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Slots taken. */
  get running(): number {
    return this.#running;
  }

  /** The slots there are (setLimit's last value). */
  get size(): number {
    return this.limit;
  }

  setLimit(limit: number): void {
    this.limit = limit;
    this.#wake();
  }

  /**
   * Takes a slot, waiting for one if need be. With a signal, an abort while waiting leaves the line at once and
   * answers false (no slot taken): a caller cancelled behind a task that hangs is not held until that task ends.
   */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return false;
    if (this.#running < this.limit) {
      this.#running++;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const at = this.#waiting.indexOf(wake);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      };
      const wake = (acquired: boolean) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(acquired);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(wake);
    });
  }

  release(): void {
    this.#running--;
    this.#wake();
    if (this.#running === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Runs fn in a slot (waiting for one first); does not wait for fn itself. */
  async launch(fn: () => Promise<unknown>): Promise<void> {
    await this.acquire();
    void fn().finally(() => this.release());
  }

  drain(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #wake(): void {
    while (this.#running < this.limit && this.#waiting.length > 0) {
      this.#running++;
      this.#waiting.shift()!(true);
    }
  }
}
