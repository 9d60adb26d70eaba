// Forks in the console, in headless Chromium against `wrangler dev` (scripted provider): each model
// step of a finished run offers "Fork from here"; the click makes a fork at that step and opens it,
// and the fork shows its source beside it: the source's id (opening it), where it diverged, the
// source's spend, the fork's inherited prefix and its own spend.
import { describe, expect, it } from "vitest";
import { createRun, getRun } from "./support/api";
import { consolePage, openRun, text, WAIT } from "./support/console-browser";
import { consoleFixture } from "./support/console-fixture";
import { LOCAL_TOKEN } from "./support/local-vars";
import { waitForEnd } from "./support/run-events";
import { freePort } from "./support/http-server";

const PORT = await freePort();

describe("forks in the console", () => {
  const fixture = consoleFixture("console-forks", PORT);

  it("'Fork from here' on step 1 opens a fork of it, shown beside its source with the cost of each", async () => {
    const script = [{ text: "One.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }], costUsd: 0.01 }, { text: "Two.", costUsd: 0.02 }];
    // A subject, so its run token (which the console holds) may fork it: a run with none is forked by the deployment token only.
    const source = await createRun(fixture.dev.url, LOCAL_TOKEN, { subject: `console-forks-${crypto.randomUUID()}`, messages: [{ role: "user", content: "Count." }], tools: ["calculator"], minAnswerChars: 0, script });
    await waitForEnd(fixture.dev.url, { id: source.id, token: source.token });
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url);
    await openRun(page, source.id, source.token);
    const buttons = page.getByRole("button", { name: /^Fork from step \d+$/ });
    await page.locator('[data-fork-step="2"]').waitFor(WAIT);
    expect(await buttons.count()).toBe(2);
    await page.getByRole("button", { name: "Fork from step 1" }).click();

    const box = page.locator("#fork-of");
    await box.waitFor({ state: "visible", ...WAIT });
    const forkId = await text(page.locator("#run-id"));
    expect(forkId).not.toBe(source.id);
    expect(await text(box)).toContain(`Forked from ${source.id} at step 1.`);
    expect(await text(box)).toContain("the fork diverged after step 1");
    await page.locator("#run-status[data-status=finished]").waitFor(WAIT);
    const view = await getRun(fixture.dev.url, forkId, LOCAL_TOKEN);
    expect(view).toMatchObject({ status: "finished", steps: 2, forkedFrom: { runId: source.id, step: 1 } });
    expect(await text(box.locator(".fork-inherited"))).toBe("$0.0100");
    await page.locator(".fork-spent", { hasText: "$0.0200" }).waitFor(WAIT);
    await page.locator(".source-spent", { hasText: "$0.0300 over 2 steps (finished)" }).waitFor(WAIT);
    // The source's id opens the source, which is no fork.
    await box.locator(`[data-source="${source.id}"]`).click();
    await page.locator("#run-id", { hasText: source.id }).waitFor(WAIT);
    expect(await box.isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });
});
