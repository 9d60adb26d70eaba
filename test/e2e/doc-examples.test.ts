// The README's and docs' shell examples marked ```sh run``` run as written against `wrangler dev`
// (test/e2e/support/doc-examples.ts says how a block is marked and what its comment checks): each
// command's status and the fields its text names. docs/a2a.md's and docs/mcp-server.md's
// TypeScript files run as written by Node, with the official A2A and MCP SDKs, against the same
// `wrangler dev` (support/doc-files.ts). A doc example that stops working fails here.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, request } from "./support/api";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { blocksOf, readDoc } from "./support/doc-blocks";
import { runDocScript, writeDocFile } from "./support/doc-files";
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
  const work = mkdtempSync(join(tmpdir(), "ratchet-doc-files-"));
  let dev: DevServer | undefined;

  beforeAll(async () => {
    dev = await startDevServer({ port: PORT, persistTo: state, cwd: snapshot.dir });
  });

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(state, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it("are there: the README's and docs/api.md's", () => {
    expect(marked.filter((block) => block.file === "README.md").length).toBeGreaterThanOrEqual(2);
    expect(marked.filter((block) => block.file === "docs/api.md").length).toBeGreaterThanOrEqual(4);
  });

  // Each feature's page has an example a newcomer can run offline that reaches the feature: the
  // agent called, the fork gone its own way, the schedule fired, the inbox rung.
  it.each(["docs/children.md", "docs/forks.md", "docs/schedules.md", "docs/inbox.md", "docs/evals.md", "docs/guardrails.md"])("%s has a runnable offline example", (file) => {
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

  // docs/a2a.md's and docs/mcp-server.md's code is whole TypeScript files run below; the other
  // blocks are MCP hosts' settings (no host here to run them): JSON that parses, each naming /mcp
  // and the bearer header.
  it("docs/a2a.md and docs/mcp-server.md: every code block is a file run below, or a host's settings", () => {
    const heads = (file: string) => blocksOf(file).map((block) => [block.info, block.code.split("\n")[0]]);
    expect(heads("docs/a2a.md")).toEqual([
      ["ts", "// a2a-client.ts"],
      ["ts", "// a2a-send.ts"],
      ["ts", "// a2a-resume.ts"],
    ]);
    const mcp = blocksOf("docs/mcp-server.md");
    expect(mcp.map((block) => block.info)).toEqual(["sh", "json", "json", "json", "ts"]);
    expect(mcp.at(-1)!.code.split("\n")[0]).toBe("// mcp-client.ts");
    for (const block of mcp.slice(0, -1)) {
      if (block.info === "json") expect(() => JSON.parse(block.code), `docs/mcp-server.md:${block.line}`).not.toThrow();
      expect(block.code, `docs/mcp-server.md:${block.line}`).toMatch(/https:\/\/ratchet\.example\.com\/mcp[\s\S]*Authorization/);
    }
  });

  describe("docs/a2a.md's and docs/mcp-server.md's clients, run by Node", () => {
    const agent = async (name: string, run: Record<string, unknown>) => {
      const response = await request(dev!.url, "/v1/agents", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ name, description: `The docs' ${name}.`, run: { provider: "scripted", minAnswerChars: 0, ...run } }) });
      expect(response.status, await response.text()).toBe(201);
    };
    const run = async (doc: string, entry: string) => {
      const result = await runDocScript(writeDocFile(work, entry, "ts", doc), { RATCHET_URL: dev!.url, RATCHET_TOKEN: LOCAL_TOKEN });
      expect(result.stderr, `${doc}'s ${entry}`).toBe("");
      expect(result.code, `${doc}'s ${entry}: ${result.stdout}`).toBe(0);
      return result.stdout.split("\n").filter((line) => line !== "");
    };

    beforeAll(async () => {
      writeDocFile(work, "a2a-client.ts", "ts", "docs/a2a.md");
      await agent("trip-planner", {
        tools: ["calculator"],
        script: [{ text: "Counting the days.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "Two days: the Forum, then Trastevere." }],
      });
      await agent("support-triage", {
        tools: ["ask"],
        script: [{ toolCalls: [{ id: "q1", name: "ask", input: { question: "Which order is it?" } }] }, { text: "Refund it once the order is known." }],
      });
    });

    it("a2a-send.ts: the blocking send answers the completed task and its answer", async () => {
      expect(await run("docs/a2a.md", "a2a-send.ts")).toEqual([expect.stringMatching(/^run_[a-z2-7]{26}-1: 3 Two days: the Forum, then Trastevere\.$/)]);
    });

    it("a2a-resume.ts: resubscribed with ratchet/eventId, it gets the rest of the task, no event twice", async () => {
      const lines = await run("docs/a2a.md", "a2a-resume.ts");
      const resumed = lines.findIndex((line) => line.startsWith("resuming "));
      expect(lines[0]).toMatch(/^\d+ task$/);
      // It went away at the first call's stored text (live chunks before it carry no id).
      expect(lines[resumed - 1], lines.join("\n")).toMatch(/^[1-9][\d.]* artifactUpdate$/);
      const [task, lastId] = /^resuming (\S+) after (\S+)$/.exec(lines[resumed]!)!.slice(1);
      expect(task).toMatch(/^run_[a-z2-7]{26}-1$/);
      expect(lastId).toBe(lines[resumed - 1]!.split(" ")[0]);
      const after = lines.slice(resumed + 1);
      expect(after[0], lines.join("\n")).toMatch(/^\S+ task$/); // the snapshot first
      expect(after.at(-1)).toMatch(/^\S+ statusUpdate$/);
      // Every event with an id, read before and after, in order and none twice: the ids rise
      // (`<seq>.<i>` comes before `<seq>`, the last event of its run event).
      const ids = [...lines.slice(0, resumed), ...after.slice(1)].flatMap((line) => (/^\d/.test(line) ? [line.split(" ")[0]!.split(".").map(Number)] : []));
      const key = (id: number[]) => [id[0]!, id[1] ?? Infinity] as const;
      const rises = ids.slice(1).every((id, index) => {
        const [seq, part] = key(id);
        const [seqBefore, partBefore] = key(ids[index]!);
        return seq > seqBefore || (seq === seqBefore && part > partBefore);
      });
      expect(rises, lines.join("\n")).toBe(true);
    });

    it("mcp-client.ts: lists the tools, declines the elicitation, gets progress and the final text", async () => {
      const lines = await run("docs/mcp-server.md", "mcp-client.ts");
      expect(lines[0]).toMatch(/^tools: (.+, )?support-triage, (.+, )?answer_run$/);
      expect(lines).toContain("asked: Which order is it?");
      expect(lines.filter((line) => line.startsWith("progress: "))[0]).toMatch(/^progress: 0\/\d+ Run run_[a-z2-7]{26} started\.$/);
      expect(lines.at(-1)).toBe("answer: Refund it once the order is known.");
    });
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
