// The console on a phone (390 px wide), in headless Chromium against `wrangler dev` (scripted
// provider): a parent with ten child runs scrolls no page sideways, a child shows no empty heading,
// a fork opened with its own token reads as sentences and asks nothing its token cannot read, and
// a run of a stored agent says which agent started it (in the inbox's list too) and keeps its
// title in view while its question has the focus and when read down to its end.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createRun, request } from "./support/api";
import { consolePage, openRun, text, WAIT } from "./support/console-browser";
import { consoleFixture } from "./support/console-fixture";
import { LOCAL_TOKEN } from "./support/local-vars";
import { waitForEnd, waitForEvent } from "./support/run-events";
import { freePort } from "./support/http-server";

const PORT = await freePort();
const CHILDREN = 10;

function agent(name: string) {
  return { type: "agent", name, description: `${name}: a helper`, run: { provider: "scripted", model: "scripted-model", minAnswerChars: 0, maxSteps: 2, budget: { usd: 0.05 }, script: [{ text: `${name} done.`, costUsd: 0.001 }] } };
}

/** How far the page scrolls sideways: 0 when nothing is wider than the window. */
function sideways(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** Whether the run's title is inside the window and is what shows at its middle (nothing covers it). */
function titleInView(page: Page): Promise<{ top: number; bottom: number; shown: boolean }> {
  return page.evaluate(() => {
    const title = document.getElementById("run-title")!;
    const box = title.getBoundingClientRect();
    const inside = box.top >= 0 && box.bottom <= innerHeight;
    const atMiddle = inside ? document.elementFromPoint(box.left + Math.min(40, box.width / 2), box.top + box.height / 2) : null;
    return { top: Math.round(box.top), bottom: Math.round(box.bottom), shown: inside && atMiddle !== null && title.contains(atMiddle) };
  });
}

/**
 * Headings the page shows with nothing shown after them: no visible text follows a heading among
 * its siblings (for a heading that opens a wrapper, such as the run's title row, among the
 * wrapper's siblings).
 */
function emptyHeadings(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const shown = (element: Element) => (element as HTMLElement).offsetParent !== null && (element.textContent ?? "").trim() !== "";
    const followedByText = (heading: Element): boolean => {
      let node: Element = heading;
      for (;;) {
        const after: Element[] = [];
        for (let next = node.nextElementSibling; next !== null; next = next.nextElementSibling) after.push(next);
        if (after.some(shown)) return true;
        const parent = node.parentElement;
        const opensParent = parent !== null && Array.from(parent.children).find(shown) === node;
        if (!opensParent || parent === document.body) return false;
        node = parent;
      }
    };
    return Array.from(document.querySelectorAll("h2, h3")).filter(shown).filter((heading) => !followedByText(heading)).map((heading) => (heading.textContent ?? "").trim());
  });
}

