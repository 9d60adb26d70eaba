// The AI SDK's useChat on a durable run, in Chromium: docs/ai-sdk.md's React page (React 19,
// @ai-sdk/react 4, the transport of @ratchet/client/ai-sdk), served from an origin of its own,
// against `wrangler dev`. The person sends, the run's model asks, the person answers in the page;
// the page is reloaded while a step is held with part of its text out, and shows the same message,
// that text included, growing when the step goes on;
// the Stop button cancels the run. Every wait is on the page's state or the run's events.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, getRun, releaseHold } from "./support/api";
import { bundleChatPage, serveChatPage, type ChatPageServer } from "./support/chat-page";
import { freePort } from "./support/http-server";
import { launchChromium, WAIT } from "./support/console-browser";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { waitForEnd } from "./support/run-events";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "dev-token";

describe("useChat on a durable run, in Chromium", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-chat-ui-"));
  const profile = mkdtempSync(join(tmpdir(), "ratchet-chat-ui-profile-"));
  const snapshot = snapshotProject(ROOT);
  let pages: ChatPageServer | undefined;
  let dev: DevServer | undefined;
  let browser: BrowserContext | undefined;

  beforeAll(async () => {
    pages = await serveChatPage(await bundleChatPage());
    dev = await startDevServer({ port: await freePort(), persistTo: state, cwd: snapshot.dir, vars: { CORS_ORIGINS: pages.origin, API_TOKEN: TOKEN } });
    browser = await launchChromium(profile);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.kill();
    await pages?.close();
    snapshot.remove();
    rmSync(state, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  /** The chat page on run `id`, with the script errors it reports (a test expects none). */
  async function openChat(id: string, token: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`console: ${message.text()}`);
    });
    await page.goto(`${pages!.origin}/?${new URLSearchParams({ api: dev!.url, run: id, token })}`);
    return { page, errors };
  }

  it("sends, is asked, answers in the page; a reload in a held step shows the same message growing; Stop cancels the run", async () => {
    const run = await createRun(dev!.url, TOKEN, {
      messages: [{ role: "user", content: "Hello" }],
      tools: ["ask", "calculator"],
      minAnswerChars: 0, // a short final answer after tool work gets no extra model call
      script: [
        { text: "Hello. What shall I work out?" },
        { text: "One question first.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which units?" } }] },
        { text: "Working on it.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "17 + 23" } }] },
        // Streams "The answer" and holds: a step in flight with part of its text out.
        { hold: "slow", streamBeforeHold: 10, text: "The answer is 40 metres." },
        { hold: "stuck", text: "Never shown." },
      ],
    });
    await waitForEnd(dev!.url, run);
    const { page, errors } = await openChat(run.id, run.token);
    const assistant = page.locator("article[data-role=assistant]");
    await assistant.getByText("Hello. What shall I work out?").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);

    // The person sends; the run's model asks; the person answers in the page.
    await page.getByLabel("Message").fill("Add 17 and 23");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Which units?").waitFor(WAIT);
    await page.getByLabel("Answer").fill("metres");
    await page.getByRole("button", { name: "Answer" }).click();

    // The answered run works out the sum, then streams the start of its answer and holds: reload now.
    const working = page.locator("article[data-role=assistant]", { hasText: "Working on it." });
    await working.getByText("calculator → 40").waitFor(WAIT);
    await working.getByText("The answer", { exact: true }).waitFor(WAIT);
    const messageId = await working.getAttribute("data-id");
    expect(messageId).toBeTruthy();
    await page.reload();
    // The same message, replayed with the step's text so far, live again.
    const same = page.locator(`article[data-id="${messageId}"]`);
    await same.getByText("calculator → 40").waitFor(WAIT);
    await same.getByText("The answer", { exact: true }).waitFor(WAIT);
    await page.locator("main[data-status=streaming]").waitFor(WAIT);
    expect(await same.textContent()).not.toContain("40 metres.");

    // The held call goes on: the same message grows, and the chat is ready again.
    await releaseHold(dev!.url, TOKEN, run.id, "slow");
    await same.getByText("The answer is 40 metres.").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await page.locator(`article[data-id="${messageId}"]`).count()).toBe(1);
    expect(await getRun(dev!.url, run.id, run.token)).toMatchObject({ status: "finished" });

    // A new message, a held model call, and the Stop button: the run ends cancelled.
    await page.getByLabel("Message").fill("Once more");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await getRun(dev!.url, run.id, run.token)).toMatchObject({ status: "cancelled", stoppedBy: "cancel" });
    expect(await page.getByText("Never shown.").count()).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);
});
