import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Systeminformation } from 'systeminformation';
import {
  available,
  createSystemReadingsProvider,
  unavailable,
  type Reading,
  type ReadingsSnapshot,
  type SystemInformationSource,
} from '../../../src/actors/scheduler/readings.js';
import type { CpuTicks } from '../../../src/actors/scheduler/cpu-load.js';

const METRICS = ['battery_level', 'power_source', 'cpu_idle', 'cpu_percent', 'cpu_temperature', 'fan_speed'] as const;

function battery(fields: Partial<Systeminformation.BatteryData>): Systeminformation.BatteryData {
  return {
    hasBattery: false,
    cycleCount: 0,
    isCharging: false,
    designedCapacity: 0,
    maxCapacity: 0,
    currentCapacity: 0,
    voltage: 0,
    capacityUnit: '',
    percent: 0,
    timeRemaining: 0,
    acConnected: true,
    type: '',
    model: '',
    manufacturer: '',
    serial: '',
    ...fields,
  };
}

function temperature(main: number | null, max: number | null = main): Systeminformation.CpuTemperatureData {
  return { main, max, cores: [], socket: [], chipset: null } as unknown as Systeminformation.CpuTemperatureData;
}

function source(overrides: Partial<SystemInformationSource>): SystemInformationSource {
  return {
    battery: async () => battery({}),
    cpuTemperature: async () => temperature(null),
    ...overrides,
  } as SystemInformationSource;
}

/** Fake tick counters: each call advances by 100 ticks, `busy` of them busy. */
function ticksAt(busyPerStep: () => number): () => CpuTicks {
  let busy = 0;
  let total = 0;
  return () => {
    busy += busyPerStep();
    total += 100;
    return { busy, total };
  };
}

async function withProvider(
  options: Parameters<typeof createSystemReadingsProvider>[0],
  use: (p: ReturnType<typeof createSystemReadingsProvider>) => Promise<void>,
): Promise<void> {
  const provider = createSystemReadingsProvider(options);
  try {
    await use(provider);
  } finally {
    provider.close();
  }
}

describe('available / unavailable', () => {
  it('build the two shapes of a reading', () => {
    expect(available(3)).to.deep.equal({ available: true, value: 3 });
    expect(available(true, 'why')).to.deep.equal({ available: true, value: true, note: 'why' });
    expect(unavailable('no sensor')).to.deep.equal({ available: false, value: null, reason: 'no sensor' });
  });
});

