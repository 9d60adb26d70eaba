// useChat through a real crash: docs/ai-sdk.md's React page in Chromium follows a run whose model
// call is held when `wrangler dev` is SIGKILLed (its whole process group). The service is started
// again on the same storage and port; nobody reloads the page or calls the run: the page resumes
// by itself (the chat's disconnect, then the transport's reconnect, which waits for the service),
// shows the same message, and the run finishes with no finished step made again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, readStoredLog, releaseHold } from "./support/api";
import { bundleChatPage, openChatPage, serveChatPage, type ChatPageServer } from "./support/chat-page";
import { freePort } from "./support/http-server";
import { launchChromium, WAIT } from "./support/console-browser";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { waitForEnd } from "./support/run-events";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "dev-token";

describe("useChat through a SIGKILL of wrangler dev", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-chat-crash-"));
  const profile = mkdtempSync(join(tmpdir(), "ratchet-chat-crash-profile-"));
  const snapshot = snapshotProject(ROOT);
  let pages: ChatPageServer | undefined;
  let dev: DevServer | undefined;
  let browser: BrowserContext | undefined;
  let port = 0;
  const start = () => startDevServer({ port, persistTo: state, cwd: snapshot.dir, vars: { CORS_ORIGINS: pages!.origin, API_TOKEN: TOKEN } });

  beforeAll(async () => {
    pages = await serveChatPage(await bundleChatPage(), { ratchetUrl: () => dev!.url, deploymentToken: TOKEN, subject: "chat-crash-person" });
    // One port for both lives of the service: the page keeps the address it was opened with.
    port = await freePort();
    dev = await start();
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

  it("the page resumes by itself after the restart, and the run finishes with no step made twice", async () => {
    const run = await createRun(dev!.url, TOKEN, {
      messages: [{ role: "user", content: "Hello" }],
      tools: ["calculator"],
      minAnswerChars: 0, // a short final answer after tool work gets no extra model call
      script: [
        { text: "Ready." },
        { text: "Step one.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }] },
        { hold: "crash", text: "Step two.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "2 + 2" } }] },
        { text: "Done." },
      ],
    });
    await waitForEnd(dev!.url, run);
    const { page, errors } = await openChatPage(browser!, pages!.origin, run.id, run.token);
    await page.locator("main[data-status=ready]").waitFor(WAIT);

    await page.getByLabel("Message").fill("Go");
    await page.getByRole("button", { name: "Send" }).click();
    // Step one is stored (its tool result is on the page); the next model call holds.
    const message = page.locator("article[data-role=assistant]", { hasText: "Step one." });
    await message.getByText("calculator → 2").waitFor(WAIT);
    const messageId = await message.getAttribute("data-id");
    await page.locator("main[data-status=streaming]").waitFor(WAIT);

    await dev!.kill();
    await page.locator("main[data-status=error]").waitFor(WAIT);
    dev = await start();

    // Nobody touches the page: it reconnects by itself, to the same message, replayed.
    await page.locator("main[data-status=streaming]").waitFor({ timeout: 60_000 });
    const same = page.locator(`article[data-id="${messageId}"]`);
    await same.getByText("calculator → 2").waitFor(WAIT);
    await releaseHold(dev.url, TOKEN, run.id, "crash");
    await same.getByText("Done.").waitFor(WAIT);
    await page.locator("main[data-status=ready]").waitFor(WAIT);
    expect(await same.getByText("calculator → 4").count()).toBe(1);
    expect(errors).toEqual([]);

    // The run's own log: gap-free, every model call and tool result once.
    const events = (await readStoredLog(dev.url, run.id, run.token)).map((text) => JSON.parse(text) as { seq: number; type: string; text?: string; callId?: string; status?: string });
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    expect(events.filter((event) => event.type === "model").map((event) => event.text)).toEqual(["Ready.", "Step one.", "Step two.", "Done."]);
    expect(events.filter((event) => event.type === "tool-result").map((event) => event.callId)).toEqual(["c1", "c2"]);
    expect(events.at(-1)).toMatchObject({ type: "end", status: "finished" });
  }, 240_000);
});
