// The AI SDK's useChat on a durable run, in Chromium: docs/ai-sdk.md's React page (main.tsx and
// chat.tsx: React 19, @ai-sdk/react 4, the transport of @ratchet/client/ai-sdk) and its app's server
// (chats.mjs), served from an origin of their own, against `wrangler dev`. A chat starts from the
// page; the person sends, the run's model asks, the person answers in the page; a reload in a held
// step shows the same message growing; Stop cancels the run and keeps what it showed, and the next
// message continues it; Regenerate makes a new answer in a fork the chat then follows; a reload
// after each shows the same chat, ids and all. Every wait is on the page's state or the run's events.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, getRun, releaseHold } from "./support/api";
import { bundleChatPage, openChatPage, serveChatPage, type ChatPageServer } from "./support/chat-page";
import { freePort } from "./support/http-server";
import { launchChromium, WAIT } from "./support/console-browser";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { waitForEnd } from "./support/run-events";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "dev-token";
const SUBJECT = "chat-ui-person";

/** What the page shows: each message's id, role and text, in order. */
async function shown(page: Page): Promise<string[][]> {
  return page.locator("article").evaluateAll((articles) => articles.map((article) => [article.getAttribute("data-id") ?? "", article.getAttribute("data-role") ?? "", article.textContent ?? ""]));
}

