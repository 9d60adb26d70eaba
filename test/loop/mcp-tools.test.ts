// MCP servers' tools through the loop, against the real test MCP servers (test/mcp-server) with the
// official SDK on both sides: the journaled listing, names, schemas, results, errors, timeouts, a
// server that dies and comes back, and what a crash mid-call does.
import { afterEach, describe, expect, it } from "vitest";
import type { McpServerRef } from "../../src/api/types";
import { runToolLoop } from "../../src/loop";
import type { AnyToolSpec, ChatMessage, RunToolLoopOptions } from "../../src/loop/types";
import { OUTCOME_UNKNOWN } from "../../src/tools";
import { McpConnections } from "../../src/tools/mcp/mcp-connections";
import { McpListFailed } from "../../src/tools/mcp/mcp-errors";
import { memoryJournal, type MemoryJournal } from "../helpers/journal";
import { keyOf, mcpTools, mcpWorld, type McpWorld } from "../helpers/mcp";
import { call, scriptedModel } from "../helpers/scripted";
import { arrived, callsFor, flaky, flakyUrl, MCP_TEST_SECRET, mcpUrl } from "../mcp-server/client";

const user: ChatMessage[] = [{ role: "user", content: "go" }];
const main = (extra: Partial<McpServerRef> = {}): McpServerRef => ({ name: "main", url: mcpUrl(), ...extra });

function loop(journal: MemoryJournal, tools: AnyToolSpec[], turns: Parameters<typeof scriptedModel>[0], extra: Partial<RunToolLoopOptions> = {}) {
  const model = scriptedModel(turns);
  return { model, result: runToolLoop({ generate: model.generate, model: "m", messages: user, tools, step: journal.step, ...extra }) };
}

const toolMessage = (messages: ChatMessage[], id: string) => messages.find((message) => message.role === "tool" && message.toolCallId === id);

const open: McpConnections[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connections) => connections.close()));
});

async function toolsOf(world: McpWorld, servers: McpServerRef[], journal: MemoryJournal, options: Parameters<typeof mcpTools>[3] = {}) {
  const built = await mcpTools(world, servers, journal.step, options);
  open.push(built.connections);
  return built;
}

