// The README's first command on a fresh clone: `npm start` writes .dev.vars from
// .dev.vars.example (and never overwrites one), serves the API with the local token and the
// console, on local Durable Object storage; and stopping it (SIGINT, as Ctrl-C sends, or SIGTERM,
// sent to npm alone as a process manager does) stops wrangler and workerd with it: npm exits, the
// port is free, and no process of its group is left.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { portReleased, processGroupGone, snapshotProject, waitUntilListening } from "./support/dev-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { freePort } from "./support/http-server";

const snapshot = snapshotProject();
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  snapshot.remove();
});

/** `npm start` in the snapshot on `port`, in a process group of its own (npm, wrangler, workerd), once it answers. */
async function npmStart(port: number): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn("npm", ["start", "--", "--port", String(port), "--inspector-port", String(await freePort()), "--ip", "127.0.0.1", "--show-interactive-dev-session=false"], {
    cwd: snapshot.dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  started.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(url, { child, output: () => output, timeoutMs: 90_000, name: "npm start" });
  return { child, url, output: () => output };
}

/** What is left of the group, for a failure's message. */
function groupLeft(pgid: number): string {
  try {
    return execFileSync("ps", ["-o", "pid,cmd", "-g", String(pgid)], { encoding: "utf8" });
  } catch {
    return "(nothing)";
  }
}

/** Sends `signal` to npm alone and waits for npm to exit, then for the port and the process group to be free. */
async function stopNpm(child: ChildProcess, port: number, signal: NodeJS.Signals, output: () => string): Promise<void> {
  const exited = once(child, "exit");
  child.kill(signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`npm start did not exit within 30 s of ${signal}; its group:\n${groupLeft(child.pid!)}\n${output()}`)), 30_000);
  });
  try {
    await Promise.race([exited, deadline]);
  } finally {
    clearTimeout(timer);
  }
  await portReleased(port, 15_000);
  await processGroupGone(child.pid!, 15_000, () => groupLeft(child.pid!));
}

describe("npm start on a fresh clone", () => {
  it("writes .dev.vars, then serves the API with the local token, and the console; SIGINT to npm stops wrangler and workerd", async () => {
    const devVars = join(snapshot.dir, ".dev.vars");
    rmSync(devVars, { force: true });
    rmSync(join(snapshot.dir, "public", ".assetsignore"), { force: true });
    const port = await freePort();
    const { child, url, output } = await npmStart(port);

    expect(readFileSync(devVars, "utf8")).toBe(readFileSync(join(snapshot.dir, ".dev.vars.example"), "utf8"));
    const created = await fetch(`${url}/v1/runs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${LOCAL_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(created.status).toBe(201);
    expect((await created.json()) as { run: { provider: string } }).toMatchObject({ run: { provider: "scripted" } });
    expect((await fetch(`${url}/console/`)).status).toBe(200);
    expect(existsSync(join(snapshot.dir, ".wrangler", "state"))).toBe(true);

    await stopNpm(child, port, "SIGINT", output);
  }, 180_000);

  it("SIGTERM to npm stops wrangler and workerd too", async () => {
    const port = await freePort();
    const { child, output } = await npmStart(port);
    await stopNpm(child, port, "SIGTERM", output);
  }, 180_000);

  it("leaves an existing .dev.vars alone", async () => {
    const { ensureDevVars } = (await import("../../scripts/dev-vars.mjs")) as { ensureDevVars: (dir: string) => boolean };
    const devVars = join(snapshot.dir, ".dev.vars");
    writeFileSync(devVars, "API_TOKEN=mine\n");
    expect(ensureDevVars(snapshot.dir)).toBe(false);
    expect(readFileSync(devVars, "utf8")).toBe("API_TOKEN=mine\n");
    rmSync(devVars);
    expect(ensureDevVars(snapshot.dir)).toBe(true);
    expect(existsSync(devVars)).toBe(true);
  });
});