describe("the console at 390 px", () => {
  const fixture = consoleFixture("console-narrow", PORT);

  it("a parent of ten children scrolls nothing sideways; a child shows no empty 'Child runs'", async () => {
    const names = Array.from({ length: CHILDREN }, (_v, i) => `helper-${i + 1}`);
    const parent = await createRun(fixture.dev.url, LOCAL_TOKEN, {
      messages: [{ role: "user", content: "go" }],
      minAnswerChars: 0,
      budget: { usd: 1 },
      tools: names.map(agent),
      script: [{ text: "Handing out.", toolCalls: names.map((name, i) => ({ id: `c${i + 1}`, name, input: { task: "x" } })) }, { text: "Parent done." }],
    });
    await waitForEnd(fixture.dev.url, { id: parent.id, token: parent.token });
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url, { phone: true });
    await openRun(page, parent.id, parent.token);
    await expect.poll(() => page.locator("#run-children li.child").count(), WAIT).toBe(CHILDREN);
    await page.locator("#run-status[data-status=finished]").waitFor(WAIT);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(await emptyHeadings(page)).toEqual([]);

    await page.locator("#run-children li.child .child-open").first().click();
    await page.locator("#run-parent").waitFor({ state: "visible", ...WAIT });
    await page.locator("#run-status[data-status=finished]").waitFor(WAIT);
    // The child's status can show before its steps' events are drawn (a step's heading, then its
    // text): wait until the page has settled with no empty heading; one that stays empty fails.
    await expect.poll(() => emptyHeadings(page), WAIT).toEqual([]);
    expect(await page.getByRole("heading", { name: "Child runs" }).isVisible()).toBe(false);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  }, 180_000);

  it("a fork at step 1 opened with its own token reads as a sentence and asks nothing it cannot read", async () => {
    const script = [{ text: "One.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }], costUsd: 0.01 }, { text: "Two.", costUsd: 0.02 }];
    const source = await createRun(fixture.dev.url, LOCAL_TOKEN, { messages: [{ role: "user", content: "Count." }], tools: ["calculator"], minAnswerChars: 0, script });
    await waitForEnd(fixture.dev.url, { id: source.id, token: source.token });
    const forked = await fetch(`${fixture.dev.url}/v1/runs/${source.id}/fork`, { method: "POST", headers: { Authorization: `Bearer ${LOCAL_TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify({ atStep: 1 }) });
    expect(forked.status).toBe(201);
    const fork = (await forked.json()) as { run: { id: string }; token: string };
    await waitForEnd(fixture.dev.url, { id: fork.run.id, token: fork.token });

    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url, { phone: true });
    await openRun(page, fork.run.id, fork.token);
    const box = page.locator("#fork-of");
    await box.waitFor({ state: "visible", ...WAIT });
    await page.locator("#run-status[data-status=finished]").waitFor(WAIT);
    const said = await text(box.locator("p"));
    expect(said).toContain(`Forked from ${source.id} at step 1.`);
    expect(said).toContain("Step 1 is the source's");
    expect(said).not.toMatch(/Steps 1–1/);
    expect(await text(box.locator(".source-spent"))).toBe("not readable with this fork's token");
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  }, 180_000);

  it("a run of an agent names the agent, in the inbox too, and keeps its title in view while it asks and when read to its end", async () => {
    const name = `narrow-${crypto.randomUUID().slice(0, 8)}`;
    const question = "Before I triage this ticket: which of the three teams on call tonight (billing, accounts or the platform team) should take tickets about invoices that were sent twice?";
    const script = [
      { text: "Let me look at the ticket first and work out who is on call.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2 + 2" } }] },
      { text: "One question before I answer.", toolCalls: [{ id: "q1", name: "ask", input: { question } }] },
      { text: "Billing takes it." },
    ];
    const made = await request(fixture.dev.url, "/v1/agents", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ name, description: "Triages.", run: { provider: "scripted", tools: ["calculator", "ask"], script } }) });
    expect(made.status, await made.clone().text()).toBe(201);
    const subject = `narrow-user-${crypto.randomUUID().slice(0, 8)}`;
    const started = await request(fixture.dev.url, "/v1/runs", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ agent: name, subject, messages: [{ role: "user", content: "Invoice sent twice." }] }) });
    expect(started.status, await started.clone().text()).toBe(201);
    const created = (await started.json()) as { run: { id: string }; token: string };
    const run = { id: created.run.id, token: created.token };
    const minted = (await (await request(fixture.dev.url, "/v1/tokens", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ subject, ttlSeconds: 3600 }) })).json()) as { token: string };
    await waitForEvent(fixture.dev.url, run.id, run.token, (event) => event.type === "waiting", { what: "the agent's question" });

    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url, { phone: true });
    await page.getByLabel(/^User token/).fill(minted.token);
    await page.getByRole("button", { name: "Open inbox" }).click();
    const item = page.locator(`[data-run="${run.id}"]`);
    await item.waitFor(WAIT);
    expect(await text(item.locator(".hint").first())).toContain(`${name} · v1`);
    await item.getByRole("button", { name: "Open run" }).click();
    await page.waitForFunction((id) => document.getElementById("run-id")?.textContent === id && document.activeElement?.id === "waiting-answer", run.id, WAIT);
    expect(await text(page.locator("#run-agent"))).toBe(`${name} · v1`);
    expect(await page.locator("#run-agent").isVisible()).toBe(true);
    expect(await titleInView(page)).toMatchObject({ shown: true });
    // Read down to the run's end: the title stays in view.
    await page.evaluate(() => document.getElementById("timeline")!.lastElementChild!.scrollIntoView({ block: "end" }));
    expect(await titleInView(page)).toMatchObject({ shown: true });
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  }, 180_000);
});