describe("MCP tools through the loop", () => {
  it("the server's tools are listed once, as a journaled step, and offered as <server>__<tool> with their schemas as given", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const { tools, listings } = await toolsOf(world, [main()], journal);
    expect(journal.worked).toEqual(["mcp-list/main"]);
    expect(tools.map((tool) => tool.name)).toEqual(["main__echo", "main__picture", "main__broken", "main__slow", "main__charge", "main__weather"]);
    const echo = tools.find((tool) => tool.name === "main__echo")!;
    expect(echo.description).toBe("Echoes the text back.");
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    // A name the providers would refuse is left out with its reason, never renamed.
    expect(listings[0]!.refused).toEqual([{ tool: "files.read", reason: expect.stringMatching(/^its name has characters a tool name may not have/) }]);

    const { model, result } = loop(journal, tools, [{ toolCalls: [call("main__echo", { text: "hi" }, "e1")] }, { text: "done" }]);
    const done = await result;
    expect(toolMessage(done.messages, "e1")).toEqual({ role: "tool", toolCallId: "e1", content: "echo: hi" });
    expect(model.requests[0]!.tools.map((tool) => tool.name)).toContain("main__weather");
    // A replay (a new process: new connections) reads the listing back: nothing is listed or called again.
    const again = await toolsOf(world, [main()], journal, { connections: new McpConnections(fetch) });
    const worked = journal.worked.length;
    const replay = loop(journal, again.tools, [{ toolCalls: [call("main__echo", { text: "hi" }, "e1")] }, { text: "done" }]);
    expect((await replay.result).messages).toEqual(done.messages);
    expect(journal.worked.length).toBe(worked);
    expect(replay.model.requests).toHaveLength(0);
    expect(await callsFor(keyOf(world, "tool/1/e1"))).toHaveLength(1);
  });

  it("`tools` limits what is offered; a name there that the server does not list is refused", async () => {
    const world = mcpWorld();
    const { tools, listings } = await toolsOf(world, [main({ tools: ["echo", "nope"] })], memoryJournal());
    expect(tools.map((tool) => tool.name)).toEqual(["main__echo"]);
    expect(listings[0]!.refused).toEqual([{ tool: "nope", reason: "the server does not list it" }]);
  });

  it("text, images, error results and structured content become tool results; the call carries its idempotency key", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const { tools } = await toolsOf(world, [main()], journal);
    const { result } = loop(journal, tools, [
      { toolCalls: [call("main__picture", {}, "p"), call("main__broken", {}, "b"), call("main__weather", { city: "Oslo" }, "w")] },
      { text: "done" },
    ]);
    const { messages } = await result;
    const picture = toolMessage(messages, "p")!;
    const hash = [...world.images.keys()][0]!;
    expect(picture.content).toEqual([
      { type: "text", text: "a tiny picture" },
      { type: "image", mimeType: "image/png", hash },
      { type: "text", text: "[image left out: The image data is a PNG image, not image/jpeg.]" },
      { type: "text", text: "[audio (audio/wav) left out: the model does not take audio]" },
    ]);
    expect(world.images.get(hash)!.mimeType).toBe("image/png");
    expect(toolMessage(messages, "b")).toMatchObject({ isError: true, content: "the tool broke: disk on fire" });
    expect(toolMessage(messages, "w")).toMatchObject({ content: '{"city":"Oslo","celsius":21.5}' });
    expect(toolMessage(messages, "w")!).not.toHaveProperty("isError");
    expect(await callsFor(keyOf(world, "tool/1/w"))).toEqual([{ tool: "weather", sessionId: expect.any(String), arguments: { city: "Oslo" } }]);
  });

  it("structured content is a finish tool's final output", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const { tools } = await toolsOf(world, [main({ tools: ["weather"] })], journal);
    const { result } = loop(journal, tools, [{ toolCalls: [call("main__weather", { city: "Rome" }, "w")] }], { finishTools: ["main__weather"] });
    expect(await result).toMatchObject({ stoppedBy: "finish-tool", final: { city: "Rome", celsius: 21.5 } });
  });

  it("input that fails the tool's schema is answered by the loop, and nothing is sent", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const { tools } = await toolsOf(world, [main()], journal);
    const { result } = loop(journal, tools, [{ toolCalls: [call("main__echo", { text: 7 }, "bad")] }, { text: "sorry" }]);
    const reply = toolMessage((await result).messages, "bad")!;
    expect(reply).toMatchObject({ isError: true });
    expect(String(reply.content)).toMatch(/^Invalid input for main__echo:\n- text: /);
    expect(await callsFor(keyOf(world, "tool/1/bad"))).toHaveLength(0);
    expect(await callsFor(keyOf(world, "reply/1/bad"))).toHaveLength(0);
  });

  it("a call past its timeout is an error result the model sees; the run goes on", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const { tools } = await toolsOf(world, [main()], journal, { timeoutMs: 200 });
    const { result } = loop(journal, tools, [{ toolCalls: [call("main__slow", { ms: 5_000 }, "s")] }, { text: "It was too slow." }]);
    const done = await result;
    expect(toolMessage(done.messages, "s")).toMatchObject({ isError: true, content: "MCP server main did not answer main__slow within 200 ms." });
    expect(done).toMatchObject({ stoppedBy: "done", finalText: "It was too slow." });
  });

  it("a cancel during a call ends it at once: the loop stops with `cancel` and the call is 'Not run: cancel.'", async () => {
    const world = mcpWorld();
    const controller = new AbortController();
    // The journal's steps see the loop's signal, as the run object's do.
    const journal = memoryJournal(new Map(), controller.signal);
    const { tools } = await toolsOf(world, [main()], journal);
    // A call of a minute: without the cancel reaching it, the test would run past its timeout.
    const { result } = loop(journal, tools, [{ toolCalls: [call("main__slow", { ms: 60_000 }, "s")] }, { text: "never" }], { signal: controller.signal });
    await arrived(keyOf(world, "tool/1/s"));
    controller.abort(new Error("cancelled"));
    const done = await result;
    expect(done.stoppedBy).toBe("cancel");
    expect(toolMessage(done.messages, "s")).toMatchObject({ isError: true, content: "Not run: cancel." });
    expect(journal.store.has("tool/1/s")).toBe(false);
    // The server was told (notifications/cancelled), so its work stopped too.
    expect((await arrived(keyOf(world, "tool/1/s"), { cancelled: 1 }))[0]).toMatchObject({ cancelled: true });
  });

  it("a host taken off the allow list is not called, even by a run made before", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const { tools } = await toolsOf(world, [main()], journal, { allowHosts: [] });
    const { result } = loop(journal, tools, [{ toolCalls: [call("main__echo", { text: "x" }, "e")] }, { text: "ok" }]);
    expect(toolMessage((await result).messages, "e")).toMatchObject({ isError: true, content: expect.stringMatching(/^MCP server main may not be called: 127.0.0.1:\d+ is not on the allow list.$/) });
    expect(await callsFor(keyOf(world, "tool/1/e"))).toHaveLength(0);
  });

  it("a server that dies is an error result; when it comes back the next call opens a new session", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const server: McpServerRef = { name: "flaky", url: flakyUrl() };
    const { tools } = await toolsOf(world, [server], journal);
    const turns = [
      { toolCalls: [call("flaky__ping", { n: 1 }, "a")] },
      { toolCalls: [call("flaky__ping", { n: 2 }, "b")] },
      { toolCalls: [call("flaky__ping", { n: 3 }, "c")] },
      { text: "done" },
    ];
    const model = scriptedModel(turns);
    let calls = 0;
    const options = {
      generate: async (...args: Parameters<typeof model.generate>) => {
        // Before the model's 2nd call the server dies; before its 3rd it is back (with no session left).
        calls++;
        if (calls === 2) await flaky("down");
        if (calls === 3) await flaky("up");
        return model.generate(...args);
      },
      model: "m",
      messages: user,
      tools,
      step: journal.step,
    };
    try {
      const { messages } = await runToolLoop(options);
      expect(toolMessage(messages, "a")).toMatchObject({ content: "pong 1" });
      const down = toolMessage(messages, "b")!;
      expect(down).toMatchObject({ isError: true });
      expect(String(down.content)).toMatch(/^MCP server flaky could not be reached: /);
      expect(toolMessage(messages, "c")).toMatchObject({ content: "pong 3" });
      const [first] = await callsFor(keyOf(world, "tool/1/a"));
      const [third] = await callsFor(keyOf(world, "tool/3/c"));
      expect(third!.sessionId).not.toBe(first!.sessionId);
    } finally {
      await flaky("up");
    }
  });

  it("a session the server forgot (it restarted between two calls) is replaced, and the call goes through once", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const server: McpServerRef = { name: "flaky", url: flakyUrl() };
    const { tools } = await toolsOf(world, [server], journal);
    const model = scriptedModel([{ toolCalls: [call("flaky__ping", { n: 1 }, "a")] }, { toolCalls: [call("flaky__ping", { n: 2 }, "b")] }, { text: "done" }]);
    let calls = 0;
    const { messages } = await runToolLoop({
      generate: async (...args) => {
        if (++calls === 2) {
          await flaky("down");
          await flaky("up");
        }
        return model.generate(...args);
      },
      model: "m",
      messages: user,
      tools,
      step: journal.step,
    });
    expect(toolMessage(messages, "b")).toMatchObject({ content: "pong 2" });
    const second = await callsFor(keyOf(world, "tool/2/b"));
    expect(second).toHaveLength(1);
    expect(second[0]!.sessionId).not.toBe((await callsFor(keyOf(world, "tool/1/a")))[0]!.sessionId);
  });

  it("a connection cut with the call in hand: a tool that may be repeated is sent once more on a new connection, a never-twice tool is not", async () => {
    const world = mcpWorld();
    const journal = memoryJournal();
    const servers: McpServerRef[] = [{ name: "drop", url: mcpUrl("/drop/mcp"), tools: ["echo", "slow"], once: ["slow"] }];
    const { tools } = await toolsOf(world, servers, journal);
    const { result } = loop(journal, tools, [{ toolCalls: [call("drop__echo", { text: "x" }, "e"), call("drop__slow", { ms: 1 }, "s")] }, { text: "Both failed." }]);
    const { messages } = await result;
    for (const id of ["e", "s"]) expect(toolMessage(messages, id)).toMatchObject({ isError: true, content: expect.stringMatching(/^MCP server drop could not be reached: /) });
    // echo is read-only: sent again (the server had it twice); slow is listed as once: sent once.
    expect(await callsFor(keyOf(world, "tool/1/e"))).toHaveLength(2);
    expect(await callsFor(keyOf(world, "tool/1/s"))).toHaveLength(1);
  });

  it("the server behind a header: called with the run's headers; without them the listing fails with an error that never repeats them", async () => {
    const world = mcpWorld();
    const secure = (authorization: string): McpServerRef => ({ name: "secure", url: mcpUrl("/secure/mcp"), headers: { Authorization: `Bearer ${authorization}` } });
    const journal = memoryJournal();
    const { tools } = await toolsOf(world, [secure(MCP_TEST_SECRET)], journal);
    const { result } = loop(journal, tools, [{ toolCalls: [call("secure__whoami", {}, "w")] }, { text: "ok" }]);
    expect(toolMessage((await result).messages, "w")).toMatchObject({ content: "you are the deployment" });

    const wrong = "wrong-credential-9d8e7f";
    const failed = memoryJournal();
    const listing = toolsOf(world, [secure(wrong)], failed);
    await expect(listing).rejects.toBeInstanceOf(McpListFailed);
    const error = (await listing.catch((thrown: unknown) => thrown)) as Error;
    expect(error.message).toMatch(/^Listing the tools of MCP server secure failed: MCP server secure answered HTTP 401: /);
    // The server echoed the credential in its 401: the message has it redacted.
    expect(error.message).toContain("[redacted]");
    expect(error.message).not.toContain(wrong);
    // Nothing was stored: a retry lists again.
    expect(failed.store.size).toBe(0);
  });
});

