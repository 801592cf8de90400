/**
 * What the scheduler reads from the machine, and the seam tests drive it through (ReadingsProvider).
 * Every metric is either available with a value or unavailable with a reason: a reading that cannot be
 * taken is never a throw, never a made-up number, and never silently "fine".
 */
import { performance } from 'node:perf_hooks';
import si from 'systeminformation';
import { createCpuIdleTracker, DEFAULT_IDLE_THRESHOLD_PERCENT } from './cpu-idle.js';
import { loadPercentBetween, readCpuTicks, type CpuTicks } from './cpu-load.js';
import { readFanSpeed, readMainsOnline } from './linux-sysfs.js';
import type { MetricName } from '../../settings/scheduler-schema.js';

/** An available reading may carry a note saying where it came from or what was assumed. */
export type Reading<T> = { available: true; value: T; note?: string } | { available: false; value: null; reason: string };

export interface MetricValues {
  battery_level: number; // percent, 0-100
  power_source: boolean; // true = plugged in (on mains power)
  cpu_idle: number; // seconds continuously below the idle threshold
  cpu_percent: number; // total load in percent, 0-100
  cpu_temperature: number; // degrees Celsius
  fan_speed: number; // RPM of the fastest fan
}

export type ReadingsSnapshot = { [K in MetricName]: Reading<MetricValues[K]> };

export interface ReadingsProvider {
  read(): Promise<ReadingsSnapshot>;
  /** Stops background sampling, if the provider does any. */
  close?(): void;
}

export function available<T>(value: T, note?: string): Reading<T> {
  return note === undefined ? { available: true, value } : { available: true, value, note };
}

export function unavailable<T>(reason: string): Reading<T> {
  return { available: false, value: null, reason };
}

/** The parts of systeminformation we call; replaceable so tests can make them fail or hang. */
export type SystemInformationSource = Pick<typeof si, 'battery' | 'cpuTemperature'>;

