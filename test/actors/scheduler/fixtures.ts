import { available, unavailable, type ReadingsProvider, type ReadingsSnapshot } from '../../../src/actors/scheduler/readings.js';

/** A snapshot where everything reads, with plausible values; override what a test is about. */
export function snapshot(overrides: Partial<ReadingsSnapshot> = {}): ReadingsSnapshot {
  return {
    battery_level: available(80),
    power_source: available(true),
    cpu_idle: available(120),
    cpu_percent: available(5),
    cpu_temperature: available(45),
    fan_speed: available(1500),
    ...overrides,
  };
}

export const nothingReadable: ReadingsSnapshot = {
  battery_level: unavailable('no battery detected'),
  power_source: unavailable('battery() failed: boom'),
  cpu_idle: unavailable('no CPUs'),
  cpu_percent: unavailable('no CPUs'),
  cpu_temperature: unavailable('no CPU temperature sensor found'),
  fan_speed: unavailable('no fan sensor'),
};

/** The seam: a provider whose readings the test sets, counting reads. */
export class FakeProvider implements ReadingsProvider {
  reads = 0;
  constructor(public current: ReadingsSnapshot = snapshot()) {}
  async read(): Promise<ReadingsSnapshot> {
    this.reads += 1;
    return structuredClone(this.current);
  }
}

/** Lets every promise chain that waits on no I/O run to its end. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
