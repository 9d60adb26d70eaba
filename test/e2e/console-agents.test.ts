// Stored agents in the console, in headless Chromium against `wrangler dev` (scripted provider):
// the Agents card lists the agents a token sees, and a message typed under one starts a run of it
// (POST /v1/runs {agent}) that opens in the run panel and finishes with the agent's answer.
import { describe, expect, it } from "vitest";
import { getRun, request } from "./support/api";
import { consolePage, text, WAIT } from "./support/console-browser";
import { consoleFixture } from "./support/console-fixture";
import { LOCAL_TOKEN } from "./support/local-vars";

describe("agents in the console", () => {
  const fixture = consoleFixture("console-agents", "free");

  it("lists the stored agents and starts a run of one, which opens and finishes", async () => {
    const name = `console-${crypto.randomUUID().slice(0, 8)}`;
    const made = await request(fixture.dev.url, "/v1/agents", LOCAL_TOKEN, {
      method: "POST",
      body: JSON.stringify({ name, description: "Says hello.", run: { provider: "scripted", minAnswerChars: 0, script: [{ text: "Hello from the agent." }] } }),
    });
    expect(made.status, await made.clone().text()).toBe(201);
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url);
    await page.locator("#agents-token").fill(LOCAL_TOKEN);
    await page.getByRole("button", { name: "Show agents" }).click();
    const item = page.locator(`[data-agent="${name}"]`);
    await item.waitFor(WAIT);
    expect(await text(item.locator("h3"))).toBe(`${name} · v1`);
    await item.getByRole("textbox", { name: `Message to ${name}` }).fill("Say hello.");
    await item.getByRole("button", { name: "Start" }).click();
    await page.locator("#run-status[data-status=finished]").waitFor(WAIT);
    const runId = await text(page.locator("#run-id"));
    const view = (await getRun(fixture.dev.url, runId, LOCAL_TOKEN)) as { finalText?: string; agent?: unknown };
    expect(view).toMatchObject({ finalText: "Hello from the agent.", agent: { name, version: 1 } });
    expect(errors).toEqual([]);
  });
});
