// Tool faults against a real `wrangler dev`: a tool that answers 500, answers garbage, is slow, or
// whose server dies mid-call. The model must see an error result and the run must go on to its
// end; a cancel during a slow tool must return promptly and abort the call. (A tool that never
// answers waits out the 30 s timeout: too long for this suite, it is in bench/tool-timeout.ts,
// part of `npm run chaos`.) HTTP_TOOL_ALLOW names one host:port, so a second server on 127.0.0.1 is a host
// outside the list: no run may reach it, neither directly nor through a redirect.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, getMessages, getRun, request, type Created } from "./support/api";
import { startFaultToolServer, type FaultToolServer } from "./support/fault-tool-server";
import { waitForEnd } from "./support/run-events";
import { watchRun } from "./support/run-watch";
import { httpTool, type Turn } from "./support/scripts";
import { snapshotProject, startDevServer, type DevServer, type Snapshot } from "./support/dev-server";
import { freePort } from "./support/http-server";

const TOKEN = "dev-token";
const PORT = await freePort();

let dev: DevServer;
let tools: FaultToolServer; // allowed
let dying: FaultToolServer; // allowed, killed mid-call
let outside: FaultToolServer; // on 127.0.0.1 but another port: outside HTTP_TOOL_ALLOW
const dir = mkdtempSync(join(tmpdir(), "ratchet-faults-"));
let snapshot: Snapshot | undefined;

beforeAll(async () => {
  [tools, dying, outside] = await Promise.all([startFaultToolServer(), startFaultToolServer(), startFaultToolServer()]);
  snapshot = snapshotProject();
  dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir, vars: { HTTP_TOOL_ALLOW: `http://127.0.0.1:${tools.port},http://127.0.0.1:${dying.port}` } });
}, 90_000);

afterAll(async () => {
  await dev?.kill();
  await Promise.all([tools?.close(), dying?.close(), outside?.close()]);
  rmSync(dir, { recursive: true, force: true });
  snapshot?.remove();
});

function turns(...calls: { name: string; input: unknown }[][]): Turn[] {
  return [...calls.map((toolCalls, i): Turn => ({ text: `Turn ${i + 1}.`, toolCalls })), { text: "I carried on." }];
}

/** The run's view once its `end` event is stored. */
async function finished(run: Created, timeoutMs: number) {
  await waitForEnd(dev.url, run, { timeoutMs, detail: () => dev.output() });
  return getRun(dev.url, run.id, run.token);
}

async function toolResults(run: Created) {
  const messages = await getMessages(dev.url, run.id, run.token);
  return messages.filter((message) => message.role === "tool").map((message) => ({ isError: message.isError === true, content: String(message.content) }));
}

describe.concurrent("tool faults: the model sees an error result and the run goes on", () => {
  it("500, a body that is not JSON, and a slow tool (the 30 s timeout is in bench/tool-timeout.ts: npm run chaos)", async () => {
    const run = await createRun(dev.url, TOKEN, {
      messages: [{ role: "user", content: "faults" }],
      tools: [httpTool("fail", `${tools.url}/fail?status=500`), httpTool("garbage", `${tools.url}/garbage`), httpTool("slow", `${tools.url}/work?ms=2500`)],
      minAnswerChars: 0,
      script: turns([{ name: "fail", input: { n: 1 } }], [{ name: "garbage", input: { n: 2 } }], [{ name: "slow", input: { n: 3 } }]),
    });
    const view = await finished(run, 60_000);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", steps: 4, finalText: "I carried on." });
    const results = await toolResults(run);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringMatching(/answered 500: tool failure 500/) });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/not JSON/) });
    expect(results[2]).toMatchObject({ isError: false, content: expect.stringMatching(/^done /) });
    // Each call was sent once.
    const calls = [...tools.calls.values()].filter((call) => call.key.startsWith(`${run.id}/`));
    expect(calls.map((call) => call.arrivals.length)).toEqual([1, 1, 1]);
  }, 90_000);

  it("a tool server that dies mid-call, and stays dead for the next call", async () => {
    const run = await createRun(dev.url, TOKEN, {
      messages: [{ role: "user", content: "dying server" }],
      tools: [httpTool("work", `${dying.url}/work?ms=20000`)],
      script: turns([{ name: "work", input: { n: 1 } }], [{ name: "work", input: { n: 2 } }]),
    });
    await dying.until(() => [...dying.calls.keys()].some((key) => key.startsWith(`${run.id}/`)), 30_000, () => "the call never arrived");
    await dying.die();
    const view = await finished(run, 60_000);
    expect(view).toMatchObject({ status: "finished", steps: 3, finalText: "I carried on." });
    const results = await toolResults(run);
    expect(results).toHaveLength(2);
    for (const result of results) expect(result).toMatchObject({ isError: true, content: expect.stringMatching(/^HTTP tool work (could not be reached|answered)/) });
  }, 90_000);

  it("cancel during a slow tool returns promptly, aborts the call, and ends the run cancelled", async () => {
    const run = await createRun(dev.url, TOKEN, {
      messages: [{ role: "user", content: "cancel me" }],
      tools: [httpTool("hang", `${tools.url}/hang`)],
      script: turns([{ name: "hang", input: { n: 1 } }]),
    });
    const watch = watchRun({ base: dev.url, id: run.id, token: run.token, deadlineMs: 60_000 });
    const key = () => [...tools.calls.keys()].find((k) => k.startsWith(`${run.id}/`));
    await tools.until(() => key() !== undefined, 30_000, () => "the call never arrived");
    const started = Date.now();
    const response = await request(dev.url, `/v1/runs/${run.id}/cancel`, run.token, { method: "POST" });
    const took = Date.now() - started;
    expect(response.status).toBe(202);
    expect(((await response.json()) as { status: string }).status).toBe("cancelled");
    // Promptly: the tool would have held the call for 30 s. A loose bound on a shared machine.
    expect(took).toBeLessThan(5_000);
    console.log(`[tool-faults] cancel during a hanging tool call answered in ${took} ms`);
    await watch.ended;
    const end = JSON.parse(watch.events.at(-1)!.text) as { type: string; status: string; stoppedBy: string };
    expect(end).toMatchObject({ type: "end", status: "cancelled", stoppedBy: "cancel" });
    expect((await toolResults(run))[0]).toMatchObject({ isError: true, content: "Not run: cancel." });
    // The call in flight was aborted: its connection closed without an answer.
    await tools.until(() => tools.calls.get(key()!)!.abandoned === 1, 5_000, () => "the call was not aborted");
    expect(tools.calls.get(key()!)!.arrivals).toHaveLength(1);
  }, 90_000);
});

