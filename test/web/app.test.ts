/**
 * The web app in a real browser (Debian's Chromium through playwright-core) against a real service: watch a
 * folder and see its progress reach 100 %, a bad path's message, search with facets, keyboard and paging,
 * preview with marked words and the copy button, the filters test, pause and resume, settings validation, the
 * token prompt, and a 360 px wide screen.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { eventually } from '../helpers/assert.js';
import { launchBrowser, type ChromiumBrowser } from '../../scripts/lib/chromium.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const WAIT = 30_000;

/** Text files about lighthouses (more than one page of results), a few others, a secret and a broken PDF. */
function corpus(): Record<string, string> {
  const files: Record<string, string> = {
    'notes/garden.md': '# Garden plans\n\nPlant tomatoes and basil along the south fence in May.',
    'notes/bakery.txt': 'Quarterly revenue of the bakery grew because sourdough bread sold well.',
    'letters/keeper.md': '# Letter to the keeper\n\nThe lighthouse lamp needs a new wick before the winter storms.',
    'broken.pdf': '%PDF-1.7\nthis is not really a pdf',
    '.env': 'SECRET=1',
  };
  for (let i = 0; i < 60; i++) files[`log/entry-${String(i).padStart(2, '0')}.txt`] = `Log entry ${i}: the lighthouse beam swept the bay all night.`;
  return files;
}

