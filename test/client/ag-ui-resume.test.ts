// @ratchet/client/ag-ui: HttpAgent (at its defaults) with the resuming fetch, on a connection that
// breaks mid-stream, mid-frame: the fetch sends the request again with Last-Event-ID and the agent
// sees one stream, the same events as a full read of the run (nothing lost, nothing twice).
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EventSchemas } from "@ag-ui/core/schemas";
import { ratchetAgUiAgent } from "../../src/client/ag-ui/index";
import { postAgUi, readFrames } from "../helpers/ag-ui";
import { foldAgUiEvents } from "../helpers/ag-ui-fold";
import { agentName, makeAgent } from "../helpers/agents";
import { BASE } from "../helpers/http";
import { driveRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

/** A body that gives `bytes` bytes of `body`, then fails as a dropped connection does. */
function cutAfter(body: ReadableStream<Uint8Array>, bytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let left = bytes;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        await reader.cancel();
        controller.error(new TypeError("network connection lost"));
        return;
      }
      const { value, done } = await reader.read();
      if (done) return controller.close();
      const part = value.slice(0, left);
      left -= part.length;
      controller.enqueue(part);
    },
  });
}

describe("@ratchet/client/ag-ui", () => {
  it("a stream cut mid-frame, twice, is resumed: the agent's events are a full read's", async () => {
    const name = agentName("agui-client");
    await makeAgent({
      name,
      run: {
        provider: "scripted",
        minAnswerChars: 0,
        tools: ["calculator"],
        script: [{ text: "Let me add these two numbers.", chunk: 3, toolCalls: [{ id: "c1", name: "calculator", input: { expression: "20+22" } }] }, { text: "The sum is 42.", chunk: 2 }],
      },
    });
    const sent: { lastEventId: string | null }[] = [];
    let runId = "";
    let driving: Promise<void> | undefined;
    const agent = ratchetAgUiAgent({
      baseUrl: BASE,
      token: TEST_API_TOKEN,
      agent: name,
      minDelayMs: 1,
      maxDelayMs: 1,
      fetch: async (url, init) => {
        const response = await SELF.fetch(url, init);
        sent.push({ lastEventId: new Headers(init.headers).get("Last-Event-ID") });
        runId = response.headers.get("x-ratchet-run-id") ?? runId;
        driving ??= driveRun(runId);
        // The first two answers break after a few hundred bytes; the third is whole.
        if (sent.length > 2 || response.body === null) return response;
        return new Response(cutAfter(response.body, 250 * sent.length), { status: response.status, headers: response.headers });
      },
    });
    const events: Record<string, unknown>[] = [];
    agent.subscribe({ onEvent: ({ event }) => void events.push(EventSchemas.parse(event) as Record<string, unknown>) });
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "20+22?" });
    await agent.runAgent();
    await driving;
    expect(sent).toHaveLength(3);
    expect(sent[0]!.lastEventId).toBeNull();
    expect(sent[1]!.lastEventId).not.toBeNull();
    expect(sent[2]!.lastEventId).not.toBe(sent[1]!.lastEventId);
    // A full read of the run: every event after seq 0 (Last-Event-ID: 0), after the RUN_STARTED the agent got.
    const full = await readFrames(await postAgUi(`/v1/ag-ui/${name}`, { threadId: agent.threadId, runId: "again", messages: [] }, { "Last-Event-ID": "0" }));
    expect(events[0]!.type).toBe("RUN_STARTED");
    expect(foldAgUiEvents(events.slice(1))).toEqual(foldAgUiEvents(full.map((frame) => EventSchemas.parse(frame.event) as Record<string, unknown>)).map((line) => line.replaceAll('"runId":"again"', `"runId":"${String(events[0]!.runId)}"`)));
    expect((agent.messages.at(-1) as { content?: string }).content).toBe("The sum is 42.");
  });
});
