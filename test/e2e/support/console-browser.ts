// The console in headless Chromium (the one ./chromium.ts picks, driven by playwright-core) for the console's tests:
// the console built, the browser launched, a page that records script errors, a run opened by id
// and token. Screenshots go to test/e2e/.artifacts/ (gitignored).
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { chromiumLaunchOptions } from "./chromium";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const ARTIFACTS = fileURLToPath(new URL("../.artifacts/", import.meta.url));
export const WAIT = { timeout: 20_000 };

/** Builds the console's assets (before `wrangler dev` serves them). */
export function buildConsole(): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  execFileSync(process.execPath, ["scripts/build-console.mjs"], { cwd: ROOT, stdio: "inherit" });
}

export function launchChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { ...chromiumLaunchOptions(), viewport: { width: 1280, height: 900 } });
}

export async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? "").trim();
}

/** A new page on the console (phone-sized with `phone`), with the script errors it reports: a test expects none. */
export async function consolePage(browser: BrowserContext, base: string, { phone = false } = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  if (phone) await page.setViewportSize({ width: 390, height: 844 });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  await page.goto(`${base}/console/`);
  return { page, errors };
}

/** Opens a run in the console's run panel by its id and a token. */
export async function openRun(page: Page, id: string, token: string): Promise<void> {
  await page.getByLabel("Run id").fill(id);
  await page.getByLabel(/^Run token/).fill(token);
  await page.getByRole("button", { name: "Open", exact: true }).click();
}

/**
 * How many distinct colours a PNG screenshot holds, decoded by Chromium itself on a blank page
 * (createImageBitmap, then the pixels of an OffscreenCanvas): 1 means the picture is one flat colour.
 */
export async function screenshotColours(browser: BrowserContext, png: Buffer): Promise<{ width: number; height: number; colours: number }> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (base64) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext("2d")!;
      context.drawImage(bitmap, 0, 0);
      const data = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
      const seen = new Set<number>();
      for (let i = 0; i < data.length; i += 4) seen.add(((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!) >>> 0);
      return { width: bitmap.width, height: bitmap.height, colours: seen.size };
    }, png.toString("base64"));
  } finally {
    await page.close();
  }
}
