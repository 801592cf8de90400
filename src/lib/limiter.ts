/** Bounds how many async jobs run at once; `acquire` waits for a free slot, `drain` for all to finish. */
export class Limiter {
  #running = 0;
  #waiting: (() => void)[] = [];
  #idle: (() => void)[] = [];

  constructor(private limit: number) {}

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  setLimit(limit: number): void {
    this.limit = limit;
    this.#wake();
  }

  async acquire(): Promise<void> {
    if (this.#running < this.limit) {
      this.#running++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
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
      this.#waiting.shift()!();
    }
  }
}