describe('createSystemReadingsProvider', () => {
  it('reads this machine: every metric is a value in range or unavailable with a reason', async () => {
    await withProvider({}, async (provider) => {
      const readings = await provider.read();
      expect(Object.keys(readings).sort()).to.deep.equal([...METRICS].sort());
      const ranges: Record<(typeof METRICS)[number], [number, number] | 'boolean'> = {
        battery_level: [0, 100],
        power_source: 'boolean',
        cpu_idle: [0, Number.MAX_SAFE_INTEGER],
        cpu_percent: [0, 100],
        cpu_temperature: [-50, 150],
        fan_speed: [0, 100_000],
      };
      for (const metric of METRICS) {
        const reading: Reading<number | boolean> = readings[metric];
        if (reading.available) {
          const range = ranges[metric];
          if (range === 'boolean') expect(reading.value, metric).to.be.a('boolean');
          else expect(reading.value, metric).to.be.a('number').within(range[0], range[1]);
        } else {
          expect(reading.value, metric).to.equal(null);
          expect(reading.reason, metric).to.be.a('string').and.not.equal('');
        }
      }
      // os.cpus() works everywhere Node runs here, so CPU load must be readable.
      if (os.cpus().length > 0) {
        expect(readings.cpu_percent.available).to.equal(true);
        expect(readings.cpu_idle.available).to.equal(true);
      }
      console.log('      readings here:', JSON.stringify(readings));
    });
  });

  it('tracks cpu_idle from the sampled load and resets it when the CPU gets busy', async () => {
    let busy = 1;
    let now = 0;
    await withProvider(
      {
        cpuTicks: ticksAt(() => busy),
        monotonicNow: () => now,
        minCpuWindowMs: 0,
        cpuSampleIntervalMs: 5_000,
        systemInformation: source({}),
      },
      async (provider) => {
        now = 1_000;
        const first = await provider.read();
        expect(first.cpu_percent).to.deep.equal({ available: true, value: 1 });
        expect(first.cpu_idle).to.deep.equal({
          available: true,
          value: 1,
          note: 'seconds continuously below 10% total CPU load',
        });
        now = 6_000;
        expect((await provider.read()).cpu_idle.value).to.equal(6);
        busy = 50;
        now = 7_000;
        const busyRead = await provider.read();
        expect(busyRead.cpu_percent.value).to.equal(50);
        expect(busyRead.cpu_idle.value).to.equal(0);
        busy = 2;
        now = 9_500;
        expect((await provider.read()).cpu_idle.value).to.equal(2.5);
      },
    );
  });

  it('restarts cpu_idle after a hole in sampling (the machine slept)', async () => {
    let now = 0;
    await withProvider(
      { cpuTicks: ticksAt(() => 1), monotonicNow: () => now, minCpuWindowMs: 0, systemInformation: source({}) },
      async (provider) => {
        now = 10_000;
        expect((await provider.read()).cpu_idle.value).to.equal(10);
        now = 70_000; // 60 s without a sample: more than three sampling periods
        expect((await provider.read()).cpu_idle.value).to.equal(0);
        now = 74_000;
        expect((await provider.read()).cpu_idle.value).to.equal(4);
      },
    );
  });

  it('reports CPU metrics unavailable when the platform lists no CPUs', async () => {
    await withProvider({ cpuTicks: () => null, systemInformation: source({}) }, async (provider) => {
      const readings = await provider.read();
      expect(readings.cpu_percent).to.deep.equal(unavailable('os.cpus() reports no CPUs on this system'));
      expect(readings.cpu_idle).to.deep.equal(unavailable('os.cpus() reports no CPUs on this system'));
    });
  });

  it('turns a throwing or hanging systeminformation call into an unavailable reading', async () => {
    const failing = source({
      battery: async () => {
        throw new Error('boom');
      },
      cpuTemperature: () => new Promise<Systeminformation.CpuTemperatureData>(() => undefined),
    });
    await withProvider({ systemInformation: failing, callTimeoutMs: 50, platform: 'darwin' }, async (provider) => {
      const readings = await provider.read();
      expect(readings.battery_level).to.deep.equal(unavailable('systeminformation battery() failed: boom'));
      expect(readings.power_source).to.deep.equal(unavailable('systeminformation battery() failed: boom'));
      expect(readings.cpu_temperature).to.deep.equal(unavailable('systeminformation cpuTemperature() timed out after 50 ms'));
      expect(readings.fan_speed).to.deep.equal(unavailable('fan speed is read from Linux hwmon only; not available on darwin'));
    });
  });

  it('reads a laptop battery and its AC state', async () => {
    const laptop = source({
      battery: async () => battery({ hasBattery: true, percent: 57, acConnected: false }),
      cpuTemperature: async () => temperature(61.5),
    });
    await withProvider({ systemInformation: laptop, platform: 'darwin' }, async (provider) => {
      const readings = await provider.read();
      expect(readings.battery_level).to.deep.equal(available(57));
      expect(readings.power_source).to.deep.equal(available(false));
      expect(readings.cpu_temperature).to.deep.equal(available(61.5));
    });
  });

  it('treats a machine without a battery as on mains, and says so', async () => {
    await withProvider({ systemInformation: source({}), platform: 'win32' }, async (provider) => {
      const readings = await provider.read();
      expect(readings.battery_level).to.deep.equal(unavailable('no battery detected'));
      expect(readings.power_source).to.deep.equal(available(true, 'no battery detected: on mains power'));
    });
  });

  it('rejects implausible numbers rather than passing them on', async () => {
    const odd = source({
      battery: async () => battery({ hasBattery: true, percent: 250 }),
      cpuTemperature: async () => temperature(-1),
    });
    await withProvider({ systemInformation: odd, platform: 'darwin' }, async (provider) => {
      const readings = await provider.read();
      expect(readings.battery_level).to.deep.equal(unavailable('implausible battery percentage 250'));
      expect(readings.cpu_temperature).to.deep.equal(unavailable('implausible CPU temperature -1'));
    });
  });

  it('falls back to the hottest sensor when there is no main temperature', async () => {
    await withProvider(
      { systemInformation: source({ cpuTemperature: async () => temperature(null, 55) }), platform: 'darwin' },
      async (provider) => {
        expect((await provider.read()).cpu_temperature).to.deep.equal(available(55));
      },
    );
  });

  describe('on Linux, with sysfs', () => {
    let root: string;
    beforeEach(async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'filesift-sys-'));
    });
    afterEach(async () => {
      await rm(root, { recursive: true, force: true });
    });
    async function put(rel: string, content: string): Promise<void> {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), content);
    }

    it('takes the power source from the mains adapter over systeminformation', async () => {
      await put('class/power_supply/ACAD/type', 'Mains\n');
      await put('class/power_supply/ACAD/online', '1\n');
      await put('class/hwmon/hwmon3/fan1_input', '3100\n');
      // A full battery that is "not charging" makes systeminformation say acConnected: false.
      const full = source({ battery: async () => battery({ hasBattery: true, percent: 100, acConnected: false }) });
      await withProvider({ systemInformation: full, platform: 'linux', sysRoot: root }, async (provider) => {
        const readings: ReadingsSnapshot = await provider.read();
        expect(readings.power_source).to.deep.equal(available(true, 'mains adapter ACAD'));
        expect(readings.battery_level).to.deep.equal(available(100));
        expect(readings.fan_speed).to.deep.equal(available(3100, 'fastest of 1 fan(s)'));
      });
    });

    it('says when the power source is inferred from the charging state', async () => {
      const charging = source({ battery: async () => battery({ hasBattery: true, percent: 40, acConnected: true }) });
      await withProvider({ systemInformation: charging, platform: 'linux', sysRoot: root }, async (provider) => {
        expect((await provider.read()).power_source).to.deep.equal(
          available(true, 'no mains adapter in sysfs: inferred from the charging state'),
        );
      });
    });
  });
});
