// One describe block's console set-up: the console built, a `wrangler dev` on its own storage and a
// Chromium profile, started before the block's tests and removed after them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { buildConsole, launchChromium } from "./console-browser";
import { freePort } from "./free-port";
import { startDevServer, type DevServer } from "./dev-server";

export type ConsoleFixture = { readonly dev: DevServer; readonly browser: BrowserContext };

/** Call inside a describe block; read `dev` and `browser` in its tests. */
/** `port`: a number, or "free" for one the OS gives when the fixture starts. */
export function consoleFixture(name: string, port: number | "free"): ConsoleFixture {
  const state = mkdtempSync(join(tmpdir(), `ratchet-${name}-`));
  const profile = mkdtempSync(join(tmpdir(), `ratchet-chromium-${name}-`));
  let dev: DevServer | undefined;
  let browser: BrowserContext | undefined;
  beforeAll(async () => {
    buildConsole();
    dev = await startDevServer({ port: port === "free" ? await freePort() : port, persistTo: state });
    browser = await launchChromium(profile);
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.kill();
    rmSync(state, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });
  return {
    get dev() {
      if (dev === undefined) throw new Error("wrangler dev is not started (use the fixture inside a test)");
      return dev;
    },
    get browser() {
      if (browser === undefined) throw new Error("Chromium is not launched (use the fixture inside a test)");
      return browser;
    },
  };
}
