// The HTTP-tool adapter against a real local server (test/tool-server/global-setup.ts).
import { describe, expect, inject, it, vi } from "vitest";
import type { AnyToolSpec, ToolContext, ToolOutput } from "../../src/loop/types";
import { createHttpTool, OUTCOME_UNKNOWN, type HttpToolRef } from "../../src/tools/http/http-tool";
import type { ToolDeps } from "../../src/tools/tool-deps";
import { TEST_TOOL_SIGNING_KEY, TEST_TOOL_SIGNING_KEY_PREVIOUS } from "../tool-server/signing-keys";

const server = inject("toolServerUrl");
/** The injected clock of most tests: 2026-07-01T12:00:00.900Z is 1782907200 in unix seconds. */
const NOW = new Date("2026-07-01T12:00:00.900Z");

function deps(overrides: Partial<ToolDeps> = {}): ToolDeps {
  return {
    runId: "run_test",
    idempotencyKey: (stepKey) => `run_test/${stepKey}`,
    fetch: (input, init) => fetch(input, init),
    allowHosts: ["http://127.0.0.1"],
    now: () => NOW,
    signingKeys: [TEST_TOOL_SIGNING_KEY],
    beginOnce: async () => true,
    ...overrides,
  };
}

function ref(path: string, extra: Partial<HttpToolRef> = {}): HttpToolRef {
  return {
    type: "http",
    name: "lookup",
    description: "Looks things up.",
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    url: `${server}${path}`,
    ...extra,
  };
}

let calls = 0;
function context(signal: AbortSignal = new AbortController().signal): ToolContext {
  calls++;
  return { signal, callId: `call_${calls}`, key: `tool/1/call_${calls}` };
}

async function call(path: string, options: { deps?: Partial<ToolDeps>; ref?: Partial<HttpToolRef>; signal?: AbortSignal } = {}) {
  const tool = createHttpTool(ref(path, options.ref), deps(options.deps));
  return (await tool.run!({ q: "x" }, context(options.signal))) as ToolOutput;
}

async function countFor(key: string): Promise<number> {
  const response = await fetch(`${server}/count?key=${encodeURIComponent(key)}`);
  return ((await response.json()) as { count: number }).count;
}

describe("HTTP tool: the request", () => {
  it("POSTs JSON { runId, callId, name, input } with the Idempotency-Key, signed", async () => {
    const tool = createHttpTool(ref("/echo"), deps());
    const output = (await tool.run!({ q: "weather" }, { signal: new AbortController().signal, callId: "c7", key: "tool/3/c7" })) as ToolOutput;
    expect(output.isError).toBeUndefined();
    expect(JSON.parse(output.content as string)).toEqual({
      method: "POST",
      contentType: "application/json",
      idempotencyKey: "run_test/tool/3/c7",
      // Standard Webhooks: the id is the Idempotency-Key, the time is the injected clock's.
      webhookId: "run_test/tool/3/c7",
      webhookTimestamp: "1782907200",
      webhookSignature: expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      body: { runId: "run_test", callId: "c7", name: "lookup", input: { q: "weather" } },
    });
  });

  it("sends the same key when the same step is sent again", async () => {
    const tool = createHttpTool(ref("/count"), deps());
    const same = { signal: new AbortController().signal, callId: "c1", key: "tool/9/again" };
    await tool.run!({ q: "x" }, same);
    await tool.run!({ q: "x" }, same);
    expect(await countFor("run_test/tool/9/again")).toBe(2);
  });
});

