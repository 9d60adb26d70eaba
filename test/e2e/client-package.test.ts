// @ratchet/client as an app gets it: `npm run pack:client` packs it, `npm install` puts the tarball
// into an empty folder (offline: the package has nothing to fetch), and the README's snippet runs
// there as plain Node against `wrangler dev`: the run asks, the snippet answers, the run finishes.
// A TypeScript app on `moduleResolution: node16` compiles against the package's declarations. The
// subpath `@ratchet/client/ai-sdk` is in the tarball; with `ai` beside it (the app's own, an
// optional peer), plain Node chats with a run through it and cancels the run. So is
// `@ratchet/client/ag-ui`: with `@ag-ui/client` beside it, plain Node runs a stored agent's thread.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockStartingWith } from "./support/doc-blocks";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages/client/package.json"), "utf8")) as { version: string }).version;

describe("@ratchet/client, packed and installed", () => {
  const app = mkdtempSync(join(tmpdir(), "ratchet-app-"));
  const state = mkdtempSync(join(tmpdir(), "ratchet-client-state-"));
  const snapshot = snapshotProject(ROOT);
  let dev: DevServer | undefined;
  let tarball = "";

  beforeAll(async () => {
    [dev, tarball] = await Promise.all([
      freePort().then((port) => startDevServer({ port, persistTo: state, cwd: snapshot.dir })),
      run("npm", ["run", "--silent", "pack:client"], { cwd: ROOT }).then(({ stdout }) => stdout.trim()),
    ]);
  });

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(app, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  it("npm run pack:client writes dist/ratchet-client-<version>.tgz, a package with no dependencies", () => {
    expect(tarball).toBe(join(ROOT, "dist", `ratchet-client-${VERSION}.tgz`));
    expect(existsSync(tarball)).toBe(true);
  });

  it("installs into an empty folder offline, and the README's snippet runs there as plain Node: asked, answered, finished", async () => {
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: app });
    const installed = join(app, "node_modules/@ratchet/client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: "@ratchet/client", version: VERSION, type: "module" });
    expect(manifest.dependencies ?? {}).toEqual({});
    // Nothing but the package itself was installed.
    expect(readdirSync(join(app, "node_modules")).filter((name) => !name.startsWith("."))).toEqual(["@ratchet"]);

    const snippet = blockStartingWith("README.md", "// first-run.mjs");
    expect(snippet.info).toBe("js");
    writeFileSync(join(app, "first-run.mjs"), snippet.code);
    const { stdout, stderr } = await run(process.execPath, ["first-run.mjs"], { cwd: app, env: { ...process.env, RATCHET_URL: dev!.url }, timeout: 60_000 });
    expect(stderr).toBe("");
    expect(stdout.split("\n").filter((line) => line !== "")).toEqual(["calculator → 391", "asked: What should I call the result?", "finished: Thank you, noted. The result is 391."]);
  });

  it("its declarations type an app compiled with moduleResolution node16, strict", async () => {
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "first-app", private: true, type: "module", dependencies: { "@ratchet/client": `file:${tarball}` } }));
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "node16", moduleResolution: "node16", target: "es2022", lib: ["es2023", "dom"], strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ["app.ts"] }),
    );
    writeFileSync(
      join(app, "app.ts"),
      [
        'import { createClient, RatchetError, type RunView, type StreamEvent } from "@ratchet/client";',
        'const ratchet = createClient({ baseUrl: "http://127.0.0.1:8787", token: "dev-token" });',
        "export async function first(): Promise<RunView> {",
        '  const { run } = await ratchet.createRun({ messages: [{ role: "user", content: "Hi" }], tools: ["ask"] });',
        "  return run;",
        "}",
        "export const isEnd = (event: StreamEvent): boolean => event.type === \"end\" && event.status === \"finished\";",
        "export const codeOf = (error: unknown): string | undefined => (error instanceof RatchetError ? error.code : undefined);",
        "// @ts-expect-error: createRun needs messages",
        "void ratchet.createRun({});",
      ].join("\n"),
    );
    const tsc = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: app }).catch((error: { stdout: string }) => error);
    expect(tsc.stdout).toBe("");
  });

  it("carries @ratchet/client/ai-sdk, with ai an optional peer: plain Node chats with a run through it and cancels it", async () => {
    const installed = join(app, "node_modules/@ratchet/client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, Record<string, unknown>>;
    expect(manifest.exports!["./ai-sdk"]).toEqual({ types: "./dist/client/ai-sdk/index.d.ts", default: "./dist/client/ai-sdk/index.js" });
    expect(manifest.peerDependenciesMeta).toEqual({ ai: { optional: true }, "@ag-ui/client": { optional: true } });
    expect(existsSync(join(installed, "dist/client/ai-sdk/index.js"))).toBe(true);
    // The app's own `ai` (7, as this repository has it).
    symlinkSync(join(ROOT, "node_modules/ai"), join(app, "node_modules/ai"), "dir");
    writeFileSync(
      join(app, "chat.mjs"),
      [
        'import { createClient } from "@ratchet/client";',
        'import { chatTransport } from "@ratchet/client/ai-sdk";',
        "const baseUrl = process.env.RATCHET_URL;",
        'const ratchet = createClient({ baseUrl, token: "dev-token" });',
        'const { run, token } = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "Hi" }], script: [{ text: "Hello." }, { text: "Fine, thanks." }, { hold: "h", text: "Never said." }] });',
        'for await (const event of ratchet.withToken(token).events(run.id)) if (event.type === "end") break;',
        'const transport = chatTransport({ baseUrl, token, version: "v7" });',
        "const send = (id, text) => transport.sendMessages({ chatId: run.id, trigger: \"submit-message\", messageId: undefined, abortSignal: undefined, messages: [{ id, role: \"user\", parts: [{ type: \"text\", text }] }] });",
        "const said = [];",
        'for await (const chunk of await send("u1", "How are you?")) if (chunk.type === "text-delta") said.push(chunk.delta); else if (chunk.type === "finish") console.log(`finish: ${said.join("")}`);',
        'for await (const chunk of await send("u2", "And now?")) {',
        '  if (chunk.type === "start-step") console.log(`cancelled: ${(await transport.cancelChat(run.id)).status}`);',
        '  if (chunk.type === "abort") console.log("abort");',
        "}",
      ].join("\n"),
    );
    const { stdout, stderr } = await run(process.execPath, ["chat.mjs"], { cwd: app, env: { ...process.env, RATCHET_URL: dev!.url }, timeout: 60_000 });
    expect(stderr).toBe("");
    expect(stdout.split("\n").filter((line) => line !== "")).toEqual(["finish: Fine, thanks.", "cancelled: cancelled", "abort"]);

    // Its declarations type a node16 app that imports the subpath. skipLibCheck: `ai`'s own
    // declarations need @types/node, which is the app's affair, not this package's.
    writeFileSync(
      join(app, "tsconfig.ai-sdk.json"),
      JSON.stringify({ compilerOptions: { module: "node16", moduleResolution: "node16", target: "es2022", lib: ["es2023", "dom"], strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ["chat-app.ts"] }),
    );
    writeFileSync(
      join(app, "chat-app.ts"),
      [
        'import { chatTransport, isDisconnect, type ChatVersion } from "@ratchet/client/ai-sdk";',
        'import type { DefaultChatTransport, UIMessage } from "ai";',
        'const version: ChatVersion = "v7";',
        'export const transport = chatTransport({ baseUrl: "http://127.0.0.1:8787", token: () => "ut_x", version });',
        "export const forUseChat: DefaultChatTransport<UIMessage> = transport;",
        'export const stop = (runId: string): Promise<string> => transport.cancelChat(runId).then((run) => run.status);',
        "export const lost = (error: unknown): boolean => isDisconnect(error);",
        "// @ts-expect-error: v8 is no version of the endpoint",
        'chatTransport({ baseUrl: "", token: "", version: "v8" });',
      ].join("\n"),
    );
    const tsc = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.ai-sdk.json"], { cwd: app }).catch((error: { stdout: string }) => error);
    expect(tsc.stdout).toBe("");
  }, 120_000);

  it("carries @ratchet/client/ag-ui, with @ag-ui/client an optional peer: plain Node runs a stored agent's thread through it", async () => {
    const installed = join(app, "node_modules/@ratchet/client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, Record<string, unknown>>;
    expect(manifest.exports!["./ag-ui"]).toEqual({ types: "./dist/client/ag-ui/index.d.ts", default: "./dist/client/ag-ui/index.js" });
    // The app's own @ag-ui/client (1.0, as this repository has it) and what it needs.
    for (const name of ["@ag-ui", "@bufbuild", "rxjs", "tslib", "uuid", "fast-json-patch", "untruncate-json", "compare-versions", "zod"]) {
      if (existsSync(join(ROOT, "node_modules", name)) && !existsSync(join(app, "node_modules", name))) symlinkSync(join(ROOT, "node_modules", name), join(app, "node_modules", name), "dir");
    }
    const agent = `pkg-${Date.now().toString(36)}`;
    const made = await fetch(`${dev!.url}/v1/agents`, {
      method: "POST",
      headers: { Authorization: "Bearer dev-token", "Content-Type": "application/json" },
      body: JSON.stringify({ name: agent, description: "Greets.", run: { provider: "scripted", minAnswerChars: 0, script: [{ text: "Hello from the package." }] } }),
    });
    expect(made.status).toBe(201);
    writeFileSync(
      join(app, "ag-ui.mjs"),
      [
        'import { ratchetAgUiAgent } from "@ratchet/client/ag-ui";',
        `const agent = ratchetAgUiAgent({ baseUrl: process.env.RATCHET_URL, token: "dev-token", agent: "${agent}" });`,
        'agent.addMessage({ id: "m1", role: "user", content: "Hi" });',
        "await agent.runAgent();",
        "console.log(`answer: ${agent.messages.at(-1).content}`);",
      ].join("\n"),
    );
    const { stdout, stderr } = await run(process.execPath, ["ag-ui.mjs"], { cwd: app, env: { ...process.env, RATCHET_URL: dev!.url }, timeout: 60_000 });
    expect(stderr).toBe("");
    expect(stdout.trim()).toBe("answer: Hello from the package.");
  }, 120_000);
});