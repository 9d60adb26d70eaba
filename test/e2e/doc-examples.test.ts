// The README's and docs' shell examples marked ```sh run``` run as written against `wrangler dev`
// (test/e2e/support/doc-examples.ts says how a block is marked and what its comment checks): each
// command's status and the fields its text names. A doc example that stops working fails here.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "./support/api";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { blocksOf, readDoc } from "./support/doc-blocks";
import { curlCount, expectationAfter, fieldAt, problemsOf, runBlock } from "./support/doc-examples";
import { LOCAL_TOKEN } from "./support/local-vars";
import { watchRun } from "./support/run-watch";
import { freePort } from "./support/http-server";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PORT = await freePort();
const FILES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
const marked = FILES.flatMap((file) => blocksOf(file).filter((block) => block.info === "sh run"));

describe("the docs' marked shell examples, run against wrangler dev", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-doc-examples-"));
  const snapshot = snapshotProject(ROOT);
  let dev: DevServer | undefined;

  beforeAll(async () => {
    dev = await startDevServer({ port: PORT, persistTo: state, cwd: snapshot.dir });
  });

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(state, { recursive: true, force: true });
  });

  it("are there: the README's and docs/api.md's", () => {
    expect(marked.filter((block) => block.file === "README.md").length).toBeGreaterThanOrEqual(2);
    expect(marked.filter((block) => block.file === "docs/api.md").length).toBeGreaterThanOrEqual(4);
  });

  // Each feature's page has an example a newcomer can run offline that reaches the feature: the
  // agent called, the fork gone its own way, the schedule fired, the inbox rung.
  it.each(["docs/children.md", "docs/forks.md", "docs/schedules.md", "docs/inbox.md", "docs/evals.md"])("%s has a runnable offline example", (file) => {
    expect(marked.filter((block) => block.file === file).length).toBeGreaterThanOrEqual(2);
  });

  // docs/ai-sdk.md's blocks are whole files that the chat tests run as written: chats.mjs, main.tsx
  // and chat.tsx in Chromium (chat-ui.test.ts, chat-crash.test.ts), chat-node.mjs in Node
  // (chat-node.test.ts). No other block, so no fragment the tests do not run.
  it("docs/ai-sdk.md: every code block is a file the chat tests run", () => {
    expect(blocksOf("docs/ai-sdk.md").map((block) => [block.info, block.code.split("\n")[0]])).toEqual([
      ["js", "// chats.mjs"],
      ["tsx", "// main.tsx"],
      ["tsx", "// chat.tsx"],
      ["js", "// chat-node.mjs"],
    ]);
  });

  it("spell Idempotency-Key one way, the real one: <runId>/s<segment>/<step key>", () => {
    const spellings = FILES.flatMap((file) => [...readDoc(file).matchAll(/<runId>\/[^`\s]*/g)].map((match) => `${file}: ${match[0]}`));
    expect(spellings.length).toBeGreaterThanOrEqual(3);
    expect(spellings.filter((spelling) => !/<runId>\/s<segment>\//.test(spelling))).toEqual([]);
    // And the examples' keys have the segment: run_…/s1/tool/3/….
    const keys = FILES.flatMap((file) => [...readDoc(file).matchAll(/Idempotency-Key: (run_\S+)/g)].map((match) => match[1]!));
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatch(/^run_[a-z2-7]+\/s\d+\/(tool|start)\/\d+\//);
  });

  for (const file of FILES) {
    const blocks = marked.filter((block) => block.file === file);
    if (blocks.length === 0) continue;
    it(`${file}: each marked block answers as its comment says`, async () => {
      // What a reader has at hand before the file's first example: the address, the local deployment
      // token, a run of their own that waits for an answer, and a user token.
      const waiting = await createRun(dev!.url, LOCAL_TOKEN, {
        provider: "scripted",
        messages: [{ role: "user", content: "Ask me something." }],
        tools: ["ask"],
        script: [{ toolCalls: [{ id: "q1", name: "ask", input: { question: "Ready?" } }] }, { text: "Done." }],
      });
      const minted = (await (
        await fetch(`${dev!.url}/v1/tokens`, { method: "POST", headers: { Authorization: `Bearer ${LOCAL_TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify({ subject: "user-42", ttlSeconds: 3600 }) })
      ).json()) as { token: string };
      const vars: Record<string, string> = { BASE: dev!.url, DEPLOY_TOKEN: LOCAL_TOKEN, RUN: waiting.id, TOKEN: waiting.token, USER_TOKEN: minted.token };
      const text = readDoc(file);
      for (const block of blocks) {
        const where = `${file}:${block.line}`;
        const expectation = expectationAfter(text, block);
        expect(expectation.answers.length, `${where}: one status per curl command`).toBe(curlCount(block.code));
        for (const wait of expectation.waits) {
          const [what, target] = wait.split("@") as [string, string?];
          const [type, count = "1"] = what.split("=") as [string, string?];
          const id = target === undefined ? vars.RUN! : vars[target]!;
          const token = target === undefined ? vars.TOKEN! : vars.DEPLOY_TOKEN!;
          const watch = watchRun({ base: dev!.url, id, token, deadlineMs: 60_000, stayAfterEnd: true, of: id.startsWith("exp_") ? "experiments" : "runs" });
          const seen = () => watch.events.filter((event) => event.type === type).length >= Number(count);
          await watch.until(seen, 60_000, () => `${where}: ${id} sent no ${count} ${type} event(s)`);
          watch.close();
        }
        const answers = await runBlock(block.code, vars);
        expect(answers.length, `${where}: answers`).toBe(expectation.answers.length);
        expectation.answers.forEach((expected, index) => {
          const answer = answers[index]!;
          expect(problemsOf(answer, expected), `${where}, command ${index + 1}`).toEqual([]);
          for (const [name, path] of Object.entries(expected.then)) vars[name] = String(fieldAt(JSON.parse(answer.text), path));
        });
      }
    });
  }
});
