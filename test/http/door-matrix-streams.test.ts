// The door matrix's stream columns: every way a run's events go out — the events route over SSE and
// a WebSocket, the AI SDK chat's stream, A2A's SendStreamingMessage, SubscribeToTask and blocking
// SendMessage, an MCP tools/call's wait, the AG-UI door's stream — reads them through the one watch, so each holds its rules
// (test/helpers/door-matrix.ts's rows): a user token's reader ends when the token is revoked, and
// delivers none of the run after it; a cursor past the run's newest event is refused instead of
// holding a watcher for events that are not coming. Each reader is the protocol's own client (the
// A2A and MCP SDKs, the AI SDK's transport) with a user token. The run is held in its second model
// call (a scripted hold) while the token is revoked, then released and driven to its end.
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import type { StreamResponse } from "@a2a-js/sdk";
import { beforeAll, describe, expect, it } from "vitest";
import { a2aClient, textPart, userMessage } from "../helpers/a2a";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { transportFor } from "../helpers/ai-chat";
import { WATCH_DOORS, WATCH_ROWS, watchSkipReason, type WatchDoor, type WatchRow } from "../helpers/door-matrix";
import { BASE, expectError } from "../helpers/http";
import { createWith, freshSubject } from "../helpers/inbox";
import { callWithProgress, mcpClient } from "../helpers/mcp-client";
import { stubFor } from "../helpers/runs";
import { api, driveRun, openSocket, releaseHold } from "../helpers/service-client";
import { watch } from "../helpers/watch";
import { TEST_API_TOKEN } from "../test-env";

/** The run's last words: a reader that ended at the revocation never gets them. */
const REST = "The rest of the run.";
/** A first step that calls a tool, then a second held until the test releases it. */
const STEPS = [{ text: "First.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { hold: "rest", text: REST }];
/** An ask first: the blocking SendMessage is its answer, which follows the task to its end. */
const ASKS = [{ text: "Asking.", toolCalls: [{ id: "q1", name: "ask", input: { question: "Which city?" } }] }, { text: REST }];

type World = { subject: string; token: string; tokenId: string; steps: string; asks: string };
let world: World;

async function mint(subject: string): Promise<{ token: string; id: string }> {
  const response = await api("/v1/tokens", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ subject }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string; id: string };
}

beforeAll(async () => {
  const steps = await makeAgent({ name: agentName("watch-steps"), run: scriptedTemplate("", { script: STEPS, tools: ["calculator"] }) });
  const asks = await makeAgent({ name: agentName("watch-asks"), run: scriptedTemplate("", { script: ASKS, tools: ["ask"] }) });
  world = { subject: "", token: "", tokenId: "", steps: steps.name, asks: asks.name };
});

/** A fresh subject and user token per test: revoking it touches no other test. */
async function freshToken(): Promise<void> {
  const subject = freshSubject("watch");
  const { token, id } = await mint(subject);
  world = { ...world, subject, token, tokenId: id };
}

/** What a reader got, growing as it reads, with a wait for a piece of text in it. */
function collected() {
  let got = "";
  let waiters: { text: string; resolve: () => void }[] = [];
  return {
    add(text: string) {
      got += text;
      waiters = waiters.filter((waiter) => (got.includes(waiter.text) ? (waiter.resolve(), false) : true));
    },
    until: (text: string) => (got.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ text, resolve }))),
    get got() {
      return got;
    },
  };
}

/** How a reader ended: what it got in all, and how it ended. */
type Ending = { got: string; how: string };

/** A reader of a run, reading: the run's id, the alarm slice held in its second model call (if the door started one), and its end. */
type Reading = { runId: string; slice?: Promise<unknown>; ended: Promise<Ending> };

/** A run of the subject, made by the deployment token, that has not stepped yet. */
async function stepsRun(): Promise<string> {
  const { run } = await createWith(TEST_API_TOKEN, { subject: world.subject, script: STEPS, tools: ["calculator"], minAnswerChars: 0 });
  return run.id;
}

/** Steps the run into its held second model call, once `seen` says the reader got the first step: the slice, held there. */
async function firstStep(runId: string, seen: (text: string) => Promise<void>): Promise<{ slice: Promise<unknown> }> {
  const slice = runDurableObjectAlarm(stubFor(runId));
  await seen("First.");
  // Wrapped: an async function that returned the slice itself would wait for it.
  return { slice };
}

async function readSseBody(body: ReadableStream<Uint8Array>, into: ReturnType<typeof collected>): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    into.add(decoder.decode(value, { stream: true }));
  }
}

