// The React chat page of the chat tests (and nothing the Worker serves): docs/ai-sdk.md's example
// as written, `main.tsx` and `chat.tsx`, bundled for the browser at test time (doc-files.ts), and
// the app's server around it: the page (its `<meta name="ratchet-url">` the Worker's address), its
// script, and `POST /api/chats`, which calls the docs' `chats.mjs` as the app's route would, for a
// subject of the test's. Served from a port of its own, hence an origin of its own (the Worker
// answers it as CORS_ORIGINS says).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { bundleDocModule, writeDocFile } from "./doc-files";
import { listen, readBody, shut } from "./http-server";

/** The page's script: the docs' main.tsx and chat.tsx, one browser module. */
export async function bundleChatPage(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-chat-page-"));
  try {
    writeDocFile(dir, "chat.tsx", "tsx");
    return await bundleDocModule(writeDocFile(dir, "main.tsx", "tsx"), "browser");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type StartChat = (options: { ratchetUrl: string; deploymentToken: string; subject: string; text: string }) => Promise<{ runId: string; token: string }>;

/** The docs' chats.mjs, loaded as the app's server module. */
async function loadStartChat(): Promise<StartChat> {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-chat-server-"));
  try {
    const path = writeDocFile(dir, "chats.mjs", "js");
    return ((await import(pathToFileURL(path).href)) as { startChat: StartChat }).startChat;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type ChatPageServer = { origin: string; close: () => Promise<void> };

/** Serves the page (`/`), its script (`/chat.js`) and `POST /api/chats`, on a port the OS picks. */
export async function serveChatPage(script: string, app: { ratchetUrl: () => string; deploymentToken: string; subject: string }): Promise<ChatPageServer> {
  const startChat = await loadStartChat();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/") {
      const html = `<!doctype html><meta charset="utf-8"><meta name="ratchet-url" content="${app.ratchetUrl()}"><title>Chat</title><link rel="icon" href="data:,"><div id="root"></div><script type="module" src="/chat.js"></script>`;
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
    } else if (path === "/chat.js") response.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(script);
    else if (path === "/api/chats" && request.method === "POST") {
      readBody(request)
        .then(async (body) => {
          const { text } = JSON.parse(body) as { text: string };
          const chat = await startChat({ ratchetUrl: app.ratchetUrl(), deploymentToken: app.deploymentToken, subject: app.subject, text });
          response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(chat));
        })
        .catch((error: unknown) => response.writeHead(500).end(String(error)));
    } else response.writeHead(404).end();
  });
  const port = await listen(server);
  return { origin: `http://127.0.0.1:${port}`, close: () => shut(server) };
}

/**
 * The chat page on chat `runId` as main.tsx reopens one after a reload: the chat's id in the
 * address, its token in the tab's sessionStorage. Collects the script errors the page reports
 * (`errors`) and what it logs as errors (`logged`: a request that found no service is one).
 */
export async function openChatPage(browser: BrowserContext, origin: string, runId: string, token: string): Promise<{ page: Page; errors: string[]; logged: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  const logged: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") logged.push(`console: ${message.text()}`);
  });
  await page.addInitScript(([id, secret]) => sessionStorage.setItem(`ratchet-chat:${id}`, secret), [runId, token] as const);
  await page.goto(`${origin}/?${new URLSearchParams({ chat: runId })}`);
  return { page, errors, logged };
}
