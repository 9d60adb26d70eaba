// The one way the end-to-end checks and benchmarks start `wrangler dev`: a real process in its own
// process group (so SIGKILL takes workerd too), on local persisted storage, waited for until it
// answers. Long runs start it from a snapshot of the project: wrangler dev watches its sources and
// reloads the runtime when one changes, which aborts every Durable Object mid-step; a snapshot
// keeps an edit made elsewhere in the working tree during a run (by an editor, another engineer)
// from turning into a fault the test did not ask for. The snapshot is the Worker's inputs only;
// node_modules is linked, not copied. Short checks may run it in the working tree itself.
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll } from "vitest";
import { changes } from "./changes";
import { localVars } from "./local-vars";
import { bindable, freePort } from "./http-server";

/** What wrangler dev never reads. */
const LEFT_OUT = new Set(["node_modules", ".git", ".wrangler", "test", "bench", ".bench-tmp", "dist"]);

export type Snapshot = { dir: string; remove: () => void };

export function snapshotProject(root = process.cwd()): Snapshot {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-snapshot-"));
  for (const name of readdirSync(root)) {
    if (!LEFT_OUT.has(name)) cpSync(resolve(root, name), join(dir, name), { recursive: true });
  }
  symlinkSync(resolve(root, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The lines of a `wrangler dev` log that report an uncaught error (the runtime's "Uncaught …"). */
export function uncaughtLines(output: string): string[] {
  return output.split("\n").filter((line) => /\bUncaught\b/.test(line)).map((line) => line.replace(/\x1b\[[0-9;]*m/g, "").trim());
}

export type DevServer = {
  url: string;
  child: ChildProcess;
  /** The process group (wrangler's node processes and workerd). */
  pgid: number;
  output: () => string;
  /** Resolves once `check(output())` holds, checked again on each chunk the process writes; fails after `timeoutMs`. */
  outputUntil: (check: (output: string) => boolean, timeoutMs: number, message: () => string) => Promise<void>;
  /**
   * SIGKILL to the whole process group: a crash, nothing is flushed. It rejects (after the kill)
   * when the log so far holds an uncaught error, so no e2e test passes on a log with one.
   */
  kill: () => Promise<void>;
};

/**
 * `cwd`: where wrangler dev runs, a snapshot's dir (snapshotProject) or, by default, the working
 * tree. logLevel "log" shows the Worker's own console.log lines in output(); "warn" (the default)
 * keeps the output small.
 */
export type DevOptions = { port: number; persistTo: string; cwd?: string; vars?: Record<string, string>; startTimeoutMs?: number; logLevel?: "warn" | "log" };

export async function startDevServer({ port, persistTo, cwd = process.cwd(), vars = {}, startTimeoutMs = 90_000, logLevel = "warn" }: DevOptions): Promise<DevServer> {
  // The inspector's port too: left to wrangler it is 9229 when that is free, and two wrangler devs
  // started at once both take it, the second failing "Address already in use (socket direct:1:default)".
  const args = ["wrangler", "dev", "--port", String(port), "--inspector-port", String(await freePort()), "--ip", "127.0.0.1", "--persist-to", persistTo, "--log-level", logLevel, "--show-interactive-dev-session=false"];
  for (const [name, value] of Object.entries({ ...localVars(), ...vars })) args.push("--var", `${name}:${value}`);
  const child = spawn("npx", args, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } });
  let output = "";
  const written = changes();
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
    written.changed();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      return;
    }
    await exited;
    // workerd is a grandchild: the npx child's exit does not say its socket is closed. A restart on
    // the same port (the crash tests) waits until it is.
    await portReleased(port, 30_000);
  };
  const kill = async () => {
    await stop();
    const uncaught = uncaughtLines(output);
    if (uncaught.length > 0) throw new Error(`The wrangler dev log holds ${uncaught.length} uncaught error(s):\n${uncaught.slice(0, 5).join("\n")}`);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilListening(url, { child, output: () => output, timeoutMs: startTimeoutMs, name: "wrangler dev" });
  } catch (error) {
    await stop();
    throw error;
  }
  const outputUntil = (check: (output: string) => boolean, timeoutMs: number, message: () => string) => written.until(() => check(output), timeoutMs, message);
  return { url, child, pgid: child.pid!, output: () => output, outputUntil, kill };
}

/**
 * Waits until nothing listens on `port` of 127.0.0.1 (a killed process group's workerd takes a
 * moment to go, longer on a loaded machine). Like the health check below, it asks again on a timer,
 * and on purpose: no process tells anyone when another one's socket closes.
 */
export async function portReleased(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await bindable(port)) return;
    if (Date.now() > deadline) throw new Error(`Port ${port} is still in use ${timeoutMs} ms after its server was killed.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until no process is left in process group `pgid` (a stopped `npm start`'s wrangler, its
 * workerd and esbuild take a moment to go after npm itself exited). It asks again on a timer, as
 * portReleased does, and for the same reason: no process tells anyone when another one is gone.
 */
export async function processGroupGone(pgid: number, timeoutMs: number, left: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`Process group ${pgid} still has processes ${timeoutMs} ms after npm exited:\n${left()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until a process just started (wrangler dev, `npm start`) answers GET /v1/health (with a 2xx,
 * or as `answered` accepts: a tool server of the docs answers 401 to anything unsigned).
 *
 * The one wait in the tests that asks again on a timer, and on purpose: a process that is not
 * listening yet cannot tell anyone when it starts to, and a refused connection is all there is to
 * see. Every other wait waits on an event (a run's event stream, a fake server's change, a line of
 * output); keep this the only exception.
 */
export async function waitUntilListening(
  url: string,
  { child, output, timeoutMs, name, answered = (response) => response.ok }: { child: ChildProcess; output: () => string; timeoutMs: number; name: string; answered?: (response: Response) => boolean },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited early:\n${output()}`);
    try {
      if (answered(await fetch(`${url}/v1/health`))) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * For a describe whose test SIGKILLs `wrangler dev` and starts it again on the same storage: a
 * snapshot of the project and a state folder of its own, the server that is up killed and both
 * removed after all. `start` starts a server on them (after a kill, again on what the last one kept).
 */
export function restartableDev(prefix: string): { start(port: number): Promise<DevServer> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const snapshot = snapshotProject();
  let dev: DevServer | undefined;
  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(dir, { recursive: true, force: true });
  });
  return { start: async (port) => (dev = await startDevServer({ port, persistTo: dir, cwd: snapshot.dir })) };
}
