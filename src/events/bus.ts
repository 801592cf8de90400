import type { AnyBusEvent, BusEvent, EventMap, EventName } from './types.js';

export type EventListener = (event: AnyBusEvent) => void;

export interface EventBusOptions {
  /** How many recent events are kept for replay after a reconnect (Last-Event-ID). */
  replayCapacity?: number;
}

/**
 * In-process publish/subscribe with monotonically increasing ids and a bounded ring buffer for replay. A listener
 * that throws is isolated: the others still receive the event.
 */
export class EventBus {
  readonly #listeners = new Set<EventListener>();
  readonly #buffer: (AnyBusEvent | undefined)[];
  #nextId = 1;
  #start = 0; // index of the oldest buffered event
  #count = 0;

  constructor(options: EventBusOptions = {}) {
    const capacity = options.replayCapacity ?? 1000;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new TypeError('options.replayCapacity must be a positive integer');
    }
    this.#buffer = new Array<AnyBusEvent | undefined>(capacity);
  }

  publish<N extends EventName>(type: N, data: EventMap[N]): BusEvent<N> {
    const event: BusEvent<N> = { id: this.#nextId++, type, time: new Date().toISOString(), data };
    const any = event as unknown as AnyBusEvent;
    this.#remember(any);
    for (const listener of this.#listeners) {
      try {
        listener(any);
      } catch {
        // A faulty subscriber must not break publishing for the others.
      }
    }
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get lastId(): number {
    return this.#nextId - 1;
  }

  /**
   * Events published after `lastId`, oldest first. `complete` is false when some of them have already left the
   * buffer (the client missed events it cannot get back and should refetch state).
   */
  since(lastId: number): { events: AnyBusEvent[]; complete: boolean } {
    const events: AnyBusEvent[] = [];
    const capacity = this.#buffer.length;
    for (let i = 0; i < this.#count; i++) {
      const event = this.#buffer[(this.#start + i) % capacity];
      if (event && event.id > lastId) events.push(event);
    }
    const oldest = this.#count > 0 ? this.#buffer[this.#start]?.id ?? this.#nextId : this.#nextId;
    return { events, complete: lastId >= oldest - 1 };
  }

  #remember(event: AnyBusEvent): void {
    const capacity = this.#buffer.length;
    if (this.#count < capacity) {
      this.#buffer[(this.#start + this.#count) % capacity] = event;
      this.#count++;
    } else {
      this.#buffer[this.#start] = event;
      this.#start = (this.#start + 1) % capacity;
    }
  }

  get subscriberCount(): number {
    return this.#listeners.size;
  }
}