export interface SystemReadingsOptions {
  /** cpu_idle counts time below this total load (percent). Default 10. */
  idleThresholdPercent?: number;
  /** Background CPU sampling period; finer than the check interval so short bursts break an idle streak. */
  cpuSampleIntervalMs?: number;
  /** Shortest window a CPU load figure is computed over (shorter windows are too coarse in ticks). */
  minCpuWindowMs?: number;
  /** A systeminformation call that takes longer than this reads as unavailable. */
  callTimeoutMs?: number;
  /** Root of sysfs (Linux fan and mains readings). */
  sysRoot?: string;
  platform?: NodeJS.Platform;
  systemInformation?: SystemInformationSource;
  cpuTicks?: () => CpuTicks | null;
  /** Monotonic milliseconds (default performance.now); a seam so tests can step time. */
  monotonicNow?: () => number;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Runs a call that might throw, reject or hang, and turns each of those into a reason. */
async function guarded<T>(what: string, call: () => Promise<T>, timeoutMs: number): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `${what} timed out after ${timeoutMs} ms` }), timeoutMs);
    timer.unref();
  });
  try {
    const attempt = (async (): Promise<Outcome<T>> => ({ ok: true, value: await call() }))().catch(
      (err: unknown): Outcome<T> => ({ ok: false, reason: `${what} failed: ${err instanceof Error ? err.message : String(err)}` }),
    );
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Readings from this machine: battery and AC power and CPU temperature through systeminformation, CPU load
 * from kernel tick counters (see cpu-load.ts), fan speed and the mains adapter from Linux sysfs. CPU load
 * is sampled in the background every `cpuSampleIntervalMs` (unref'd timer) to track cpu_idle; call close()
 * to stop it.
 */
export function createSystemReadingsProvider(options: SystemReadingsOptions = {}): ReadingsProvider & { close(): void } {
  const thresholdPercent = options.idleThresholdPercent ?? DEFAULT_IDLE_THRESHOLD_PERCENT;
  const sampleIntervalMs = options.cpuSampleIntervalMs ?? 5_000;
  const minWindowMs = options.minCpuWindowMs ?? 500;
  const timeoutMs = options.callTimeoutMs ?? 5_000;
  const sysRoot = options.sysRoot ?? '/sys';
  const platform = options.platform ?? process.platform;
  const source: SystemInformationSource = options.systemInformation ?? si;
  const ticks = options.cpuTicks ?? (() => readCpuTicks());
  // Monotonic time: the tracker refuses windows that go backwards, which wall-clock time can do.
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  // The background sampler runs every sampleIntervalMs; a window much longer than that means the process
  // did not run (the machine slept, the process was stopped), and nothing is known about that time.
  const maxContiguousWindowMs = Math.max(3 * sampleIntervalMs, 15_000);
  const tracker = createCpuIdleTracker({ thresholdPercent });

  let windowStart: { ticks: CpuTicks; at: number } | null = null;
  let lastLoad: number | null = null;

  function sampleCpu(): void {
    const now = ticks();
    const at = monotonicNow();
    if (now === null) return;
    if (windowStart === null) {
      windowStart = { ticks: now, at };
      return;
    }
    const load = loadPercentBetween(windowStart.ticks, now);
    if (load === null) return; // no tick elapsed yet: let the window grow
    const hole = at - windowStart.at > maxContiguousWindowMs;
    tracker.record({ from: hole ? at : windowStart.at, to: at, loadPercent: load });
    windowStart = { ticks: now, at };
    lastLoad = load;
  }

  sampleCpu();
  const sampler = setInterval(sampleCpu, sampleIntervalMs);
  sampler.unref();

  async function readCpu(): Promise<Pick<ReadingsSnapshot, 'cpu_percent' | 'cpu_idle'>> {
    if (windowStart === null) sampleCpu();
    if (windowStart === null) {
      const reason = 'os.cpus() reports no CPUs on this system';
      return { cpu_percent: unavailable(reason), cpu_idle: unavailable(reason) };
    }
    const age = monotonicNow() - windowStart.at;
    if (lastLoad === null && age < minWindowMs) {
      // First read right after start: wait until the window is long enough to mean something. (Not
      // unref'd: someone awaits this read, and the wait is bounded by minCpuWindowMs.)
      await new Promise((resolve) => setTimeout(resolve, minWindowMs - age));
    }
    if (lastLoad === null || monotonicNow() - windowStart.at >= minWindowMs) sampleCpu();
    const idle = tracker.idleSeconds();
    if (lastLoad === null || idle === null) {
      const reason = 'no CPU tick elapsed since sampling started';
      return { cpu_percent: unavailable(reason), cpu_idle: unavailable(reason) };
    }
    return {
      cpu_percent: available(round1(lastLoad)),
      cpu_idle: available(round1(idle), `seconds continuously below ${thresholdPercent}% total CPU load`),
    };
  }

  async function readPower(): Promise<Pick<ReadingsSnapshot, 'battery_level' | 'power_source'>> {
    const [battery, mains] = await Promise.all([
      guarded('systeminformation battery()', () => source.battery(), timeoutMs),
      platform === 'linux' ? readMainsOnline(sysRoot) : Promise.resolve(null),
    ]);
    let battery_level: Reading<number>;
    if (!battery.ok) battery_level = unavailable(battery.reason);
    else if (!battery.value.hasBattery) battery_level = unavailable('no battery detected');
    else {
      const percent = battery.value.percent;
      battery_level =
        Number.isFinite(percent) && percent >= 0 && percent <= 100
          ? available(round1(percent))
          : unavailable(`implausible battery percentage ${percent}`);
    }

    let power_source: Reading<boolean>;
    if (mains !== null) {
      power_source = mains.ok ? available(mains.value, mains.note) : unavailable(mains.reason);
    } else if (!battery.ok) {
      power_source = unavailable(battery.reason);
    } else if (!battery.value.hasBattery) {
      // A machine without a battery runs on mains; saying so is a fact of the hardware, not a guess.
      power_source = available(true, 'no battery detected: on mains power');
    } else {
      const note = platform === 'linux' ? 'no mains adapter in sysfs: inferred from the charging state' : undefined;
      power_source = available(battery.value.acConnected, note);
    }
    return { battery_level, power_source };
  }

  async function readTemperature(): Promise<Reading<number>> {
    const temperature = await guarded('systeminformation cpuTemperature()', () => source.cpuTemperature(), timeoutMs);
    if (!temperature.ok) return unavailable(temperature.reason);
    // The typings say number, but main and max are null when no sensor is found.
    const celsius: number | null = temperature.value.main ?? temperature.value.max ?? null;
    if (celsius === null) return unavailable('no CPU temperature sensor found');
    // Some platforms report -1 or 0 when the sensor query fails.
    if (!Number.isFinite(celsius) || celsius <= 0 || celsius > 150) return unavailable(`implausible CPU temperature ${celsius}`);
    return available(round1(celsius));
  }

  async function readFan(): Promise<Reading<number>> {
    if (platform !== 'linux') return unavailable(`fan speed is read from Linux hwmon only; not available on ${platform}`);
    const fan = await readFanSpeed(sysRoot);
    return fan.ok ? available(fan.value, fan.note) : unavailable(fan.reason);
  }

  return {
    async read() {
      const [cpu, power, cpu_temperature, fan_speed] = await Promise.all([
        readCpu(),
        readPower(),
        readTemperature(),
        readFan(),
      ]);
      return { ...power, ...cpu, cpu_temperature, fan_speed };
    },
    close() {
      clearInterval(sampler);
    },
  };
}