describe("HTTP tool: answers", () => {
  it("takes isError and costUsd from a JSON answer", async () => {
    const output = await call("/echo?isError=1&cost=0.25");
    expect(output.isError).toBe(true);
    expect(output.costUsd).toBe(0.25);
  });

  it("takes a text/plain answer as the content", async () => {
    expect(await call("/text")).toEqual({ content: "plain answer" });
  });

  it("takes content parts (images by hash)", async () => {
    const output = await call("/image");
    expect(output.content).toEqual([
      { type: "text", text: "a picture" },
      { type: "image", mimeType: "image/png", hash: "ab".repeat(32), path: "shot.png" },
    ]);
  });

  it.each([
    ["/fail", "answered 500: boom: the tool broke"],
    ["/redirect", "answered 302 (a redirect); redirects are not followed"],
    ["/invalid-json", "not JSON"],
    ["/no-content", 'without a valid "content"'],
    ["/html", "Content-Type text/html"],
    ["/big", "more than 1 MiB"],
    ["/nowhere", "answered 404"],
  ])("%s becomes an error result the model sees (%s)", async (path, message) => {
    const output = await call(path);
    expect(output.isError).toBe(true);
    expect(output.content).toContain(message);
    expect(String(output.content)).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("gives up after the timeout", async () => {
    const output = await call("/slow?ms=5000", { deps: { timeoutMs: 200 } });
    expect(output).toEqual({ content: "HTTP tool lookup did not answer within 200 ms.", isError: true });
  });

  it("shows a URL inside the runtime's error as every URL is shown: no userinfo, query value or fragment", async () => {
    const failing: typeof fetch = async () => {
      throw new TypeError("fetch https://u:PASSWORD@tools.example.com/lookup?api_key=SECRET#t failed");
    };
    const output = await call("/echo", { deps: { fetch: failing } });
    expect(output).toEqual({ content: "HTTP tool lookup could not be reached: fetch https://tools.example.com/lookup?api_key=REDACTED failed", isError: true });
  });

  it("reports an unreachable host as an error result", async () => {
    // A port nobody listens on (the discard port is closed on test machines).
    const output = await call("", { ref: { url: "http://127.0.0.1:9/" } });
    expect(output.isError).toBe(true);
    expect(output.content).toContain("could not be reached");
  });

  it("passes a cancel on as a thrown abort, not as a result", async () => {
    const controller = new AbortController();
    const pending = call("/count?ms=5000", { signal: controller.signal });
    // Cancelled once the tool server holds the request (it answers only after 5 s).
    const arrived = await fetch(`${server}/arrived?key=${encodeURIComponent(`run_test/tool/1/call_${calls}`)}`);
    expect(arrived.status).toBe(200);
    controller.abort(new Error("cancelled by test"));
    await expect(pending).rejects.toThrow("cancelled by test");
  });
});

describe("HTTP tool: the allow list at call time", () => {
  it("refuses a host that is not (or no longer) allowed, without sending", async () => {
    const fetchSpy = vi.fn(fetch);
    const output = await call("/echo", { deps: { allowHosts: ["localhost"], fetch: fetchSpy } });
    expect(output).toEqual({ content: "HTTP tool lookup may not call 127.0.0.1:" + new URL(server).port + ": the host is not allowed.", isError: true });
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe("HTTP tool: once", () => {
  it("records the start, then sends", async () => {
    const began: string[] = [];
    const tool = createHttpTool(ref("/count", { once: true }), deps({ beginOnce: async (key) => (began.push(key), true) }));
    const output = (await tool.run!({ q: "x" }, { signal: new AbortController().signal, callId: "o1", key: "tool/1/once-a" })) as ToolOutput;
    expect(output.content).toBe("call 1");
    expect(began).toEqual(["tool/1/once-a"]);
  });

  it("does not send when a start was recorded before: the outcome is unknown", async () => {
    const tool = createHttpTool(ref("/count", { once: true }), deps({ beginOnce: async () => false }));
    const output = (await tool.run!({ q: "x" }, { signal: new AbortController().signal, callId: "o2", key: "tool/1/once-b" })) as ToolOutput;
    expect(output).toEqual({ content: OUTCOME_UNKNOWN, isError: true });
    expect(await countFor("run_test/tool/1/once-b")).toBe(0);
  });

  it("does not ask beginOnce for tools that are not once", async () => {
    const beginOnce = vi.fn(async () => false);
    const output = await call("/text", { deps: { beginOnce } });
    expect(output.content).toBe("plain answer");
    expect(beginOnce).not.toHaveBeenCalled();
  });
});

describe("HTTP tool: the spec", () => {
  it("passes inputSchema through, validates with it, and carries approval", () => {
    const tool = createHttpTool(ref("/echo", { approval: true }), deps());
    expect(tool.inputSchema).toEqual(ref("/echo").inputSchema);
    expect(tool.approval).toBe(true);
    expect(tool.validate!({ q: "a" })).toEqual({ ok: true, value: { q: "a" } });
    expect(tool.validate!({ q: 1 })).toMatchObject({ ok: false, issues: [{ path: "q" }] });
    expect(tool.validate!({})).toMatchObject({ ok: false, issues: [{ path: "" }] });
  });
});

type Verification = { verified: true; id: string; timestamp: string } | { verified: false; error: string };

async function runOnce(tool: AnyToolSpec, key = `tool/1/${crypto.randomUUID()}`): Promise<ToolOutput> {
  return (await tool.run!({ q: "x" }, { signal: new AbortController().signal, callId: "s1", key })) as ToolOutput;
}

/** What the tool server's standardwebhooks verifier found (test/tool-server/global-setup.ts, POST /signed). */
async function verification(tool: AnyToolSpec, key?: string): Promise<Verification> {
  const output = await runOnce(tool, key);
  expect(output.isError).toBeUndefined();
  return JSON.parse(output.content as string) as Verification;
}

/** The verifier checks the timestamp against its own clock (5 minutes either way): these tests sign with the real one. */
const realClock = { now: () => new Date() };

describe("HTTP tool: signed requests (Standard Webhooks)", () => {
  it("verify with the spec's reference package, webhook-id being the Idempotency-Key", async () => {
    const tool = createHttpTool(ref("/signed"), deps(realClock));
    expect(await verification(tool, "tool/4/signed")).toEqual({ verified: true, id: "run_test/tool/4/signed", timestamp: expect.stringMatching(/^\d+$/) });
  });

  it("keep the id when the same call is sent again; each send carries the clock's time", async () => {
    const sentAt = [new Date(Date.now() - 60_000), new Date()];
    const clock = [...sentAt];
    const tool = createHttpTool(ref("/signed"), deps({ now: () => clock.shift()! }));
    const first = await verification(tool, "tool/5/resent");
    const again = await verification(tool, "tool/5/resent");
    const seconds = sentAt.map((at) => String(Math.floor(at.getTime() / 1000)));
    expect(first).toEqual({ verified: true, id: "run_test/tool/5/resent", timestamp: seconds[0] });
    expect(again).toEqual({ verified: true, id: "run_test/tool/5/resent", timestamp: seconds[1] });
  });

  it("carry one signature per key during a rotation, so a server that knows only the previous key accepts them", async () => {
    const rotating = deps({ ...realClock, signingKeys: [TEST_TOOL_SIGNING_KEY, TEST_TOOL_SIGNING_KEY_PREVIOUS] });
    expect(await verification(createHttpTool(ref("/signed?key=previous"), rotating))).toMatchObject({ verified: true });
    expect(await verification(createHttpTool(ref("/signed"), rotating))).toMatchObject({ verified: true });
    const echoed = JSON.parse((await runOnce(createHttpTool(ref("/echo"), rotating))).content as string) as { webhookSignature: string };
    expect(echoed.webhookSignature).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    // Without the previous key in the header, that server refuses: the signature is what it checks.
    expect(await verification(createHttpTool(ref("/signed?key=previous"), deps(realClock)))).toEqual({ verified: false, error: "No matching signature found" });
  });

  it("fail verification when the body is changed on the way", async () => {
    expect(await verification(createHttpTool(ref("/signed?tamper=1"), deps(realClock)))).toEqual({ verified: false, error: "No matching signature found" });
  });

  it("fail verification when older than the replay window (5 minutes)", async () => {
    const stale = deps({ now: () => new Date(Date.now() - 6 * 60_000) });
    expect(await verification(createHttpTool(ref("/signed"), stale))).toEqual({ verified: false, error: "Message timestamp too old" });
  });
});

describe("HTTP tool: no usable signing key", () => {
  it.each([
    ["no key", [], "TOOL_SIGNING_KEY is not set (HTTP tool requests are signed with it)"],
    ["a key too short", ["whsec_dG9vLXNob3J0"], "TOOL_SIGNING_KEY is not valid (expected whsec_ followed by the base64 of at least 24 bytes)"],
    ["a previous key too short", [TEST_TOOL_SIGNING_KEY, "whsec_dG9vLXNob3J0"], "TOOL_SIGNING_KEY_PREVIOUS is not valid (expected whsec_ followed by the base64 of at least 24 bytes)"],
  ])("%s: an error result the model sees, and nothing is sent", async (_, signingKeys, problem) => {
    const fetchSpy = vi.fn(fetch);
    const beginOnce = vi.fn(async () => true);
    const tool = createHttpTool(ref("/count", { once: true }), deps({ signingKeys, fetch: fetchSpy, beginOnce }));
    const output = await runOnce(tool);
    expect(output).toEqual({ content: `HTTP tool lookup was not called: ${problem}.`, isError: true });
    expect(String(output.content)).not.toContain("dG9vLXNob3J0");
    expect(fetchSpy).not.toHaveBeenCalled();
    // Not recorded as started: the call was never sent, so a later try is not "outcome unknown".
    expect(beginOnce).not.toHaveBeenCalled();
  });
});
