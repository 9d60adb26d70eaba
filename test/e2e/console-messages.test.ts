// The console's message box, in headless Chromium against `wrangler dev`: while a run works, "Send"
// queues a message the run takes in before its next model call and "Interrupt" stops the model call
// in flight and asks again with the message; on a finished run the box has "Send" only, and sending
// continues the run. Each is checked in the run's own events and history, not only on the page.
// The model call the message box acts on is held (a scripted turn's `hold`) until the test
// releases it, so "while the run works" is a state the test waits for, not a delay it races.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { releaseHold } from "./support/api";
import { consolePage, openRun, WAIT } from "./support/console-browser";
import { consoleFixture } from "./support/console-fixture";
import type { DevServer } from "./support/dev-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { waitForEnd, waitForEvent, waitForEvents, type RunEvent } from "./support/run-events";
import { freePort } from "./support/http-server";

const PORT = await freePort();

type Run = { id: string; token: string };

async function create(dev: DevServer, script: unknown[]): Promise<Run> {
  const response = await fetch(`${dev.url}/v1/runs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${LOCAL_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "Work on it." }], tools: ["calculator"], minAnswerChars: 0, script }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  const created = JSON.parse(text) as { run: { id: string }; token: string };
  return { id: created.run.id, token: created.token };
}

async function history(dev: DevServer, run: Run): Promise<string[]> {
  const response = await fetch(`${dev.url}/v1/runs/${run.id}/messages`, { headers: { Authorization: `Bearer ${run.token}` } });
  const { messages } = (await response.json()) as { messages: { role: string; content: unknown }[] };
  return messages.filter((message) => message.role !== "tool").map((message) => `${message.role}:${typeof message.content === "string" ? message.content : JSON.stringify(message.content)}`);
}

async function type(page: Page, text: string, button: "Send" | "Interrupt"): Promise<void> {
  await page.locator("#message-text").fill(text);
  await page.locator(button === "Send" ? "#message-send" : "#message-interrupt").click();
  // The box is emptied once the service took the message; a refusal shows under it instead (and
  // fails the test with the service's words rather than a timeout).
  await page.waitForFunction(
    () => (document.getElementById("message-text") as HTMLTextAreaElement).value === "" || !(document.getElementById("message-error") as HTMLElement).hidden,
    undefined,
    WAIT,
  );
  const error = page.locator("#message-error");
  expect(await error.isVisible() ? await error.textContent() : null).toBeNull();
}

const userMessages = (events: RunEvent[]) => events.filter((event) => event.type === "user-message").map((event) => [event.step, event.mode]);

describe("the console's message box", () => {
  const fixture = consoleFixture("console-messages", PORT);

  it("Send while the run works: the message goes in before the next model call", async () => {
    const run = await create(fixture.dev, [
      { hold: "first", text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "17 * 23" } }] },
      { text: "Done, with your note." },
    ]);
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url);
    await openRun(page, run.id, run.token);
    await waitForEvent(fixture.dev.url, run.id, run.token, (event) => event.type === "step-start", { what: "its first model call" });
    await page.locator("#message-form").waitFor({ state: "visible", ...WAIT });
    expect(await page.locator("#message-interrupt").isVisible()).toBe(true);
    await type(page, "Round it to tens.", "Send");
    // The message is stored while the first call holds: it goes in before the second.
    await releaseHold(fixture.dev.url, LOCAL_TOKEN, run.id, "first");
    await waitForEnd(fixture.dev.url, run);
    const events = await waitForEvents(fixture.dev.url, run.id, run.token, (all) => all.some((event) => event.type === "end"), { what: "its end" });
    expect(userMessages(events)).toEqual([[2, "queue"]]);
    expect(await history(fixture.dev, run)).toEqual(["user:Work on it.", "assistant:Adding.", "user:Round it to tens.", "assistant:Done, with your note."]);
    await page.locator("#final-text", { hasText: "Done, with your note." }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("Interrupt: the model call in flight is stopped and made again with the message", async () => {
    const run = await create(fixture.dev, [{ hold: "answer", text: "A long answer." }]);
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url);
    await openRun(page, run.id, run.token);
    await waitForEvent(fixture.dev.url, run.id, run.token, (event) => event.type === "step-start", { what: "its first model call" });
    await page.locator("#message-interrupt").waitFor({ state: "visible", ...WAIT });
    await type(page, "Make it short.", "Interrupt");
    // The interrupted call is made again with the message, and holds again until released.
    await releaseHold(fixture.dev.url, LOCAL_TOKEN, run.id, "answer");
    await waitForEnd(fixture.dev.url, run);
    const events = await waitForEvents(fixture.dev.url, run.id, run.token, (all) => all.some((event) => event.type === "end"), { what: "its end" });
    expect(userMessages(events)).toEqual([[1, "interrupt"]]);
    // One model call in the run's count: the interrupted one was made again, not added.
    expect(events.filter((event) => event.type === "model")).toHaveLength(1);
    expect(await history(fixture.dev, run)).toEqual(["user:Work on it.", "user:Make it short.", "assistant:A long answer."]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("on a finished run the box has Send only, and sending continues the run", async () => {
    const run = await create(fixture.dev, [{ text: "First answer." }, { text: "Second answer." }]);
    await waitForEnd(fixture.dev.url, run);
    const { page, errors } = await consolePage(fixture.browser, fixture.dev.url);
    await openRun(page, run.id, run.token);
    await page.locator("#message-form").waitFor({ state: "visible", ...WAIT });
    expect(await page.locator("#message-interrupt").isVisible()).toBe(false);
    expect(await page.locator("#message-hint").textContent()).toBe("Continues the run with your message.");
    await type(page, "And then?", "Send");
    await waitForEvents(fixture.dev.url, run.id, run.token, (all) => all.filter((event) => event.type === "end").length === 2, { what: "the continue's end" });
    expect(await history(fixture.dev, run)).toEqual(["user:Work on it.", "assistant:First answer.", "user:And then?", "assistant:Second answer."]);
    await page.locator("#final-text", { hasText: "Second answer." }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });
});
