/**
 * Linux sensors that systeminformation does not read (fan speed) or reads only under fixed names (the mains
 * adapter: it looks at AC/ and AC0/ only, while many laptops name it ADP1, ACAD, ...). Both come straight
 * from sysfs. `sysRoot` is '/sys' in production and a temp folder in tests.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export type SysfsResult<T> = { ok: true; value: T; note?: string } | { ok: false; reason: string };

function errorText(err: unknown): string {
  if (err instanceof Error) return (err as NodeJS.ErrnoException).code ?? err.message;
  return String(err);
}

async function listDir(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch {
    return null;
  }
}

async function readTrimmed(file: string): Promise<string> {
  return (await readFile(file, 'utf8')).trim();
}

/**
 * The fastest fan in RPM over every `fan*_input` of every hwmon device (on some older drivers the files sit
 * in the device/ subfolder). The fastest fan is what one hears, and a header reading 0 is often an unplugged
 * socket, so the maximum is the meaningful figure.
 */
export async function readFanSpeed(sysRoot = '/sys'): Promise<SysfsResult<number>> {
  const hwmonRoot = path.join(sysRoot, 'class', 'hwmon');
  const devices = await listDir(hwmonRoot);
  if (devices === null) return { ok: false, reason: `no ${hwmonRoot} (no hardware monitoring exposed here, e.g. a container or VM)` };
  const inputs: string[] = [];
  for (const device of devices) {
    for (const dir of [path.join(hwmonRoot, device), path.join(hwmonRoot, device, 'device')]) {
      for (const name of (await listDir(dir)) ?? []) {
        if (/^fan\d+_input$/.test(name)) inputs.push(path.join(dir, name));
      }
    }
  }
  if (inputs.length === 0) return { ok: false, reason: `no fan sensor (fan*_input) under ${hwmonRoot}` };
  let fastest: number | null = null;
  const failures: string[] = [];
  for (const file of inputs) {
    try {
      const rpm = Number(await readTrimmed(file));
      if (Number.isFinite(rpm) && rpm >= 0) fastest = Math.max(fastest ?? 0, rpm);
      else failures.push(`${file}: not a number`);
    } catch (err) {
      failures.push(`${file}: ${errorText(err)}`);
    }
  }
  if (fastest === null) return { ok: false, reason: `fan sensors unreadable (${failures.join(', ')})` };
  return { ok: true, value: fastest, note: `fastest of ${inputs.length - failures.length} fan(s)` };
}

/**
 * Whether a mains adapter is online: any power supply of type "Mains" whose `online` reads 1. Returns null
 * when the machine lists no mains supply at all (then the caller falls back to other evidence).
 */
export async function readMainsOnline(sysRoot = '/sys'): Promise<SysfsResult<boolean> | null> {
  const supplyRoot = path.join(sysRoot, 'class', 'power_supply');
  const supplies = (await listDir(supplyRoot)) ?? [];
  const mains: string[] = [];
  for (const name of supplies) {
    try {
      if ((await readTrimmed(path.join(supplyRoot, name, 'type'))) === 'Mains') mains.push(name);
    } catch {
      // A supply without a readable type is not one we can use.
    }
  }
  if (mains.length === 0) return null;
  const failures: string[] = [];
  let online = false;
  let readable = 0;
  for (const name of mains) {
    try {
      const state = await readTrimmed(path.join(supplyRoot, name, 'online'));
      readable += 1;
      if (state === '1') online = true;
    } catch (err) {
      failures.push(`${name}: ${errorText(err)}`);
    }
  }
  if (readable === 0) return { ok: false, reason: `mains adapter state unreadable (${failures.join(', ')})` };
  return { ok: true, value: online, note: `mains adapter ${mains.join(', ')}` };
}