describe("an MCP call in flight when the process dies", () => {
  /**
   * Runs the loop until the server has the call under `stepKey`, then "crashes": the journal as it
   * stood then, the `once` records and a new pool of connections are what a new process has.
   */
  async function crashMidCall(world: McpWorld, servers: McpServerRef[], stepKey: string, turns: Parameters<typeof scriptedModel>[0]) {
    const journal = memoryJournal();
    const first = await toolsOf(world, servers, journal);
    const dying = loop(journal, first.tools, turns).result.catch(() => undefined);
    await arrived(keyOf(world, stepKey));
    const survived = memoryJournal(new Map(journal.store));
    const second = await toolsOf(world, servers, survived, { connections: new McpConnections(fetch) });
    const resumed = await loop(survived, second.tools, turns).result;
    await dying;
    return { resumed, calls: await callsFor(keyOf(world, stepKey)), survived };
  }

  it("a tool the server marks idempotent is sent again, with the same key, in a new session", async () => {
    const world = mcpWorld();
    const turns = [{ toolCalls: [call("main__slow", { ms: 300 }, "s")] }, { text: "done" }];
    const { resumed, calls, survived } = await crashMidCall(world, [main()], "tool/1/s", turns);
    expect(toolMessage(resumed.messages, "s")).toMatchObject({ content: "slept 300 ms" });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.sessionId).not.toBe(calls[0]!.sessionId);
    // The listing was read back, not done again.
    expect(survived.worked).not.toContain("mcp-list/main");
  });

  it("a tool the server does not mark idempotent or read-only is never sent twice: the model gets 'Outcome unknown…'", async () => {
    const world = mcpWorld();
    const turns = [{ toolCalls: [call("main__charge", { amount: 5, ms: 300 }, "c")] }, { text: "I cannot tell whether it was charged." }];
    const { resumed, calls } = await crashMidCall(world, [main()], "tool/1/c", turns);
    expect(toolMessage(resumed.messages, "c")).toEqual({ role: "tool", toolCallId: "c", content: OUTCOME_UNKNOWN, isError: true });
    expect(calls).toHaveLength(1);
  });

  it("a tool the run lists as `once` is never sent twice, whatever the server says", async () => {
    const world = mcpWorld();
    const turns = [{ toolCalls: [call("main__slow", { ms: 300 }, "s")] }, { text: "done" }];
    const { resumed, calls } = await crashMidCall(world, [main({ once: ["slow"] })], "tool/1/s", turns);
    expect(toolMessage(resumed.messages, "s")).toMatchObject({ content: OUTCOME_UNKNOWN, isError: true });
    expect(calls).toHaveLength(1);
  });
});
