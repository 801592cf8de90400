import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readFanSpeed, readMainsOnline } from '../../../src/actors/scheduler/linux-sysfs.js';

/** Builds a fake /sys tree from { 'class/hwmon/hwmon0/fan1_input': '1200' }-style entries. */
async function sysTree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'filesift-sysfs-'));
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  return root;
}

describe('readFanSpeed', () => {
  const roots: string[] = [];
  afterEach(async () => {
    for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
  });
  async function tree(files: Record<string, string>): Promise<string> {
    const root = await sysTree(files);
    roots.push(root);
    return root;
  }

  it('reports the fastest fan across hwmon devices', async () => {
    const root = await tree({
      'class/hwmon/hwmon0/name': 'nct6775\n',
      'class/hwmon/hwmon0/fan1_input': '1200\n',
      'class/hwmon/hwmon0/fan2_input': '0\n',
      'class/hwmon/hwmon1/fan1_input': '2400\n',
      'class/hwmon/hwmon1/temp1_input': '45000\n',
    });
    expect(await readFanSpeed(root)).to.deep.equal({ ok: true, value: 2400, note: 'fastest of 3 fan(s)' });
  });

  it("finds fans in an older driver's device/ folder", async () => {
    const root = await tree({ 'class/hwmon/hwmon0/device/fan1_input': '900' });
    expect(await readFanSpeed(root)).to.deep.equal({ ok: true, value: 900, note: 'fastest of 1 fan(s)' });
  });

  it('reads 0 when every fan stands still', async () => {
    const root = await tree({ 'class/hwmon/hwmon0/fan1_input': '0' });
    expect(await readFanSpeed(root)).to.include({ ok: true, value: 0 });
  });

  it('is unavailable without hwmon, with the reason', async () => {
    const root = await tree({ 'class/thermal/.keep': '' });
    const result = await readFanSpeed(root);
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.reason).to.match(/^no .*class\/hwmon \(no hardware monitoring exposed here/);
  });

  it('is unavailable when hwmon has no fan sensor', async () => {
    const root = await tree({ 'class/hwmon/hwmon0/temp1_input': '45000' });
    const result = await readFanSpeed(root);
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.reason).to.match(/^no fan sensor \(fan\*_input\)/);
  });

  it('is unavailable when no fan file holds a number', async () => {
    const root = await tree({ 'class/hwmon/hwmon0/fan1_input': 'n/a' });
    const result = await readFanSpeed(root);
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.reason).to.match(/^fan sensors unreadable \(.*fan1_input: not a number\)/);
  });

  it('skips an unreadable fan and uses the others', async () => {
    const root = await tree({ 'class/hwmon/hwmon0/fan1_input': '1000', 'class/hwmon/hwmon0/fan2_input/.dir': '' });
    expect(await readFanSpeed(root)).to.deep.equal({ ok: true, value: 1000, note: 'fastest of 1 fan(s)' });
  });
});

describe('readMainsOnline', () => {
  const roots: string[] = [];
  afterEach(async () => {
    for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
  });
  async function tree(files: Record<string, string>): Promise<string> {
    const root = await sysTree(files);
    roots.push(root);
    return root;
  }

  it('is true when a mains adapter under any name is online', async () => {
    const root = await tree({
      'class/power_supply/ADP1/type': 'Mains\n',
      'class/power_supply/ADP1/online': '1\n',
      'class/power_supply/BAT0/type': 'Battery\n',
    });
    expect(await readMainsOnline(root)).to.deep.equal({ ok: true, value: true, note: 'mains adapter ADP1' });
  });

  it('is false when every mains adapter is offline', async () => {
    const root = await tree({ 'class/power_supply/AC/type': 'Mains', 'class/power_supply/AC/online': '0' });
    expect(await readMainsOnline(root)).to.deep.equal({ ok: true, value: false, note: 'mains adapter AC' });
  });

  it('is null when no mains adapter is listed (no evidence either way)', async () => {
    const root = await tree({ 'class/power_supply/hidpp_battery_0/type': 'Battery' });
    expect(await readMainsOnline(root)).to.equal(null);
    const empty = await tree({ 'class/.keep': '' });
    expect(await readMainsOnline(empty)).to.equal(null);
  });

  it('is unavailable when the adapter state cannot be read', async () => {
    const root = await tree({ 'class/power_supply/AC/type': 'Mains' });
    const result = await readMainsOnline(root);
    expect(result).to.not.equal(null);
    expect(result!.ok).to.equal(false);
    if (result && !result.ok) expect(result.reason).to.equal('mains adapter state unreadable (AC: ENOENT)');
  });
});
