// Which Chromium the browser tests drive, and how they launch it. The e2e project's global setup
// (./chromium-setup.ts) picks it once per run and hands it to every file: the binary named by
// CHROMIUM_PATH; else the machine's own Chromium where it has one; else the one the
// `@sparticuz/chromium` devDependency ships inside its npm package (Linux x64), unpacked once.
import type { LaunchOptions } from "playwright-core";
import { inject, it } from "vitest";

/** The environment variable that names the Chromium (or Chrome) binary the browser tests drive. */
export const CHROMIUM_PATH = "CHROMIUM_PATH";

/** Where a machine's own Chromium is, first found first: Debian's package, then Ubuntu's name for it. */
export const MACHINE_CHROMIUMS = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/**
 * The flags every launch gets, whichever binary: no sandbox (as root Chromium will not start with
 * one), and none of Chromium's own connections (updates, sync, QUIC probes), which a machine with
 * no network but loopback would only refuse. The packaged binary's suggested `args` are for AWS
 * Lambda: one process and web security off, which would void the CORS test; it runs without them.
 */
export const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export type ChromiumPick =
  | { readonly kind: "env"; readonly path: string }
  | { readonly kind: "machine"; readonly path: string }
  | { readonly kind: "packaged" };

/** What the global setup hands the test files (inject("chromium")). */
export type ChromiumChoice = {
  /** Undefined where no Chromium could be used: `summary` says why, and every launch fails with it. */
  readonly executablePath: string | undefined;
  /**
   * Whether this Chromium shows notifications, found by asking it (./chromium-setup.ts): the
   * packaged one is a headless shell, with no notification service, so a page granted the
   * permission still reads "denied" and a service worker's showNotification fails.
   */
  readonly notifications: boolean;
  /** The line the suite prints once: which Chromium, its version and where it came from. */
  readonly summary: string;
};

/**
 * Picks the browser: CHROMIUM_PATH when set (it must exist: a wrong path is an error, never a
 * quiet fall-back), else the first of MACHINE_CHROMIUMS present, else the packaged one, which
 * exists only for Linux x64.
 */
export function pickChromium(input: { env: Record<string, string | undefined>; exists: (path: string) => boolean; platform: string; arch: string }): ChromiumPick {
  const named = input.env[CHROMIUM_PATH];
  if (named !== undefined && named !== "") {
    if (!input.exists(named)) throw new Error(`${CHROMIUM_PATH} is ${named}, which does not exist: point it at a Chromium or Chrome binary, or unset it.`);
    return { kind: "env", path: named };
  }
  const machine = MACHINE_CHROMIUMS.find((path) => input.exists(path));
  if (machine !== undefined) return { kind: "machine", path: machine };
  if (input.platform !== "linux" || input.arch !== "x64") {
    throw new Error(`No Chromium for the browser tests: none at ${MACHINE_CHROMIUMS.join(" or ")}, and the packaged one (@sparticuz/chromium) runs on Linux x64 only, not ${input.platform} ${input.arch}. Set ${CHROMIUM_PATH} to a Chromium or Chrome binary.`);
  }
  return { kind: "packaged" };
}

/** The Chromium of this run, as the global setup chose it. */
export function chromiumChoice(): ChromiumChoice {
  return inject("chromium");
}

/** playwright-core's launch options for the chosen Chromium; throws the reason where there is none. */
export function chromiumLaunchOptions(): LaunchOptions {
  const { executablePath, summary } = chromiumChoice();
  if (executablePath === undefined) throw new Error(summary);
  return { executablePath, headless: true, args: CHROMIUM_FLAGS };
}

/** What a test that this Chromium cannot run says to install instead (README.md, "Set up"). */
const FULL_CHROMIUM = `install Debian's chromium (apt-get install chromium) or set ${CHROMIUM_PATH} to a Chromium or Chrome`;

/**
 * A test that needs the browser to show notifications. On a Chromium that cannot (the packaged
 * one), it is a skip whose name says why and what to install, never a silent one.
 */
export function itShowingNotifications(name: string, test: () => Promise<void>): void {
  const { executablePath, notifications } = chromiumChoice();
  // With no Chromium at all the test runs, and fails on the reason, like every other browser test.
  if (notifications || executablePath === undefined) it(name, test);
  else it.skip(`${name}: not run, this Chromium shows no notifications; ${FULL_CHROMIUM} to run it`, () => undefined);
}