describe('web app (Chromium)', function () {
  this.timeout(120_000);
  let t: TestService;
  let tree: TempTree;
  let browser: ChromiumBrowser;
  let page: Page;

  before(async () => {
    [t, tree, browser] = await Promise.all([startTestService('pglite'), tempTree(corpus()), launchBrowser()]);
    page = await browser.page();
  });
  after(async () => {
    await browser?.close();
    await t?.destroy();
    await tree?.remove();
  });

  const open = async (screen: string) => {
    await page.goto(`${t.url}/#/${screen}`);
    await page.locator('h1, #search-box').first().waitFor({ timeout: WAIT });
  };

  it('is served at / with a strict content policy and no request leaving the machine', async () => {
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url)) outside.push(r.url());
    });
    const res = await page.goto(`${t.url}/`);
    expect(res?.status()).to.equal(200);
    expect(res?.headers()['content-security-policy']).to.match(/default-src 'self'/);
    await page.locator('#search-box').waitFor({ timeout: WAIT });
    expect(await page.title()).to.equal('filesift');
    expect(outside).to.deep.equal([]);
  });

  it('watches a folder and shows its progress reach 100 % of the real total', async () => {
    await open('folders');
    await page.getByLabel('Watch a folder').fill(tree.root);
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.getByRole('status').filter({ hasText: `Watching ${tree.root}` }).waitFor({ timeout: WAIT });
    const card = page.locator('li.run').filter({ hasText: tree.root });
    await card.locator('.percent', { hasText: '100 %' }).waitFor({ timeout: WAIT });
    // 64 files: the .env is excluded by the default filters; the broken PDF is counted, and failed.
    await card.getByText('64 of 64 files').waitFor({ timeout: WAIT });
    await card.getByText(/done in/).waitFor({ timeout: WAIT });
    await card.getByText('1 failed').waitFor();
    await card.locator('summary', { hasText: '1 failure' }).click();
    await card.getByText(/broken\.pdf/).waitFor();
    await page.locator('.cards code.path', { hasText: tree.root }).waitFor();
  });

  it("shows the API's own message for a bad path, beside the field", async () => {
    await open('folders');
    const field = page.getByLabel('Watch a folder');
    for (const bad of ['relative/folder', `${tree.root}/no-such-folder`, tree.path('notes/garden.md')]) {
      const expected = (await t.request('POST', '/api/watch/', { directory_path: bad })).body.message as string;
      await field.fill(bad);
      await page.getByRole('button', { name: 'Watch' }).click();
      await page.locator('#folder-error', { hasText: expected }).waitFor({ timeout: WAIT });
      expect(await field.getAttribute('aria-invalid')).to.equal('true');
    }
  });

  it('searches as you type, narrows by a facet, moves by keyboard, previews with marked words and copies the path', async () => {
    await eventually(async () => (await t.request('GET', '/api/files/stats')).body.total_files === 63, WAIT);
    await open('search');
    await page.getByText('Keyword', { exact: true }).click(); // only files with the word: a known count
    await page.locator('#search-box').pressSequentially('lighthouse');
    const results = page.locator('ol.results > li');
    await results.first().waitFor({ timeout: WAIT });
    await page.getByText(/50\+ results/).waitFor({ timeout: WAIT });
    expect(await page.locator('ol.results mark').first().textContent()).to.match(/^lighthouse$/i);

    // More results beyond the first 50.
    await page.getByRole('button', { name: 'More results' }).click();
    await page.getByText(/^61 results/).waitFor({ timeout: WAIT });

    // A facet narrows the search: only the one .md file.
    await page.locator('.facets button.facet', { hasText: 'md' }).click();
    await page.getByText(/^1 result /).waitFor({ timeout: WAIT });
    expect(await results.count()).to.equal(1);
    await page.getByRole('button', { name: /Remove the filter: extension md/ }).waitFor();

    // Keyboard: down from the box to the result, Enter previews it.
    await page.locator('#search-box').press('ArrowDown');
    expect(await page.evaluate('document.activeElement?.textContent')).to.equal('Letter to the keeper');
    await page.keyboard.press('Enter');
    const preview = page.locator('aside.preview');
    await preview.locator('pre.file-text mark', { hasText: 'lighthouse' }).waitFor({ timeout: WAIT });
    await preview.getByText(/1 match marked/).waitFor();
    await preview.getByText('Letter to the keeper').first().waitFor();
    await preview.getByRole('button', { name: 'Copy path' }).click();
    await preview.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(tree.path('letters/keeper.md'));

    // Escape closes it and gives the focus back to the result.
    await page.keyboard.press('Escape');
    await preview.waitFor({ state: 'detached' });
    // The focus comes back in the render after the preview closes: wait for it rather than read it at once. Polled
    // from here: waitForFunction evaluates its predicate with eval in the page, which the app's CSP forbids.
    await eventually(async () => (await page.evaluate('document.activeElement?.textContent')) === 'Letter to the keeper', WAIT);
    // '/' goes back to the box.
    await page.keyboard.press('/');
    expect(await page.evaluate('document.activeElement?.id')).to.equal('search-box');
  });

  it("previews a failed file with its failure reason", async () => {
    const [known] = await t.service.store.api.files.known([tree.path('broken.pdf')]);
    await page.goto(`${t.url}/#/search?q=broken&file=${known!.id}`);
    const reason = (await t.request('GET', `/api/files/${known!.id}`)).body;
    await page.locator('aside.preview').getByText(`Indexing failed (${String(reason.error_code)}): ${String(reason.error)}`).waitFor({ timeout: WAIT });
    await page.locator('aside.preview').getByText('This file has no extracted text.').waitFor();
  });

  it('explains why a file is not indexed, and shows why a pattern is refused', async () => {
    await open('filters');
    await page.getByLabel('Why is this file (not) indexed?').fill(tree.path('.env'));
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const answer = page.locator('.test-answer');
    await answer.getByText('Not indexed').waitFor({ timeout: WAIT });
    const expected = (await t.request('POST', '/api/filters/test', { path: tree.path('.env') })).body.reason as string;
    await answer.getByText(expected).waitFor();

    await page.getByLabel('Add a pattern to Excluded').fill('*.{pdf');
    await page.getByLabel('Add a pattern to Excluded').press('Enter');
    await page.getByRole('alert').filter({ hasText: "Invalid pattern '*.{pdf': unclosed '{'" }).waitFor({ timeout: WAIT });
  });

  it('pauses and resumes the queue', async () => {
    await open('queue');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused by hand').waitFor({ timeout: WAIT });
    expect((await t.request('GET', '/api/queue/status')).body).to.include({ paused: true, manually_paused: true });
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Running').waitFor({ timeout: WAIT });
    expect((await t.request('GET', '/api/queue/status')).body).to.include({ paused: false, manually_paused: false });
  });

  it("shows the settings API's validation message beside the field, and saves a valid change", async () => {
    await open('settings');
    const cooldown = page.locator('[id="queue.cooldown_seconds"]');
    await cooldown.fill('-1');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.locator('[id="queue.cooldown_seconds-error"]', { hasText: 'queue.cooldown_seconds must be a number from 0 to 86400, got -1' }).waitFor({ timeout: WAIT });
    await cooldown.fill('7');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.getByText('Saved 1 setting').waitFor({ timeout: WAIT });
    expect(((await t.request('GET', '/api/settings/')).body.queue as { cooldown_seconds: number }).cooldown_seconds).to.equal(7);
  });

  it('edits a scheduler rule and shows its live verdict', async () => {
    await open('scheduler');
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await page.getByLabel('Rule 1 type').selectOption('time_window');
    await page.getByLabel('Rule 1 value').fill('00:00-23:59');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved/).waitFor({ timeout: WAIT });
    await page.locator('.verdict', { hasText: /local time \d\d:\d\d in 00:00-23:59/ }).waitFor({ timeout: WAIT });
    const rules = (await t.request('GET', '/api/queue/scheduler')).body.rules as { rule: string; value: string }[];
    expect(rules.map((r) => [r.rule, r.value])).to.deep.equal([['time_window', '00:00-23:59']]);
  });

  it('fits a 360 px wide screen, in the dark theme too', async () => {
    const narrow = await browser.page({ width: 360, height: 740, colorScheme: 'dark' });
    for (const screen of ['search?q=lighthouse', 'folders', 'queue', 'scheduler', 'filters', 'settings', 'status']) {
      await narrow.goto(`${t.url}/#/${screen}`);
      await narrow.locator('h1, ol.results > li').first().waitFor({ timeout: WAIT });
      const width = await narrow.evaluate<number>('document.documentElement.scrollWidth');
      expect(width, screen).to.be.at.most(360);
    }
    const background = await narrow.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(background).to.equal('rgb(17, 20, 24)');
  });

  it('asks once for the token when the service has one, and keeps it for the tab', async () => {
    const guarded = await startTestService('pglite', { FILESIFT_API_TOKEN: 'tab-token-123' });
    try {
      const tab = await browser.page();
      await tab.goto(`${guarded.url}/#/status`);
      const dialog = tab.getByRole('dialog', { name: 'API token' });
      await dialog.waitFor({ timeout: WAIT });
      await dialog.getByLabel('Token').fill('tab-token-123');
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await tab.getByText('Everything is fine').waitFor({ timeout: WAIT });
      await tab.goto(`${guarded.url}/#/queue`);
      await tab.getByText('Running').waitFor({ timeout: WAIT });
      expect(await tab.getByRole('dialog', { name: 'API token' }).isVisible()).to.equal(false);
      expect(await tab.evaluate("sessionStorage.getItem('filesift.token')")).to.equal('tab-token-123');
    } finally {
      await guarded.destroy();
    }
  });
});
