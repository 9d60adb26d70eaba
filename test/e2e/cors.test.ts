// CORS in a real browser: headless Chromium (the one support/chromium.ts picks, driven by playwright-core) opens a page
// served from another origin than `wrangler dev`, and the page's own script calls the API. From
// the origin listed in CORS_ORIGINS it creates a run (a preflighted POST), reads it with its run
// token and reads an error answer; from an unlisted origin the browser refuses every read.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumLaunchOptions } from "./support/chromium";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const PORT = await freePort();
const TOKEN = "dev-token";

/** What the page's script reports for each request: the answer it could read, or the failure. */
type Attempt = { name: string; status?: number; body?: Record<string, unknown>; error?: string; message?: string };

// The page's script, run on load: the API's address and the Idempotency-Key to create its run
// with come in the page's query string.
const PAGE_SCRIPT = `
const params = new URLSearchParams(location.search);
const api = params.get("api");
async function attempt(name, send) {
  try {
    const response = await send();
    return { name, status: response.status, body: await response.json() };
  } catch (error) {
    return { name, error: error.name, message: error.message };
  }
}
async function main() {
  const results = [];
  const created = await attempt("create", () =>
    fetch(api + "/v1/runs", {
      method: "POST",
      headers: { Authorization: "Bearer ${TOKEN}", "Content-Type": "application/json", "Idempotency-Key": params.get("key") },
      body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "hi" }] }),
    }),
  );
  results.push(created);
  if (created.status === 201) {
    const { run, token } = created.body;
    results.push(await attempt("read", () => fetch(api + "/v1/runs/" + run.id, { headers: { Authorization: "Bearer " + token } })));
    results.push(await attempt("wrong-token", () => fetch(api + "/v1/runs/" + run.id, { headers: { Authorization: "Bearer not-a-token" } })));
  }
  results.push(await attempt("health", () => fetch(api + "/v1/health")));
  const out = document.getElementById("out");
  out.textContent = JSON.stringify(results);
  out.dataset.done = "true";
}
main();
`;

const PAGE = `<!doctype html><meta charset="utf-8"><title>CORS page</title><pre id="out"></pre><script type="module">${PAGE_SCRIPT}</script>`;

/** A page server on its own port, hence its own origin. */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    if (request.url?.startsWith("/?") === true) response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(PAGE);
    else response.writeHead(404).end();
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("CORS in Chromium", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-cors-"));
  let listed: { server: Server; origin: string } | undefined;
  let unlisted: { server: Server; origin: string } | undefined;
  let dev: DevServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    listed = await servePage();
    unlisted = await servePage();
    // API_TOKEN given explicitly: the test must not depend on wrangler.toml's local default.
    dev = await startDevServer({ port: PORT, persistTo: state, vars: { CORS_ORIGINS: `https://elsewhere.test, ${listed.origin}`, API_TOKEN: TOKEN } });
    browser = await chromium.launch(chromiumLaunchOptions());
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.kill();
    for (const page of [listed, unlisted]) page?.server.close();
    rmSync(state, { recursive: true, force: true });
  });

  /** Opens the page from `origin` and returns what its script could read. */
  async function runPage(origin: string, idempotencyKey: string): Promise<Attempt[]> {
    const page = await browser!.newPage();
    try {
      await page.goto(`${origin}/?${new URLSearchParams({ api: dev!.url, key: idempotencyKey })}`);
      await page.locator("#out[data-done]").waitFor({ timeout: 20_000 });
      return JSON.parse((await page.locator("#out").textContent()) ?? "[]") as Attempt[];
    } finally {
      await page.close();
    }
  }

  it("from the listed origin: the page creates a run, reads it and reads an error answer", async () => {
    const [created, read, wrongToken, health] = await runPage(listed!.origin, crypto.randomUUID());
    expect(created).toMatchObject({ name: "create", status: 201, body: { run: { status: expect.any(String) } } });
    const runId = (created!.body!.run as { id: string }).id;
    expect(read).toMatchObject({ name: "read", status: 200, body: { id: runId, provider: "scripted" } });
    expect(wrongToken).toMatchObject({ name: "wrong-token", status: 401, body: { error: { code: "unauthorized", message: expect.any(String) } } });
    expect(health).toMatchObject({ name: "health", status: 200, body: { ok: true } });

    // The run the page created is the service's.
    const check = await fetch(`${dev!.url}/v1/runs/${runId}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(check.status).toBe(200);
  });

  it("from an unlisted origin: the browser lets the page read nothing", async () => {
    const key = crypto.randomUUID();
    const attempts = await runPage(unlisted!.origin, key);
    expect(attempts.map((attempt) => [attempt.name, attempt.error, attempt.status])).toEqual([
      ["create", "TypeError", undefined],
      ["health", "TypeError", undefined],
    ]);
    // The preflight stopped the POST before it was sent: the page's Idempotency-Key is unused, so
    // a different body under it creates a run (a used key would be 409).
    const fresh = await fetch(`${dev!.url}/v1/runs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "not the page's" }] }),
    });
    expect(fresh.status, await fresh.clone().text()).toBe(201);
    // The service itself answers (it is the browser that withholds the answers): no CORS header.
    const health = await fetch(`${dev!.url}/v1/health`, { headers: { Origin: unlisted!.origin } });
    expect(health.status).toBe(200);
    expect(health.headers.get("access-control-allow-origin")).toBeNull();
  });
});
