/**
 * Test helper: opens a local HTML file in a headless Chromium through playwright-core — the
 * binary that ships inside the @sparticuz/chromium npm package (so `npm install && npm test`
 * needs no system browser and no download), or the one named by ORDERGAP_CHROMIUM — started as
 * this machine needs it (no sandbox as root, no GPU, no
 * background networking; playwright gives it a fresh profile directory), and returns what a
 * person would notice: console errors and warnings, uncaught page errors, requests other than
 * the page itself, a full-page screenshot, and facts read from the DOM.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import packagedChromium from '@sparticuz/chromium';
import { chromium } from 'playwright-core';
import { expect } from 'vitest';
import { decodePng, inkStats } from '../plot/png.js';

/**
 * The Chromium executable: ORDERGAP_CHROMIUM if set, else the npm package's own binary
 * (unpacked to the temp folder on first use).
 */
export async function chromiumExecutable(): Promise<string> {
  const own = process.env.ORDERGAP_CHROMIUM;
  if (own !== undefined) {
    if (!existsSync(own)) throw new Error(`ORDERGAP_CHROMIUM = ${own}: no such file`);
    return own;
  }
  return packagedChromium.executablePath();
}

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
  const browser = await chromium.launch({
    executablePath: await chromiumExecutable(),
    headless: true,
    args: CHROMIUM_ARGS,
  });
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

/** What every rendered page must show: no page errors, no console errors or warnings, no request but the page. */
export function expectCleanPage(v: PageVisit<unknown>): void {
  expect(v.pageErrors).toEqual([]);
  expect(v.consoleMessages.filter((m) => m.type === 'error' || m.type === 'warning')).toEqual([]);
  expect(v.otherRequests).toEqual([]);
}

/**
 * The full-page screenshot is the default 1200-px viewport wide and not blank: more than 2% of
 * its pixels are ink and its luma varies (variance > 50 in 8-bit units; a blank page has 0).
 */
export function expectInkedScreenshot(v: PageVisit<unknown>): void {
  const png = decodePng(v.screenshot);
  expect(png.width).toBe(1200);
  const ink = inkStats(png.rgba);
  expect(ink.inkFraction).toBeGreaterThan(0.02);
  expect(ink.lumaVariance).toBeGreaterThan(50);
}
