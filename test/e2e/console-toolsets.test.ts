// The console with tools that live elsewhere, in headless Chromium against `wrangler dev` (its
// anthropic provider pointed at the fake Anthropic server): a web search the provider ran shows as
// "web search: <query>", a client toolset's batch is answered in place (one result per action, the
// first failed one ending the batch), and the actions not run show as such; the inbox answers a
// batch too. Screenshots go to test/e2e/.artifacts/ (gitignored).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../fake-anthropic/server";
import { ARTIFACTS, buildConsole, consolePage, launchChromium, openRun, text, WAIT } from "./support/console-browser";
import { LOCAL_TOKEN } from "./support/local-vars";
import { waitForEnd, waitForEvent } from "./support/run-events";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const PORT = await freePort();
const MODEL = "claude-sonnet-5-5-console-toolsets";

const browserToolset = {
  type: "client-toolset",
  name: "browser",
  actions: [
    { name: "navigate", description: "Open a URL.", inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] } },
    { name: "click", description: "Click an element.", inputSchema: { type: "object", properties: { selector: { type: "string" } }, required: ["selector"] } },
  ],
};
const actions = [
  { id: "b1", name: "browser__navigate", input: { url: "https://shop.example/" } },
  { id: "b2", name: "browser__click", input: { selector: "#buy" } },
  { id: "b3", name: "browser__click", input: { selector: "#confirm" } },
];

async function api(dev: DevServer, path: string, token: string, body?: unknown): Promise<Record<string, unknown>> {
  const init: RequestInit = body === undefined ? { headers: { Authorization: `Bearer ${token}` } } : { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(`${dev.url}${path}`, init);
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

describe("the console with provider tools and client toolsets", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-console-toolsets-"));
  const profile = mkdtempSync(join(tmpdir(), "ratchet-chromium-"));
  let dev: DevServer | undefined;
  let fake: FakeAnthropic | undefined;
  let browser: BrowserContext | undefined;

  beforeAll(async () => {
    buildConsole();
    fake = await startFakeAnthropic();
    dev = await startDevServer({ port: PORT, persistTo: state, vars: { ANTHROPIC_API_KEY: "console-test-key", ANTHROPIC_BASE_URL: fake.url } });
    browser = await launchChromium(profile);
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.kill();
    await fake?.close();
    rmSync(state, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  it("shows the provider's web search and answers a toolset batch in place; an action after a failed one shows as not run", async () => {
    fake!.script(MODEL, [
      { lead: "Let me look it up.", serverTools: [{ webSearch: { query: "ratchet shop", results: [{ title: "Shop", url: "https://shop.example/" }] } }], text: "Now to the shop.", toolCalls: actions },
      { text: "The buy button was missing; I stopped there." },
    ]);
    const created = await api(dev!, "/v1/runs", LOCAL_TOKEN, {
      provider: "anthropic",
      model: MODEL,
      messages: [{ role: "user", content: "Buy the ratchet." }],
      tools: [{ type: "provider", spec: { type: "web_search_20250305", name: "web_search" } }, browserToolset],
      minAnswerChars: 0,
    });
    const { run, token } = created as { run: { id: string }; token: string };
    await waitForEvent(dev!.url, run.id, token, (event) => event.type === "waiting", { what: "its batch" });

    const { page, errors } = await consolePage(browser!, dev!.url);
    await openRun(page, run.id, token);

    const search = page.locator(".call.provider-call");
    await search.waitFor(WAIT);
    expect(await text(search.locator(".name"))).toBe("web search:");
    expect(await text(search.locator(".input"))).toBe("ratchet shop");
    expect(await text(page.locator("#waiting-question"))).toMatch(/^The run asks your client to run 3 actions of browser, in order\./);
    const rows = page.locator("#waiting-batch .batch-action");
    expect(await rows.count()).toBe(3);
    expect(await text(rows.nth(0).locator(".name"))).toBe("1. navigate");
    await page.getByLabel("Result of browser navigate (1 of 3)").fill("Loaded the shop.");
    await page.getByLabel("Result of browser click (2 of 3)").fill("No #buy on the page.");
    await rows.nth(1).getByLabel("click failed").check();
    // The action after the failed one is put aside: it will not run.
    expect(await page.getByLabel("Result of browser click (3 of 3)").isDisabled()).toBe(true);
    expect(await rows.nth(2).getAttribute("data-state")).toBe("not-run");
    await page.screenshot({ path: join(ARTIFACTS, "console-toolset-batch.png"), fullPage: true, animations: "disabled" });
    await page.getByRole("button", { name: "Send results" }).click();

    await page.locator("#final-text", { hasText: "The buy button was missing; I stopped there." }).waitFor(WAIT);
    expect(await text(page.locator('.call[data-call="b1"] .result'))).toBe("done: Loaded the shop.");
    expect(await page.locator('.call[data-call="b2"]').getAttribute("data-state")).toBe("error");
    expect(await page.locator('.call[data-call="b3"]').getAttribute("data-state")).toBe("not-run");
    expect(await text(page.locator('.call[data-call="b3"] .result'))).toBe("Not run: an earlier action of toolset browser failed.");
    await page.screenshot({ path: join(ARTIFACTS, "console-toolset-finished.png"), fullPage: true, animations: "disabled" });
    const { messages } = (await api(dev!, `/v1/runs/${run.id}/messages`, token)) as { messages: { role: string; content: unknown }[] };
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["Loaded the shop.", "No #buy on the page.", "Not run: an earlier action of toolset browser failed."]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the inbox answers a toolset batch in place", async () => {
    const subject = `toolsets-${Date.now()}`;
    const { token: userToken } = (await api(dev!, "/v1/tokens", LOCAL_TOKEN, { subject, ttlSeconds: 600 })) as { token: string };
    // The backend starts the run for its person (the scripted provider is the deployment token's alone).
    const { run } = (await api(dev!, "/v1/runs", LOCAL_TOKEN, {
      subject,
      provider: "scripted",
      messages: [{ role: "user", content: "Open the shop." }],
      tools: [browserToolset],
      minAnswerChars: 0,
      metadata: { title: "Shop" },
      script: [{ toolCalls: actions.slice(0, 2) }, { text: "Shop opened and clicked." }],
    })) as { run: { id: string } };
    await waitForEvent(dev!.url, run.id, userToken, (event) => event.type === "waiting", { what: "its batch" });

    const { page, errors } = await consolePage(browser!, dev!.url, { phone: true });
    await page.getByLabel(/^User token/).fill(userToken);
    await page.getByRole("button", { name: "Open inbox" }).click();
    const item = page.locator(`.inbox-item[data-run="${run.id}"]`);
    await item.waitFor(WAIT);
    expect(await text(item.locator(".question"))).toMatch(/^The run asks your client to run 2 actions of browser/);
    await item.getByLabel("Result of browser navigate (1 of 2)").fill("Loaded.");
    await item.getByRole("button", { name: "Send results" }).click();
    await item.locator(".error", { hasText: "Write the result of click first." }).waitFor(WAIT);
    await item.getByLabel("Result of browser click (2 of 2)").fill("Clicked.");
    await item.getByRole("button", { name: "Send results" }).click();
    await item.waitFor({ state: "detached", ...WAIT });
    await waitForEnd(dev!.url, { id: run.id, token: userToken });
    expect(await api(dev!, `/v1/runs/${run.id}`, userToken)).toMatchObject({ status: "finished", finalText: "Shop opened and clicked." });
    expect(errors).toEqual([]);
    await page.close();
  });
});
