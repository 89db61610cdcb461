/**
 * Test helper: opens a local HTML file in Debian's headless Chromium through playwright-core
 * (no downloaded browser), started as this machine needs it (no sandbox as root, no GPU, no
 * background networking; playwright gives it a fresh profile directory), and returns what a
 * person would notice: console errors and warnings, uncaught page errors, requests other than
 * the page itself, a full-page screenshot, and facts read from the DOM.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

/** Debian's chromium package installs here (.ci/run installs it). */
export const CHROMIUM = process.env.ORDERGAP_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface PageVisit<T> {
  consoleMessages: { type: string; text: string }[];
  pageErrors: string[];
  /** URLs requested besides the page itself. */
  otherRequests: string[];
  screenshot: Buffer;
  facts: T;
}

/** Opens `file`, waits for load, screenshots the whole page, and evaluates `facts` in it. */
export async function visit<T>(
  file: string,
  facts: () => T,
  viewport = { width: 1200, height: 900 },
): Promise<PageVisit<T>> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install chromium (.ci/run does)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport });
    const url = pathToFileURL(file).href;
    const consoleMessages: { type: string; text: string }[] = [];
    const pageErrors: string[] = [];
    const otherRequests: string[] = [];
    page.on('console', (m) => consoleMessages.push({ type: m.type(), text: m.text() }));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => {
      if (r.url() !== url) otherRequests.push(r.url());
    });
    await page.goto(url, { waitUntil: 'load' });
    const result = await page.evaluate(facts);
    const screenshot = await page.screenshot({ fullPage: true, type: 'png' });
    return { consoleMessages, pageErrors, otherRequests, screenshot, facts: result };
  } finally {
    await browser.close();
  }
}
