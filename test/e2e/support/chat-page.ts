// The React chat page of the chat tests (and nothing the Worker serves): docs/ai-sdk.md's example,
// `chat.tsx`, as written, mounted by a few lines that read the API's address, the run's id and its
// token from the page's query string, hydrate the chat from the run's messages and render it.
// Bundled for the browser by the project's esbuild at test time, with `@ratchet/client/ai-sdk`
// from its sources, and served from a port of its own, hence an origin of its own (the Worker
// answers it as CORS_ORIGINS says, as it would an app's).
import { build } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { blockStartingWith } from "./doc-blocks";
import { listen, shut } from "./http-server";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const ENTRY = `
import { createElement } from "react";
import { createRoot } from "react-dom/client";
import { Chat, loadMessages } from "./chat.tsx";

const params = new URLSearchParams(location.search);
const baseUrl = params.get("api");
const runId = params.get("run");
const token = params.get("token");
loadMessages(baseUrl, runId, token).then((initialMessages) => {
  createRoot(document.getElementById("root")).render(createElement(Chat, { baseUrl, runId, token, initialMessages }));
});
`;

const HTML = `<!doctype html><meta charset="utf-8"><title>Chat</title><link rel="icon" href="data:,"><div id="root"></div><script type="module" src="/chat.js"></script>`;

/** The page's script: the docs' chat.tsx and its mount, one browser module. */
export async function bundleChatPage(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-chat-page-"));
  try {
    const example = blockStartingWith("docs/ai-sdk.md", "// chat.tsx");
    if (example.info !== "tsx") throw new Error(`docs/ai-sdk.md's chat.tsx block is fenced as ${example.info}, not tsx`);
    writeFileSync(join(dir, "chat.tsx"), example.code);
    writeFileSync(join(dir, "main.ts"), ENTRY);
    const result = await build({
      absWorkingDir: dir,
      entryPoints: [join(dir, "main.ts")],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      jsx: "automatic",
      alias: { "@ratchet/client/ai-sdk": join(ROOT, "src/client/ai-sdk/index.ts") },
      nodePaths: [join(ROOT, "node_modules")],
      define: { "process.env.NODE_ENV": '"production"' },
      write: false,
      logLevel: "silent",
    });
    return result.outputFiles[0]!.text;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type ChatPageServer = { origin: string; close: () => Promise<void> };

/** Serves the page (`/`) and its script (`/chat.js`) on a port the OS picks. */
export async function serveChatPage(script: string): Promise<ChatPageServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/") response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(HTML);
    else if (path === "/chat.js") response.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(script);
    else response.writeHead(404).end();
  });
  const port = await listen(server);
  return { origin: `http://127.0.0.1:${port}`, close: () => shut(server) };
}

