/**
 * The README's screenshots (docs/screenshots/*.png): a real service on a temporary embedded database watching a
 * folder (default ../shared/datasets/formats, 107 documents of 24 formats), and the web app in Chromium.
 * `npm run docs:screenshots [-- DIR]`. Needs a built app (npm run build) and Debian's chromium.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { packageRoot } from '../src/paths.js';
import { startService } from '../src/service.js';
import { launchBrowser } from './lib/chromium.js';

const folder = path.resolve(process.argv[2] ?? path.join(packageRoot, '..', 'shared', 'datasets', 'formats'));
const out = path.join(packageRoot, 'docs', 'screenshots');

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json' } });
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function idle(base: string): Promise<void> {
  for (;;) {
    const { runs } = await json<{ runs: unknown[] }>(`${base}/api/index/runs`);
    const { jobs } = await json<{ jobs: { last_scan: string | null }[] }>(`${base}/api/watch/jobs`);
    if (runs.length === 0 && jobs.every((j) => j.last_scan !== null)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(400); // let the last answer paint
  await page.screenshot({ path: path.join(out, `${name}.png`) });
  console.log(`docs/screenshots/${name}.png`);
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'filesift-screens-'));
const config = loadConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0', FILESIFT_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '' });
const service = await startService(config, { logger: createLogger('warn') });
const browser = await launchBrowser();
try {
  await mkdir(out, { recursive: true });
  const base = service.url;
  await json(`${base}/api/watch/`, { method: 'POST', body: JSON.stringify({ directory_path: folder }) });
  await idle(base);

  const page = await browser.page({ width: 1200, height: 760 });
  await page.goto(`${base}/#/search`);
  await page.locator('#search-box').pressSequentially('quick brown fox');
  await page.locator('ol.results > li').first().waitFor();
  await shot(page, 'search');
  await page.locator('#search-box').press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.locator('aside.preview pre.file-text').waitFor();
  await shot(page, 'preview');

  // A forced re-index, caught while it runs.
  await page.goto(`${base}/#/folders`);
  await page.locator('h1').waitFor();
  await json(`${base}/api/index/directory`, { method: 'POST', body: JSON.stringify({ directory_path: folder, force: true }) });
  await page.locator('li.run .percent', { hasText: /^([1-9]|[1-8]\d) %$/ }).waitFor({ timeout: 60_000 });
  await shot(page, 'folders');
  await idle(base);

  await page.goto(`${base}/#/status`);
  await page.locator('.card').first().waitFor();
  await shot(page, 'status');

  await page.goto(`${base}/#/filters`);
  await page.getByLabel('Why is this file (not) indexed?').fill(path.join(folder, 'node_modules', 'left-pad', 'README.md'));
  await page.getByRole('button', { name: 'Test', exact: true }).click();
  await page.locator('.test-answer').waitFor();
  await shot(page, 'filters');

  // Two rules to show their live verdicts (the scheduler stays off: it never pauses the queue here).
  await json(`${base}/api/queue/scheduler`, {
    method: 'PUT',
    body: JSON.stringify({ rules: [{ rule: 'power_source', operator: '==', value: true }, { rule: 'cpu_percent', operator: '<=', value: 80 }] }),
  });
  await page.goto(`${base}/#/scheduler`);
  await page.locator('.verdict').first().waitFor();
  await shot(page, 'scheduler');

  const phone = await browser.page({ width: 360, height: 720, colorScheme: 'dark' });
  await phone.goto(`${base}/#/search?q=quick%20brown%20fox`);
  await phone.locator('ol.results > li').first().waitFor();
  await shot(phone, 'search-phone-dark');
} finally {
  await browser.close();
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
}
