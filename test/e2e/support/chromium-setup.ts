// The e2e project's global setup: picks the Chromium of the browser tests once (./chromium.ts),
// unpacks the packaged one where it is the pick, asks it what it can do, says which it is, and
// hands it to every file.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { CHROMIUM_FLAGS, CHROMIUM_PATH, pickChromium, type ChromiumChoice } from "./chromium";
import { listen, shut } from "./http-server";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * The binary of `@sparticuz/chromium`, unpacked (brotli, a second or two) into a folder of the
 * temporary directory named for the package's version, kept for later runs. The package itself
 * unpacks to the fixed `<tmpdir>/chromium` and takes any file there as done, even one half written
 * by a run that was stopped, or by a second run beside it; so it unpacks here into a folder of its
 * own, in a child process whose TMPDIR is that folder, which is then renamed into place whole.
 */
function unpackPackagedChromium(): string {
  const { version } = JSON.parse(readFileSync(join(ROOT, "node_modules/@sparticuz/chromium/package.json"), "utf8")) as { version: string };
  const target = join(tmpdir(), `ratchet-chromium-${version}`);
  const binary = join(target, "chromium");
  if (existsSync(binary)) return binary;
  // A folder left without its binary (a cleaner of old temporary files) is made again.
  rmSync(target, { recursive: true, force: true });
  const staging = mkdtempSync(`${target}.partial-`);
  try {
    const script = 'import Chromium from "@sparticuz/chromium"; await Chromium.executablePath();';
    execFileSync(process.execPath, ["--input-type=module", "--eval", script], { cwd: ROOT, env: { ...process.env, TMPDIR: staging }, stdio: "inherit" });
    renameSync(staging, target);
  } catch (error) {
    // Another run may have put its copy in place first; only a missing binary is a failure.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(binary)) throw error;
  }
  return binary;
}

/** Whether a page of a local origin granted the permission may show notifications in this Chromium. */
async function showsNotifications(executablePath: string): Promise<boolean> {
  const server = createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>probe</title>"));
  const origin = `http://127.0.0.1:${await listen(server)}`;
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
  try {
    const context = await browser.newContext();
    await context.grantPermissions(["notifications"], { origin });
    const page = await context.newPage();
    await page.goto(origin);
    return (await page.evaluate(() => Notification.permission)) === "granted";
  } finally {
    await browser.close();
    await shut(server);
  }
}

/** The Chromium of this machine, what it can do, and the line that says so. */
async function chooseChromium(): Promise<ChromiumChoice> {
  const pick = pickChromium({ env: process.env, exists: existsSync, platform: process.platform, arch: process.arch });
  const executablePath = pick.kind === "packaged" ? unpackPackagedChromium() : pick.path;
  const version = execFileSync(executablePath, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  const notifications = await showsNotifications(executablePath);
  const from = { env: `named by ${CHROMIUM_PATH}`, machine: "the machine's own", packaged: `packaged in @sparticuz/chromium (no ${CHROMIUM_PATH}, no /usr/bin/chromium)` }[pick.kind];
  const can = notifications ? "it shows notifications" : "it shows no notifications, so the tests that need them (the console's push tests) are skipped, each saying why in its name";
  return { executablePath, notifications, summary: `the browser tests drive ${version} at ${executablePath}, ${from}; ${can}.` };
}

export default async function setup(project: TestProject): Promise<void> {
  // No usable Chromium fails the browser files, each with this reason, and lets the others run.
  const choice = await chooseChromium().catch((error: unknown): ChromiumChoice => ({
    executablePath: undefined,
    notifications: false,
    summary: `no Chromium for the browser tests: ${error instanceof Error ? error.message : String(error)}`,
  }));
  console.log(`e2e: ${choice.summary}`);
  project.provide("chromium", choice);
}
