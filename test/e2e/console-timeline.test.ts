// The run's timeline in the console, in headless Chromium against `wrangler dev`: a scripted run
// with two calculator calls and an ask is opened while it waits (the wait's bar is open and grows),
// answered, and its bars grow live to the end; the finished run opened again on a phone draws the
// same bars in the same order, each with a duration and a cost, on one time axis, within the
// screen's width; and a screenshot of the drawn timeline is not blank (the "screenshot check").
// Screenshots go to test/e2e/.artifacts/ (gitignored).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ARTIFACTS, consolePage, openRun, screenshotColours, WAIT } from "./support/console-browser";
import { LOCAL_TOKEN } from "./support/local-vars";
import { waitForEnd, waitForEvent } from "./support/run-events";
import type { DevServer } from "./support/dev-server";
import { consoleFixture } from "./support/console-fixture";
import { freePort } from "./support/http-server";

const PORT = await freePort();

/** The bars the run draws, in the order they began. */
const BARS = ["model/1", "tool/c1", "tool/c2", "model/2", "wait-person/q1", "model/3"];
const KINDS = ["model", "tool", "tool", "model", "wait-person", "model"];

async function post(dev: DevServer, path: string, token: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${dev.url}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

/** What the page drew: each bar's id, kind, state, figures and where its fill sits. */
function drawn(page: Page) {
  return page.locator("#run-timeline .bar").evaluateAll((rows) =>
    rows.map((row) => {
      const fill = row.querySelector(".bar-fill")!.getBoundingClientRect();
      const track = row.querySelector(".bar-track")!.getBoundingClientRect();
      return {
        id: row.getAttribute("data-bar"),
        kind: row.getAttribute("data-kind"),
        state: row.getAttribute("data-state"),
        figures: row.querySelector(".bar-figures")?.textContent ?? "",
        left: fill.left,
        width: fill.width,
        trackLeft: track.left,
        trackWidth: track.width,
      };
    }),
  );
}

describe("the run timeline in the console", () => {
  const fixture = consoleFixture("console-timeline", PORT);

  it("draws model calls, tool calls and the ask's wait as bars, growing live, then the finished run on a phone", async () => {
    const created = await post(fixture.dev, "/v1/runs", LOCAL_TOKEN, {
      provider: "scripted",
      messages: [{ role: "user", content: "Add up, then ask me." }],
      tools: ["ask", "calculator"],
      minAnswerChars: 0,
      script: [
        { text: "Adding.", delayMs: 150, costUsd: 0.002, toolCalls: [{ id: "c1", name: "calculator", input: { expression: "17 * 23" } }, { id: "c2", name: "calculator", input: { expression: "2 + 2" } }] },
        { text: "A question.", delayMs: 150, costUsd: 0.001, toolCalls: [{ id: "q1", name: "ask", input: { question: "What is it for?" } }] },
        { text: "Noted.", delayMs: 150, costUsd: 0.003 },
      ],
    });
    const run = { id: (created.run as { id: string }).id, token: created.token as string };
    await waitForEvent(fixture.dev.url, run.id, run.token, (event) => event.type === "waiting", { what: "its ask" });

    // Opened while it waits: five bars, the wait still open.
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url);
    await openRun(page, run.id, run.token);
    await page.locator('#run-timeline .bar[data-kind="wait-person"][data-state="open"]').waitFor(WAIT);
    expect((await drawn(page)).map((bar) => bar.id)).toEqual(BARS.slice(0, 5));
    expect(await page.locator("#run-timeline-total").textContent()).toMatch(/so far$/);

    // Answered elsewhere: the wait closes and the last model call is drawn after it, live.
    await post(fixture.dev, `/v1/runs/${run.id}/answer`, run.token, { callId: "q1", content: "A report." });
    await waitForEnd(fixture.dev.url, run);
    await page.locator('#run-timeline .bar[data-bar="model/3"][data-state="ok"]').waitFor(WAIT);
    await page.locator("#final-text", { hasText: "Noted." }).waitFor(WAIT);
    expect((await drawn(page)).map((bar) => [bar.id, bar.state])).toEqual(BARS.map((id) => [id, "ok"]));
    expect(errors).toEqual([]);
    await page.close();

    // The finished run opened again, on a phone: the same bars from its stored events.
    const phone = await consolePage(fixture.browser, fixture.dev.url, { phone: true });
    await openRun(phone.page, run.id, run.token);
    await phone.page.locator("#final-text", { hasText: "Noted." }).waitFor(WAIT);
    await phone.page.locator("#run-timeline .bar").nth(BARS.length - 1).waitFor(WAIT);
    const bars = await drawn(phone.page);
    expect(bars.map((bar) => bar.id)).toEqual(BARS);
    expect(bars.map((bar) => bar.kind)).toEqual(KINDS);
    expect(await phone.page.locator("#run-timeline .bar").count()).toBe(BARS.length);
    // Each bar: its duration and its cost (the model calls' own; tools and the wait cost nothing here).
    expect(bars.map((bar) => bar.figures.replace(/^[\d.]+ (ms|s|min)( \d+ s)? · /, "<duration> · "))).toEqual([
      "<duration> · $0.0020",
      "<duration> · $0.00",
      "<duration> · $0.00",
      "<duration> · $0.0010",
      "<duration> · $0.00",
      "<duration> · $0.0030",
    ]);
    // One time axis: each bar starts where the one before it started or later, inside its track.
    for (let i = 1; i < bars.length; i++) expect(bars[i]!.left).toBeGreaterThanOrEqual(bars[i - 1]!.left - 0.5);
    for (const bar of bars) {
      expect(bar.left).toBeGreaterThanOrEqual(bar.trackLeft - 0.5);
      expect(bar.left + bar.width).toBeLessThanOrEqual(bar.trackLeft + bar.trackWidth + 0.5);
      expect(bar.width).toBeGreaterThan(0);
    }
    // The wait for the answer took longer than any model call here, so its bar is the widest.
    expect(Math.max(...bars.map((bar) => bar.width))).toBe(bars[4]!.width);
    // Phone width: the rows stack (the track spans the card), nothing scrolls sideways.
    expect(Math.min(...bars.map((bar) => bar.trackWidth))).toBeGreaterThan(250);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // The screenshot check: the drawn timeline is a picture of bars, not one flat colour.
    const section = phone.page.locator("#run-timeline-section");
    await section.scrollIntoViewIfNeeded();
    const box = (await section.boundingBox())!;
    const png = await phone.page.screenshot({ clip: box, animations: "disabled" });
    writeFileSync(join(ARTIFACTS, "console-timeline-phone.png"), png);
    expect(png.byteLength).toBeGreaterThan(0);
    const picture = await screenshotColours(fixture.browser, png);
    expect(picture.width).toBeGreaterThan(0);
    expect(picture.height).toBeGreaterThan(0);
    expect(picture.colours).toBeGreaterThan(1);
    await phone.page.screenshot({ path: join(ARTIFACTS, "console-timeline-phone-full.png"), fullPage: true, animations: "disabled" });
    expect(phone.errors).toEqual([]);
    await phone.page.close();
  });
});
