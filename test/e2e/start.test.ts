// The README's first command on a fresh clone: `npm start` writes .dev.vars from
// .dev.vars.example (and never overwrites one), serves the API with the local token and the
// console, on local Durable Object storage.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { snapshotProject, waitUntilListening } from "./support/dev-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { freePort } from "./support/http-server";

const PORT = await freePort();
const snapshot = snapshotProject();
let kill: (() => void) | undefined;

afterAll(() => {
  kill?.();
  snapshot.remove();
});

describe("npm start on a fresh clone", () => {
  it("writes .dev.vars, then serves the API with the local token, and the console", async () => {
    const devVars = join(snapshot.dir, ".dev.vars");
    rmSync(devVars, { force: true });
    rmSync(join(snapshot.dir, "public", ".assetsignore"), { force: true });
    const child = spawn("npm", ["start", "--", "--port", String(PORT), "--inspector-port", String(await freePort()), "--ip", "127.0.0.1", "--show-interactive-dev-session=false"], {
      cwd: snapshot.dir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    kill = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Gone already.
      }
    };
    const url = `http://127.0.0.1:${PORT}`;
    await waitUntilListening(url, { child, output: () => output, timeoutMs: 90_000, name: "npm start" });

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
  });

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
