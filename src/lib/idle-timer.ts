/**
 * Calls `onIdle` once `ms` have passed since the last `arm()`: a lazily started thread (the query embedder's,
 * the snippet lane's) ends when nobody used it for a while. The timer is unref'd, so it never keeps the process up.
 */
export class IdleTimer {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  /** (Re)starts the countdown. */
  arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.onIdle();
    }, this.ms).unref();
  }

  /** Stops the countdown (a call began, or the owner closes). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Whether a countdown is running. */
  get armed(): boolean {
    return this.#timer !== undefined;
  }
}
