// The Node tool servers of docs/http-tools.md run as written: each block is saved as its file
// (tool-server.mjs, render-server.mjs), started with node and the local TOOL_SIGNING_KEY, and
// called by a run on `wrangler dev`: the synchronous one answers the call, the async one takes the
// job (202) and posts the result to the callback, and each refuses a request that is not signed by
// the deployment (401).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, getMessages, getRun } from "./support/api";
import { snapshotProject, startDevServer, waitUntilListening, type DevServer } from "./support/dev-server";
import { blockStartingWith } from "./support/doc-blocks";
import { LOCAL_TOKEN, localVars } from "./support/local-vars";
import { watchRun } from "./support/run-watch";
import { freePort } from "./support/http-server";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PORT = await freePort();
const SIGNING_KEY = localVars().TOOL_SIGNING_KEY!;

type Server = { url: string; child: ChildProcess; output: () => string };

/** Saves docs/http-tools.md's block `// <file>` as that file and runs it with node on `port`. */
async function startExample(dir: string, file: string, port: number): Promise<Server> {
  writeFileSync(join(dir, file), blockStartingWith("docs/http-tools.md", `// ${file}`).code);
  const child = spawn(process.execPath, [file], { cwd: dir, env: { ...process.env, TOOL_SIGNING_KEY: SIGNING_KEY, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  // The examples answer 401 to anything unsigned, GET /v1/health included: that they answer is enough.
  await waitUntilListening(url, { child, output: () => output, timeoutMs: 30_000, name: file, answered: (response) => response.status === 401 });
  return { url, child, output: () => output };
}

async function finished(dev: DevServer, id: string, token: string) {
  const watch = watchRun({ base: dev.url, id, token, deadlineMs: 60_000 });
  await watch.ended;
  watch.close();
  return getRun(dev.url, id, token);
}

describe("docs/http-tools.md's Node tool servers, as written", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-tool-examples-"));
  const state = mkdtempSync(join(tmpdir(), "ratchet-tool-examples-state-"));
  const snapshot = snapshotProject(ROOT);
  const servers: Server[] = [];
  let dev: DevServer | undefined;

  beforeAll(async () => {
    // The examples import standardwebhooks, as an app that ran `npm install standardwebhooks` does.
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    dev = await startDevServer({ port: PORT, persistTo: state, cwd: snapshot.dir });
  });

  afterAll(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null) {
        const exited = once(server.child, "exit");
        server.child.kill("SIGKILL");
        await exited;
      }
    }
    await dev?.kill();
    snapshot.remove();
    rmSync(dir, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  it("tool-server.mjs answers a signed call, and refuses an unsigned or forged one with 401", async () => {
    const server = await startExample(dir, "tool-server.mjs", await freePort());
    servers.push(server);
    const body = JSON.stringify({ runId: "run_x", callId: "c", name: "lookup_order", input: { order: "A-1" } });
    expect((await fetch(`${server.url}/lookup-order`, { method: "POST", body })).status).toBe(401);
    const forged = { "webhook-id": "x", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,QFOc4q/NDVNN2x75oDgUHL3GeEmVCux885MEE042ZEA=" };
    expect((await fetch(`${server.url}/lookup-order`, { method: "POST", body, headers: forged })).status).toBe(401);

    const lookup = { type: "http", name: "lookup_order", description: "Finds an order by its number.", inputSchema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] }, url: `${server.url}/lookup-order` };
    const run = await createRun(dev!.url, LOCAL_TOKEN, {
      provider: "scripted",
      messages: [{ role: "user", content: "Where is order A-1042?" }],
      tools: [lookup],
      script: [{ toolCalls: [{ id: "t1", name: "lookup_order", input: { order: "A-1042" } }] }, { text: "It shipped on 2 July." }],
    });
    expect(await finished(dev!, run.id, run.token)).toMatchObject({ status: "finished" });
    const tool = (await getMessages(dev!.url, run.id, run.token)).find((message) => message.role === "tool");
    expect(tool).toMatchObject({ content: "Order A-1042 shipped on 2 July." });
    expect(tool?.isError).not.toBe(true);
  });

  it("render-server.mjs takes the job (202), posts the result to the callback, and the run finishes with it", async () => {
    const server = await startExample(dir, "render-server.mjs", await freePort());
    servers.push(server);
    expect((await fetch(`${server.url}/render`, { method: "POST", body: "{}" })).status).toBe(401);

    const render = {
      type: "http",
      name: "render_video",
      description: "Renders the storyboard into a video.",
      inputSchema: { type: "object", properties: { storyboard: { type: "string" } }, required: ["storyboard"] },
      url: `${server.url}/render`,
      async: true,
      timeoutSeconds: 7200,
    };
    const run = await createRun(dev!.url, LOCAL_TOKEN, {
      provider: "scripted",
      messages: [{ role: "user", content: "Render it." }],
      tools: [render],
      script: [{ toolCalls: [{ id: "r1", name: "render_video", input: { storyboard: "cat" } }] }, { text: "Here is your video." }],
    });
    expect(await finished(dev!, run.id, run.token)).toMatchObject({ status: "finished" });
    const tool = (await getMessages(dev!.url, run.id, run.token)).find((message) => message.role === "tool");
    expect(tool).toMatchObject({ content: "https://videos.example.com/cat.mp4" });
    expect(server.output()).toBe("");
  });
});
