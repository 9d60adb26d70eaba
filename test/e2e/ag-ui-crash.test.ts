// The AG-UI stream across a real crash: @ratchet/client/ag-ui's agent (HttpAgent with the resuming
// fetch) streams a stored agent's thread from `wrangler dev`, which is SIGKILLed (its whole process
// group) while the run's third model call is held. The agent's connection breaks; it sends the
// request again with its Last-Event-ID until `wrangler dev`, started again on the same storage,
// answers, and reads on. What the agent saw, before the kill and after it, is a full read of the
// run's stream (every event, in order, none twice), and its messages are the run's.
import { EventSchemas } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { ratchetAgUiAgent } from "../../src/client/ag-ui/index";
import { sseBlocks, sseField } from "../../src/lib/sse/sse-blocks";
import { releaseHold } from "./support/api";
import { restartableDev } from "./support/dev-server";
import { createHeldAdder } from "./support/held-adder";
import { freePort } from "./support/http-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { foldAgUiEvents } from "../helpers/ag-ui-fold";

type Event = Record<string, unknown>;
/** Text deltas compared as the text they make, per message; every other event as its JSON with sorted keys. */
const fold = (events: readonly Event[]) => foldAgUiEvents(events, { sortedKeys: true });

describe("AG-UI after a SIGKILL of wrangler dev", () => {
  const devs = restartableDev("ratchet-ag-ui-crash-");

  it("the reconnecting agent sees every event once: a full read of the run's stream", async () => {
    const port = await freePort();
    let dev = await devs.start(port);
    const url = dev.url;
    const name = `agui-crash-${Date.now().toString(36)}`;
    await createHeldAdder(url, name, { adding: "Adding the numbers.", checking: "Checking it.", answer: "It is 4, checked." });

    const tries: (string | null)[] = [];
    let runId = "";
    const agent = ratchetAgUiAgent({
      baseUrl: url,
      token: LOCAL_TOKEN,
      agent: name,
      minDelayMs: 100,
      maxDelayMs: 500,
      fetch: async (target, init) => {
        tries.push(new Headers(init.headers).get("Last-Event-ID"));
        const response = await fetch(target, init);
        runId = response.headers.get("x-ratchet-run-id") ?? runId;
        return response;
      },
    });
    const seen: Event[] = [];
    let thirdStarted: () => void = () => undefined;
    const third = new Promise<void>((resolve) => (thirdStarted = resolve));
    agent.subscribe({
      onEvent: ({ event }) => {
        seen.push(EventSchemas.parse(event) as Event);
        if (event.type === "STEP_STARTED" && (event as unknown as { stepName: string }).stepName === "step-3") thirdStarted();
      },
    });
    agent.addMessage({ id: "m1", role: "user", content: "What is 2+2?" });
    const running = agent.runAgent();
    await third;
    const beforeKill = seen.length;
    await dev.kill();
    dev = await devs.start(port);
    await releaseHold(dev.url, LOCAL_TOKEN, runId, "third");
    await running;

    expect(tries[0]).toBeNull();
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(tries.slice(1).every((id) => id !== null)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, result: "It is 4, checked." });

    // A fresh full read of the run's stream: every event after seq 0, after the RUN_STARTED the agent got.
    const whole = await fetch(`${dev.url}/v1/ag-ui/${name}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${LOCAL_TOKEN}`, "Content-Type": "application/json", "Last-Event-ID": "0" },
      body: JSON.stringify({ threadId: agent.threadId, runId: "whole", messages: [] }),
    });
    expect(whole.status).toBe(200);
    const full: Event[] = [];
    for await (const block of sseBlocks(whole.body!)) {
      const data = sseField(block, "data");
      if (data !== undefined) full.push(EventSchemas.parse(JSON.parse(data)) as Event);
    }
    expect(seen[0]!.type).toBe("RUN_STARTED");
    const agRunId = String(seen[0]!.runId);
    expect(fold(seen.slice(1))).toEqual(fold(full).map((line) => line.replaceAll('"runId":"whole"', `"runId":"${agRunId}"`)));
    expect(agent.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(agent.messages.at(-1)).toMatchObject({ content: "It is 4, checked." });
    console.log(`[ag-ui-crash] ${beforeKill} events before the SIGKILL, ${seen.length - beforeKill} after, ${tries.length} requests (Last-Event-ID ${tries.slice(1).join(", ")}), ${full.length + 1} in a full read`);
  }, 240_000);
});
