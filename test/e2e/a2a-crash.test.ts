// A2A's resubscribe across a real crash: the official client (@a2a-js/sdk) streams a stored
// agent's task from `wrangler dev`, which is SIGKILLed (its whole process group) while the task's
// third model call is held; started again on the same storage, the client subscribes again with
// the Last-Event-ID it had, and gets every event it had not seen, none twice: what it read before
// the kill and after it is exactly a subscription's replay of the whole task.
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { describe, expect, it } from "vitest";
import { releaseHold } from "./support/api";
import { restartableDev } from "./support/dev-server";
import { createHeldAdder } from "./support/held-adder";
import { freePort } from "./support/http-server";
import { LOCAL_TOKEN } from "./support/local-vars";
import { sseBlocks, sseField } from "../../src/lib/sse/sse-blocks";

type Seen = { id: string; data: string };

/** What a recording fetch has seen, and a wait for something to be among it. */
class SeenEvents {
  readonly list: Seen[] = [];
  private waiters: (() => void)[] = [];
  note(seen: Seen): void {
    this.list.push(seen);
    for (const wake of this.waiters.splice(0)) wake();
  }
  async until(check: (seen: Seen[]) => boolean): Promise<void> {
    while (!check(this.list)) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

/** A fetch for the client that keeps the SSE ids and data of every stream it reads (the client itself does not expose ids). */
function recordingFetch(seen: SeenEvents): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${LOCAL_TOKEN}`);
    const response = await fetch(input, { ...init, headers });
    if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream") || response.body === null) return response;
    const [mine, theirs] = response.body.tee();
    void (async () => {
      try {
        for await (const block of sseBlocks(mine)) {
          const id = sseField(block, "id");
          const data = sseField(block, "data");
          if (id !== undefined && data !== undefined) seen.note({ id, data: JSON.stringify((JSON.parse(data) as { result: unknown }).result) });
        }
      } catch {
        // The connection died with wrangler dev.
      }
    })();
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
}

function clientFactory(seen: SeenEvents): ClientFactory {
  const fetchImpl = recordingFetch(seen);
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
}

describe("A2A resubscribe after a SIGKILL of wrangler dev", () => {
  const devs = restartableDev("ratchet-a2a-crash-");

  it("the client gets every event it had not seen, none twice", async () => {
    const port = await freePort();
    let dev = await devs.start(port);
    const name = `crash-${Date.now().toString(36)}`;
    await createHeldAdder(dev.url, name, { adding: "Adding.", checking: "Checking.", answer: "It is 4." });

    const before = new SeenEvents();
    const client = await clientFactory(before).createFromUrl(`${dev.url}/a2a/${name}/`);
    let taskId = "";
    let contextId = "";
    const stream = client.sendMessageStream({ message: { messageId: "m1", role: 1, parts: [{ content: { $case: "text", value: "What is 2+2?" } }] } } as never);
    for await (const event of stream) {
      if (event.payload?.$case === "task") ({ id: taskId, contextId } = event.payload.value);
      // The second model call's stored text (it replaces the chunks: append false): the third call is now held.
      if (event.payload?.$case === "artifactUpdate" && !event.payload.value.append && JSON.stringify(event.payload.value.artifact).includes("Checking.")) break;
    }
    expect(taskId).toMatch(/^run_[a-z2-7]{26}-1$/);
    // The recorder reads the same bytes as the client: wait until it has noted the event too.
    await before.until((seen) => seen.some((one) => one.data.includes("Checking.")));
    const lastId = before.list.at(-1)!.id;
    await dev.kill();

    dev = await devs.start(port);
    await releaseHold(dev.url, LOCAL_TOKEN, contextId, "third");
    const after = new SeenEvents();
    const again = await clientFactory(after).createFromUrl(`${dev.url}/a2a/${name}/`);
    const states: number[] = [];
    for await (const event of again.resubscribeTask({ id: taskId } as never, { serviceParameters: { "Last-Event-ID": lastId } })) {
      if (event.payload?.$case === "statusUpdate") states.push(Number(event.payload.value.status?.state));
    }
    expect(states.at(-1)).toBe(3); // TASK_STATE_COMPLETED
    const completed = (seen: Seen[]) => seen.some((one) => one.data.includes("TASK_STATE_COMPLETED"));
    await after.until(completed);

    const whole = new SeenEvents();
    const reader = await clientFactory(whole).createFromUrl(`${dev.url}/a2a/${name}/`);
    for await (const _event of reader.resubscribeTask({ id: taskId } as never, { serviceParameters: { "Last-Event-ID": "0" } })) {
      // Read to the end.
    }
    await whole.until(completed);
    const ids = (list: readonly Seen[]) => list.map((seen) => seen.id);
    expect([...ids(before.list), ...ids(after.list)]).toEqual(ids(whole.list));
    expect([...before.list, ...after.list]).toEqual(whole.list);
    expect(new Set(ids(whole.list)).size).toBe(whole.list.length);
    expect(whole.list.some((seen) => seen.data.includes("It is 4."))).toBe(true);
    console.log(`[a2a-crash] ${before.list.length} events before the SIGKILL (last id ${lastId}), ${after.list.length} after the resubscribe, ${whole.list.length} in the whole task`);
  }, 240_000);
});
