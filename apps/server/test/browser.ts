/** What the inspector's browser tests share: Debian's Chromium, where screenshots go, and when the tests skip. */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');

/** True (with a warning) when Chromium is missing outside CI; in CI a missing browser fails the test instead. */
export function browserSkipped(what: string): boolean {
  const skip = !existsSync(CHROMIUM) && !process.env.CI;
  if (skip)
    console.warn(
      `SKIPPED ${what}: ${CHROMIUM} is missing (apt-get install -y chromium). In CI (env CI set) it runs and fails instead.`,
    );
  return skip;
}

/** Headless Chromium with nothing of its own on the network, and the screenshot folder made. */
export function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