describe("useChat on a durable run, in Chromium", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-chat-ui-"));
  const profile = mkdtempSync(join(tmpdir(), "ratchet-chat-ui-profile-"));
  const snapshot = snapshotProject(ROOT);
  let pages: ChatPageServer | undefined;
  let dev: DevServer | undefined;
  let browser: BrowserContext | undefined;

  beforeAll(async () => {
    pages = await serveChatPage(await bundleChatPage(), { ratchetUrl: () => dev!.url, deploymentToken: TOKEN, subject: SUBJECT });
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

  it("a chat starts from the page (the app's server makes its run) and a reload opens the same chat", async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
    await page.goto(pages!.origin);
    await page.getByLabel("First message").fill("Hello there");
    await page.getByRole("button", { name: "Start" }).click();
    // Without a provider key, wrangler dev's runs are scripted: with no script, the model says what it was told.
    await page.locator("article[data-role=assistant]", { hasText: "(scripted) You said: Hello there" }).waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    const chatId = new URL(page.url()).searchParams.get("chat")!;
    expect(chatId).toMatch(/^run_/);
    const before = await shown(page);
    await page.reload();
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await shown(page)).toEqual(before);
    expect(errors).toEqual([]);
  }, 120_000);

  it("sends, is asked, answers in the page; a reload in a held step shows the same message growing; Stop keeps what it showed and the next message continues the run; a reload after shows the same", async () => {
    const run = await createRun(dev!.url, TOKEN, {
      subject: SUBJECT,
      messages: [{ role: "user", content: "Hello" }],
      tools: ["ask", "calculator"],
      minAnswerChars: 0, // a short final answer after tool work gets no extra model call
      script: [
        { text: "Hello. What shall I work out?" },
        { text: "One question first.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which units?" } }] },
        { text: "Working on it.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "17 + 23" } }] },
        // Streams "The answer" and holds: a step in flight with part of its text out.
        { hold: "slow", streamBeforeHold: 10, text: "The answer is 40 metres." },
        // Streams "Never" and holds until Stop.
        { hold: "stuck", streamBeforeHold: 5, chunk: 5, text: "Never finished." },
        { text: "Just 40." },
      ],
    });
    await waitForEnd(dev!.url, run);
    const { page, errors, logged } = await openChatPage(browser!, pages!.origin, run.id, run.token);
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

    // A new message; its answer streams "Never" and holds; Stop: the run ends cancelled, the text stays.
    await page.getByLabel("Message").fill("Once more");
    await page.getByRole("button", { name: "Send" }).click();
    const cut = page.locator("article[data-role=assistant]", { hasText: "Never" });
    await cut.waitFor(WAIT);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await getRun(dev!.url, run.id, run.token)).toMatchObject({ status: "cancelled", stoppedBy: "cancel", finalText: "Never" });
    expect(await cut.textContent()).toBe("Never");

    // Stop, then send again: the cancelled run takes the message.
    await page.getByLabel("Message").fill("Just the number");
    await page.getByRole("button", { name: "Send" }).click();
    await assistant.getByText("Just 40.").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await getRun(dev!.url, run.id, run.token)).toMatchObject({ status: "finished", finalText: "Just 40." });

    // A reload shows what the page showed: the cut answer, the message after it, ids and all.
    const before = await shown(page);
    expect(before.slice(-4).map(([, role, text]) => [role, text])).toEqual([
      ["user", "Once more"],
      ["assistant", "Never"],
      ["user", "Just the number"],
      ["assistant", "Just 40."],
    ]);
    await page.reload();
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    await assistant.getByText("Just 40.").waitFor(WAIT);
    expect(await shown(page)).toEqual(before);
    expect([...errors, ...logged]).toEqual([]);
  }, 180_000);

  it("Regenerate makes a new answer in a fork the chat then follows: a reload shows it, and the next message goes to the fork", async () => {
    const run = await createRun(dev!.url, TOKEN, {
      subject: SUBJECT,
      messages: [{ role: "user", content: "Hi" }],
      minAnswerChars: 0,
      script: [{ text: "Hello." }, { hold: "answer", streamBeforeHold: 6, chunk: 6, text: "Answer in full." }, { text: "And more." }],
    });
    await waitForEnd(dev!.url, run);
    const { page, errors, logged } = await openChatPage(browser!, pages!.origin, run.id, run.token);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    await page.getByLabel("Message").fill("A question");
    await page.getByRole("button", { name: "Send" }).click();
    const first = page.locator(`article[data-id="${run.id}-2"]`);
    await first.getByText("Answer", { exact: true }).waitFor(WAIT);
    await releaseHold(dev!.url, TOKEN, run.id, "answer");
    await first.getByText("Answer in full.").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);

    // Regenerate: the answer goes, a fork of the run answers again (its own call holds: a release belongs to a run).
    await page.getByRole("button", { name: "Regenerate" }).click();
    const again = page.locator("article[data-role=assistant]", { hasText: "Answer" }).last();
    await again.getByText("Answer", { exact: true }).waitFor(WAIT);
    const againId = (await again.getAttribute("data-id"))!;
    const forkId = againId.replace(/-1$/, "");
    expect(forkId).not.toBe(run.id);
    expect(await first.count()).toBe(0);
    await releaseHold(dev!.url, TOKEN, forkId, "answer");
    await again.getByText("Answer in full.").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await getRun(dev!.url, forkId, TOKEN)).toMatchObject({ status: "finished", forkedFrom: { runId: run.id, step: 1 } });

    // A reload shows the regenerated answer, not the old one.
    const before = await shown(page);
    expect(before.map(([id, role]) => [id, role])).toEqual([
      [`${run.id}-given-0`, "user"],
      [`${run.id}-1`, "assistant"],
      [before[2]![0]!, "user"],
      [againId, "assistant"],
    ]);
    await page.reload();
    await page.locator(`article[data-id="${againId}"]`).getByText("Answer in full.").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await shown(page)).toEqual(before);

    // The chat follows the fork: the next message is the fork's.
    await page.getByLabel("Message").fill("Go on");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(`article[data-id="${forkId}-2"]`).getByText("And more.").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await getRun(dev!.url, run.id, run.token)).toMatchObject({ status: "finished", finalText: "Answer in full." });
    const after = await shown(page);
    await page.reload();
    await page.locator(`article[data-id="${forkId}-2"]`).waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await shown(page)).toEqual(after);
    expect([...errors, ...logged]).toEqual([]);
  }, 180_000);
});