describe.concurrent("HTTP tools cannot reach a host outside HTTP_TOOL_ALLOW", () => {
  const create = (url: string) =>
    request(dev.url, "/v1/runs", TOKEN, {
      method: "POST",
      body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "x" }], tools: [httpTool("t", url)], script: [{ text: "x" }] }),
    });

  it("a tool on another port, host name or address form is refused at creation, and nothing is sent", async () => {
    const refused = [
      `${outside.url}/work`,
      `http://localhost:${tools.port}/work`, // the list names 127.0.0.1, not localhost
      `http://[::ffff:127.0.0.1]:${tools.port}/work`,
      `http://127.0.0.1.nip.io:${tools.port}/work`,
      `http://127.0.0.1:${tools.port}@127.0.0.1:${outside.port}/work`,
      "https://127.0.0.1/work", // port 443: not the port on the list
      "http://127.0.0.1/work", // port 80
    ];
    for (const url of refused) {
      const response = await create(url);
      const body = (await response.json()) as { error: { code: string; issues?: { path: string }[] } };
      expect({ url, status: response.status, code: body.error.code }).toEqual({ url, status: 400, code: "invalid-request" });
      expect(body.error.issues?.map((issue) => issue.path)).toContain("tools.0.url");
    }
    // The same host:port in other spellings is the same host, and is allowed.
    for (const url of [`http://127.0.0.1:${tools.port}/work`, `http://user@127.0.0.1:${tools.port}/work`, `HTTP://127.0.0.1:${tools.port}/work`]) {
      expect((await create(url)).status, url).toBe(201);
    }
    expect(outside.calls.size).toBe(0);
  });

  it("redirects (301, 302, 303, 307, 308) are never followed, to a host outside the list or inside it", async () => {
    const statuses = [301, 302, 303, 307, 308];
    const targets = [`${outside.url}/work`, `${tools.url}/work`];
    const refs = statuses.flatMap((status) =>
      targets.map((to, t) => httpTool(`r${status}_${t}`, `${tools.url}/redirect?status=${status}&to=${encodeURIComponent(to)}`)),
    );
    const run = await createRun(dev.url, TOKEN, {
      messages: [{ role: "user", content: "redirects" }],
      tools: refs,
      maxSteps: refs.length + 1,
      script: turns(...refs.map((ref) => [{ name: ref.name, input: { n: 1 } }])),
    });
    const view = await finished(run, 60_000);
    expect(view).toMatchObject({ status: "finished", finalText: "I carried on." });
    const results = await toolResults(run);
    expect(results).toHaveLength(refs.length);
    for (const result of results) expect(result).toMatchObject({ isError: true, content: expect.stringMatching(/a redirect\); redirects are not followed/) });
    expect(outside.calls.size).toBe(0);
    // Every call reached the redirecting route once and nothing else.
    const calls = [...tools.calls.values()].filter((call) => call.key.startsWith(`${run.id}/`));
    expect(calls).toHaveLength(refs.length);
    for (const call of calls) expect({ route: call.route, arrivals: call.arrivals.length }).toEqual({ route: "/redirect", arrivals: 1 });
  }, 90_000);
});
