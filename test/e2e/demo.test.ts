// `npm run demo` end to end: wrangler dev, the demo as a child process, an answer typed on its
// stdin when it asks. Offline (scripted model); with ANTHROPIC_API_KEY set, where the demo asks
// for provider "anthropic" and the service talks to the fake Anthropic server; and with
// OPENAI_API_KEY set, where it asks for provider "openai" and the service talks to the fake
// OpenAI server.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../fake-anthropic/server";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai/server";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ARTIFACTS = fileURLToPath(new URL("./.artifacts/", import.meta.url));
const PORT = await freePort();
/** A model no built-in table prices: the deployment's PRICES setting does. */
const MODEL = "claude-demo-e2e";
/** Priced as gpt-5.4-mini ($0.75 / $4.50 per million tokens), whose id it starts with. */
const OPENAI_MODEL = "gpt-5.4-mini-demo-e2e";
/** The demo's offline runs: no real provider's key, whatever the terminal running the tests has. */
const OFFLINE = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };

type Demo = { code: number | null; output: string; stderr: string };

/** Runs `npm run demo` (with `args`), answers the first question it asks with `answer`, and waits for it to exit. */
async function runDemo(env: Record<string, string | undefined>, question: string, answer: string, args: string[] = []): Promise<Demo> {
  const child = spawn("npm", ["run", "--silent", "demo", ...(args.length > 0 ? ["--", ...args] : [])], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let stderr = "";
  let answered = false;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (!answered && output.includes(question)) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  // "close", not "exit": the process may exit before all it wrote to stdout has been read here.
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, output, stderr };
}

async function messagesOf(dev: DevServer, output: string): Promise<{ role: string; content: unknown }[]> {
  const [, runId, token] = /run (run_[a-z2-7]{26}) \(run token (rt_[A-Za-z0-9_-]{43})/.exec(output) ?? [];
  expect(runId, output).toBeDefined();
  const response = await fetch(`${dev.url}/v1/runs/${runId}/messages`, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: { role: string; content: unknown }[] }).messages;
}