/** Reads an A2A stream to its end; an error the stream ends with is its ending. */
async function readA2a(stream: AsyncGenerator<StreamResponse>, into: ReturnType<typeof collected>): Promise<string> {
  try {
    for await (const event of stream) into.add(JSON.stringify(event));
    return "ended";
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

async function read(door: WatchDoor): Promise<Reading> {
  const got = collected();
  switch (door) {
    case "events (SSE)": {
      const runId = await stepsRun();
      const response = await SELF.fetch(`${BASE}/v1/runs/${runId}/events`, { headers: { Authorization: `Bearer ${world.token}`, Accept: "text/event-stream" } });
      expect(response.status).toBe(200);
      const done = readSseBody(response.body!, got);
      const { slice } = await firstStep(runId, got.until);
      return { runId, slice, ended: done.then(() => ({ got: got.got, how: "closed" })) };
    }
    case "events (WebSocket)": {
      const runId = await stepsRun();
      const socket = await openSocket(runId, world.token);
      const { slice } = await firstStep(runId, async (text) => void (await socket.next((frame) => JSON.stringify(frame).includes(text))));
      return { runId, slice, ended: socket.closed.then((code) => ({ got: JSON.stringify(socket.frames), how: `closed ${code}` })) };
    }
    case "AI SDK chat stream": {
      const runId = await stepsRun();
      const stream = await transportFor("v7", world.token).reconnect(runId);
      const done = (async () => {
        for await (const chunk of stream!) got.add(JSON.stringify(chunk));
      })();
      const { slice } = await firstStep(runId, got.until);
      return { runId, slice, ended: done.then(() => ({ got: got.got, how: "closed" })) };
    }
    case "A2A SendStreamingMessage": {
      const client = await a2aClient(world.steps, world.token);
      const stream = client.sendMessageStream({ message: userMessage([textPart("Go.")]) } as never);
      const first = await stream.next();
      const runId = first.value!.payload!.$case === "task" ? first.value!.payload!.value.contextId : "";
      const done = readA2a(stream, got);
      const { slice } = await firstStep(runId, got.until);
      return { runId, slice, ended: done.then((how) => ({ got: got.got, how })) };
    }
    case "A2A SubscribeToTask": {
      const client = await a2aClient(world.steps, world.token);
      const task = await client.sendMessage({ message: userMessage([textPart("Go.")]), configuration: { returnImmediately: true } } as never);
      const { id, contextId } = task as { id: string; contextId: string };
      const stream = client.resubscribeTask({ id } as never);
      const first = await stream.next();
      expect(first.value?.payload?.$case).toBe("task");
      const done = readA2a(stream, got);
      const { slice } = await firstStep(contextId, got.until);
      return { runId: contextId, slice, ended: done.then((how) => ({ got: got.got, how })) };
    }
    case "A2A SendMessage (blocking)": {
      // The task waits on its ask; the blocking answer follows it. Once the run has the answer, the
      // request is past its authentication: the revocation comes after it, while it follows.
      const client = await a2aClient(world.asks, world.token);
      const task = (await client.sendMessage({ message: userMessage([textPart("Go.")]), configuration: { returnImmediately: true } } as never)) as { id: string; contextId: string };
      await driveRun(task.contextId);
      const watcher = await watch(stubFor(task.contextId));
      const reply = client.sendMessage({ message: userMessage([textPart("Rome")], { taskId: task.id }) } as never);
      await watcher.next((frame) => frame.type === "answered");
      watcher.close();
      const ended = reply.then(
        (answer) => ({ got: JSON.stringify(answer), how: "answered" }),
        (error: Error) => ({ got: "", how: `error: ${error.message}` }),
      );
      return { runId: task.contextId, ended };
    }
    case "AG-UI stream": {
      const runId = await stepsRun();
      const response = await SELF.fetch(`${BASE}/v1/ag-ui/runs/${runId}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${world.token}`, "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({ threadId: runId, runId: "r1", messages: [] }),
      });
      expect(response.status).toBe(200);
      const done = readSseBody(response.body!, got);
      const { slice } = await firstStep(runId, got.until);
      return { runId, slice, ended: done.then(() => ({ got: got.got, how: got.got.includes('"type":"RUN_ERROR","message":"This user token was revoked.","code":"unauthorized"') ? "closed with RUN_ERROR unauthorized" : "closed" })) };
    }
    case "MCP tools/call": {
      const client = await mcpClient(world.token);
      const call = callWithProgress(client, world.steps, { task: "Go." });
      // The first progress names the run: the call is past its authentication and about to wait.
      const runId = await call.runId;
      const ended = call.result.then(
        (result) => ({ got: JSON.stringify(result.content), how: result.isError === true ? `error result ${JSON.stringify(result._meta?.["ratchet/error"])}` : "result" }),
        (error: Error) => ({ got: "", how: `error: ${error.message}` }),
      );
      return { runId, ended: ended.finally(() => client.close()) };
    }
  }
}

/** How each reader ends when its token is revoked while it reads. */
const REVOKED: Record<WatchDoor, RegExp> = {
  "events (SSE)": /^closed$/,
  "events (WebSocket)": /^closed 4001$/,
  "AI SDK chat stream": /^closed$/,
  "A2A SendStreamingMessage": /^error: .*This user token was revoked/,
  "A2A SubscribeToTask": /^error: .*This user token was revoked/,
  "A2A SendMessage (blocking)": /^error: .*401/,
  "MCP tools/call": /^error result \{"code":"unauthorized","status":401/,
  "AG-UI stream": /^closed with RUN_ERROR unauthorized$/,
};

async function revoked(door: WatchDoor): Promise<void> {
  await freshToken();
  const reading = await read(door);
  const revoke = await SELF.fetch(`${BASE}/v1/tokens/${world.tokenId}`, { method: "DELETE", headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } });
  expect(revoke.status).toBe(204);
  // The run goes on to its end; the reader gets none of it.
  await releaseHold(reading.runId, "rest");
  await reading.slice;
  await driveRun(reading.runId);
  const { got, how } = await reading.ended;
  expect(how).toMatch(REVOKED[door]);
  expect(got).not.toContain(REST);
}

const PAST = "999999999999999";

async function pastNewest(door: WatchDoor): Promise<void> {
  await freshToken();
  const auth = { Authorization: `Bearer ${world.token}` };
  switch (door) {
    case "events (SSE)": {
      const runId = await stepsRun();
      const requests: { query: string; headers: Record<string, string> }[] = [
        { query: `?after=${PAST}`, headers: {} },
        { query: "", headers: { "Last-Event-ID": PAST } },
      ];
      for (const request of requests) {
        const response = await SELF.fetch(`${BASE}/v1/runs/${runId}/events${request.query}`, { headers: { ...auth, Accept: "text/event-stream", ...request.headers } });
        if (response.status !== 400) await response.body?.cancel();
        expect(response.status).toBe(400);
        const { error } = await expectError(response, 400, "invalid-request");
        expect(error.message).toContain("past the run's newest event (seq 1)");
      }
      return;
    }
    case "events (WebSocket)": {
      const runId = await stepsRun();
      const response = await SELF.fetch(`${BASE}/v1/runs/${runId}/events?after=${PAST}`, { headers: { ...auth, Upgrade: "websocket" } });
      if (response.status === 101) response.webSocket!.accept();
      expect(response.status).toBe(400);
      await expectError(response, 400, "invalid-request");
      return;
    }
    case "A2A SubscribeToTask": {
      const client = await a2aClient(world.steps, world.token);
      const task = (await client.sendMessage({ message: userMessage([textPart("Go.")]), configuration: { returnImmediately: true } } as never)) as { id: string; contextId: string };
      await releaseHold(task.contextId, "rest");
      await driveRun(task.contextId);
      const stream = client.resubscribeTask({ id: task.id } as never, { serviceParameters: { "Last-Event-ID": PAST } });
      await expect(stream.next()).rejects.toMatchObject({ name: "RequestMalformedError", message: expect.stringContaining("Last-Event-ID: Past the run's newest event") });
      return;
    }
    case "AG-UI stream": {
      const runId = await stepsRun();
      const response = await SELF.fetch(`${BASE}/v1/ag-ui/runs/${runId}`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json", Accept: "text/event-stream", "Last-Event-ID": PAST },
        body: JSON.stringify({ threadId: runId, runId: "r1", messages: [] }),
      });
      if (response.status !== 400) await response.body?.cancel();
      const { error } = await expectError(response, 400, "invalid-request");
      expect(error.issues).toEqual([{ path: "Last-Event-ID", message: expect.stringContaining("Past the run's newest event (seq 1)") }]);
      return;
    }
    default:
      throw new Error(`${door} takes no cursor: ${watchSkipReason("a cursor past the run's newest event is refused", door)}`);
  }
}

const ASK: Record<WatchRow, (door: WatchDoor) => Promise<void>> = {
  "revoking the user token ends it": revoked,
  "a cursor past the run's newest event is refused": pastNewest,
};

describe("the door matrix's stream columns: every reader of a run's events goes through the one watch", () => {
  for (const row of WATCH_ROWS) {
    describe(row, () => {
      for (const door of WATCH_DOORS) {
        const reason = watchSkipReason(row, door);
        if (reason !== undefined) {
          it.skip(`${door}: not asked (${reason})`, () => undefined);
          continue;
        }
        it(door, () => ASK[row](door));
      }
    });
  }
});
