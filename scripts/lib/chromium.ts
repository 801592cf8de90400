/**
 * A real browser for the web app's tests and its README screenshots: Debian's Chromium (installed by .ci/run)
 * driven by playwright-core.
 * The flags keep Chromium off the network (it would otherwise try its update, sync and metrics services, whose
 * connections are refused here). playwright-core gives each launch a new empty profile (--user-data-dir in a
 * temporary folder it removes), and each page its own context (storage, permissions).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.FILESIFT_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumBrowser {
  browser: Browser;
  /** A new page in a fresh context (its own storage), at the given viewport. */
  page(options?: { width?: number; height?: number; colorScheme?: 'light' | 'dark' }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<ChromiumBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does) or set FILESIFT_CHROMIUM`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async page(options = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
        colorScheme: options.colorScheme ?? 'light',
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      contexts.push(context);
      return context.newPage();
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
    },
  };
}