describe("npm run demo", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-demo-"));
  let dev: DevServer | undefined;
  let fake: FakeAnthropic | undefined;
  let fakeOpenAI: FakeOpenAI | undefined;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    // The demo imports @ratchet/client, which `npm run demo` builds when a source changed: built
    // here once, while the service starts, so no demo below spends its time limit on it.
    const built = promisify(execFile)("npm", ["run", "--silent", "build:client"], { cwd: ROOT });
    built.catch(() => undefined); // awaited below, after the servers started
    fake = await startFakeAnthropic();
    fakeOpenAI = await startFakeOpenAI();
    // The keys let the service offer providers "anthropic" and "openai"; scripted runs (with a script) still work.
    dev = await startDevServer({
      port: PORT,
      persistTo: state,
      vars: {
        ANTHROPIC_API_KEY: "demo-test-key",
        ANTHROPIC_BASE_URL: fake.url,
        DEFAULT_MODEL: MODEL,
        OPENAI_API_KEY: "demo-openai-key",
        OPENAI_BASE_URL: fakeOpenAI.url,
        DEFAULT_OPENAI_MODEL: OPENAI_MODEL,
        PRICES: JSON.stringify({ [MODEL]: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }),
      },
    });
    await built;
  });

  afterAll(async () => {
    await dev?.kill();
    await fake?.close();
    await fakeOpenAI?.close();
    rmSync(state, { recursive: true, force: true });
  });

  it("offline: shows the steps and tool, asks in the terminal, prints the final answer and the cost", async () => {
    const demo = await runDemo({ RATCHET_URL: dev!.url, ...OFFLINE }, "What should I call the result?", "The product");
    writeFileSync(join(ARTIFACTS, "demo-scripted.txt"), demo.output);
    expect(demo.stderr).toBe("");
    expect(demo.code, demo.output).toBe(0);
    expect(demo.output).toContain("scripted model (offline)");
    for (const line of ["step 1/8", "→ calculator", "← 391", "step 2/8", "? What should I call the result?", "step 3/8", "cost so far $0.0270"]) {
      expect(demo.output).toContain(line);
    }
    expect(demo.output).toContain("✔ finished after 3 steps");
    expect(demo.output).toContain("Final answer: Thank you, noted. The result is 391.");
    expect(demo.output).toContain("Cost: $0.0270 of a $0.2500 budget");
    const messages = await messagesOf(dev!, demo.output);
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["391", "The product"]);
  });

  it("with ANTHROPIC_API_KEY: asks the service for provider anthropic and runs the real provider (against the fake API)", async () => {
    fake!.script(MODEL, [
      { text: "I'll use the calculator.", toolCalls: [{ id: "toolu_calc", name: "calculator", input: { expression: "17 * 23" } }], cost: 0.004 },
      { text: "", toolCalls: [{ id: "toolu_ask", name: "ask", input: { question: "What do you want to call 391?" } }], cost: 0.003 },
      { text: "Your lucky number is 391.", cost: 0.002 },
    ]);
    const demo = await runDemo({ RATCHET_URL: dev!.url, ANTHROPIC_API_KEY: "sk-ant-demo" }, "What do you want to call 391?", "my lucky number");
    writeFileSync(join(ARTIFACTS, "demo-anthropic.txt"), demo.output);
    expect(demo.code, `${demo.output}\n${demo.stderr}`).toBe(0);
    expect(demo.output).toContain("provider anthropic");
    expect(demo.output).toContain("→ calculator");
    expect(demo.output).toContain("Final answer: Your lucky number is 391.");
    expect(demo.output).toContain("Cost: $0.0090");
    const requests = fake!.requests(MODEL);
    expect(requests.length).toBe(3);
    const messages = await messagesOf(dev!, demo.output);
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["391", "my lucky number"]);
  });

  it("with OPENAI_API_KEY: asks the service for provider openai and runs the real provider (against the fake API)", async () => {
    fakeOpenAI!.script(OPENAI_MODEL, [
      { text: "I'll use the calculator.", toolCalls: [{ id: "call_calc", name: "calculator", input: { expression: "17 * 23" } }] },
      { toolCalls: [{ id: "call_ask", name: "ask", input: { question: "What do you want to call 391?" } }] },
      { text: "Your lucky number is 391." },
    ]);
    const demo = await runDemo({ RATCHET_URL: dev!.url, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "sk-demo" }, "What do you want to call 391?", "my lucky number");
    writeFileSync(join(ARTIFACTS, "demo-openai.txt"), demo.output);
    expect(demo.code, `${demo.output}\n${demo.stderr}`).toBe(0);
    expect(demo.output).toContain("provider openai");
    expect(demo.output).toContain("→ calculator");
    expect(demo.output).toContain("Final answer: Your lucky number is 391.");
    const requests = fakeOpenAI!.requests(OPENAI_MODEL);
    expect(requests.map((request) => request.outcome)).toEqual(["ok", "ok", "ok"]);
    // Charged at gpt-5.4-mini's rates: $0.75 per million uncached input tokens, $0.075 cached, $4.50 output.
    const cost = requests.reduce((sum, request) => {
      const usage = request.usage!;
      return sum + ((usage.prompt_tokens - usage.cached_tokens) * 0.75 + usage.cached_tokens * 0.075 + usage.completion_tokens * 4.5) / 1e6;
    }, 0);
    expect(demo.output).toContain(`Cost: $${cost.toFixed(4)}`);
    const messages = await messagesOf(dev!, demo.output);
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["391", "my lucky number"]);
  });

  it("--long: a run whose history is compacted on the way shows each compaction", async () => {
    const demo = await runDemo({ RATCHET_URL: dev!.url, ...OFFLINE }, "never asked", "", ["--long"]);
    writeFileSync(join(ARTIFACTS, "demo-long.txt"), demo.output);
    expect(demo.code, `${demo.output}\n${demo.stderr}`).toBe(0);
    expect(demo.output).toMatch(/context compacted \(summary\): [\d,]+ → about [\d,]+ tokens/);
    expect(demo.output).toContain("Final answer: The total of 1 to 10 is 55: I added each number");
    const messages = await messagesOf(dev!, demo.output);
    expect(messages.filter((message) => message.role === "tool")).toHaveLength(10);
  });

  it("--inbox: a run is started for the user, whose phone leaves it; the question arrives through the user's inbox and is answered there", async () => {
    const demo = await runDemo({ RATCHET_URL: dev!.url, ...OFFLINE }, "What should I call the result?", "The product", ["--inbox"]);
    writeFileSync(join(ARTIFACTS, "demo-inbox.txt"), demo.output);
    expect(demo.stderr).toBe("");
    expect(demo.code, demo.output).toBe(0);
    const lines = demo.output.split("\n");
    const at = (prefix: string) => lines.findIndex((line) => line.includes(prefix));
    const user = /minted a user token for (demo-user-[a-z0-9]+)/.exec(demo.output)?.[1];
    expect(user, demo.output).toBeDefined();
    // Offline against `wrangler dev` (LOCAL_DEV at a loopback address) the phone's user token starts the run itself.
    const runId = /phone: started (run_[a-z2-7]{26}) for demo-user-[a-z0-9]+, and the phone went back in the pocket/.exec(demo.output)?.[1];
    expect(runId, demo.output).toBeDefined();
    // In this order: the phone leaves, the inbox hears the run ask, the answer, the end.
    const order = ["went back in the pocket", "inbox: run-started", "inbox: run-waiting", "? What should I call the result?", "inbox: run-answered", "inbox: run-ended", "✔ finished after 3 steps"].map(at);
    expect(order.every((index) => index >= 0), demo.output).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(demo.output).toContain("Final answer: Thank you, noted. The result is 391.");
    // The terminal never opened the run's own stream, and kept no run token.
    expect(demo.output).not.toMatch(/rt_[A-Za-z0-9_-]{43}/);
    const token = /Bearer (ut_[A-Za-z0-9_.-]+)"/.exec(demo.output)?.[1];
    expect(token, demo.output).toBeDefined();
    const listed = (await (await fetch(`${dev!.url}/v1/runs`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { runs: { id: string; status: string }[] };
    expect(listed.runs).toMatchObject([{ id: runId, status: "finished" }]);
    const messages = (await (await fetch(`${dev!.url}/v1/runs/${runId}/messages`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { messages: { role: string; content: unknown }[] };
    expect(messages.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["391", "The product"]);
  });

  it("says how to start the service when it is not running", async () => {
    const demo = await runDemo({ RATCHET_URL: "http://127.0.0.1:9", ...OFFLINE }, "never asked", "");
    expect(demo.code).toBe(1);
    expect(demo.output).toContain("Cannot reach Ratchet at http://127.0.0.1:9. Start it in another terminal with `npm start`");
  });
});
