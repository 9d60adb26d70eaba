// The console's run tree in Chromium (docs/children.md): a parent's panel lists its child runs with
// status and cost, kept up to date from its events; a child opens in place (same panel, the
// parent's token), shows its parent, and the parent opens again from there.
import { describe, expect, it } from "vitest";
import { createRun } from "./support/api";
import { consolePage, openRun, text, WAIT } from "./support/console-browser";
import { consoleFixture } from "./support/console-fixture";
import { freePort } from "./support/http-server";

const PORT = await freePort();

function agent(name: string, script: unknown[]) {
  return { type: "agent", name, description: `${name}: a helper`, run: { provider: "scripted", model: "scripted-model", minAnswerChars: 0, maxSteps: 5, budget: { usd: 0.05 }, tools: ["ask"], script } };
}

describe("the console's run tree", () => {
  const fixture = consoleFixture("console-tree", PORT);

  it("lists the children with status and cost, opens a child in place and goes back to the parent", async () => {
    const parent = await createRun(fixture.dev.url, "dev-token", {
      messages: [{ role: "user", content: "go" }],
      minAnswerChars: 0,
      budget: { usd: 1 },
      tools: [agent("quick", [{ text: "Quick answer.", costUsd: 0.002 }]), agent("asker", [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Which one?" } }] }, { text: "Chosen." }])],
      script: [{ text: "Handing out.", toolCalls: [{ id: "a", name: "quick", input: { task: "x" } }, { id: "b", name: "asker", input: { task: "y" } }] }, { text: "Parent done." }],
    });
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url);
    await openRun(page, parent.id, parent.token);
    const rows = page.locator("#run-children li.child");
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    const quick = page.locator("#run-children li.child", { hasText: "call a" });
    await expect.poll(async () => text(quick.locator(".child-status")), WAIT).toBe("finished");
    expect(await text(quick.locator(".child-cost"))).toContain("$0.002");
    const asker = page.locator("#run-children li.child", { hasText: "call b" });
    await expect.poll(async () => text(asker.locator(".child-status")), WAIT).toBe("waiting");
    const askerId = await text(asker.locator(".child-open"));

    // The child opens in place: the same panel shows it, with its parent.
    await asker.locator(".child-open").click();
    await expect.poll(async () => text(page.locator("#run-id")), WAIT).toBe(askerId);
    await expect.poll(async () => text(page.locator("#waiting-question")), WAIT).toContain("Which one?");
    expect(await text(page.locator("#run-parent"))).toContain(parent.id);
    await page.locator("#waiting-answer").fill("This one.");
    await page.getByRole("button", { name: /^(Answer|Send)/ }).first().click();
    await page.locator("#run-parent").click();
    await expect.poll(async () => text(page.locator("#run-id")), WAIT).toBe(parent.id);
    await expect.poll(async () => text(page.locator("#run-children li.child", { hasText: "call b" }).locator(".child-status")), WAIT).toBe("finished");
    await expect.poll(async () => text(page.locator("#run-status")), WAIT).toBe("finished");
    expect(errors).toEqual([]);
  }, 180_000);
});
