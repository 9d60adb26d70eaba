// The runs the bad requests of test/http/bad-input.test.ts and test/http/bad-frames.test.ts act on:
// one finished, one waiting on an ask, one running, one asleep on an async tool call, one waiting on
// a batch of client actions, and user tokens of a subject with no runs. A snapshot of them all shows
// whether a refused request changed anything.
import { env, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, inject } from "vitest";
import type { RunView } from "../../../src/api/types";
import { runStub } from "../../../src/http/run-stub";
import { drive, stubFor } from "../runs";
import { bearer, call, postJson } from "../http";
import { TEST_RUN_ID_KEY } from "../../test-env";
import { browserToolset, IDEMPOTENCY_KEY, ok } from "./requests";

export type Run = { id: string; token: string };
/** Where an async tool call's result goes: the path of its callback URL, and its token. */
export type Callback = { path: string; token: string };
export type World = { waiting: Run; finished: Run; running: Run; waitingCallId: string; asyncWaiting: Run; callback: Callback; cancelledCallback: Callback; batchWaiting: Run };

/** Set by buildWorld (in a beforeAll). */
export let world: World;
/** A user token of a subject with no runs, and one that expired. */
export let userToken: string;
export let expiredUserToken: string;

async function create(body: object, headers: Record<string, string> = bearer()): Promise<Run> {
  const response = await postJson("/v1/runs", body, headers);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  const { run, token } = (await response.json()) as { run: RunView; token: string };
  return { id: run.id, token };
}

async function view(id: string): Promise<RunView> {
  const response = await call(`/v1/runs/${id}`, { headers: bearer() });
  if (response.status !== 200) throw new Error(`view failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as RunView;
}

/** Drives a run's alarms until it leaves `running`. */
async function settle(id: string): Promise<RunView> {
  await drive(stubFor(id));
  const current = await view(id);
  if (current.status === "running") throw new Error(`run ${id} did not settle: it is running with no alarm to fire`);
  return current;
}

/** A run whose one async tool call the tool server took: fires its alarms until it sleeps on the call (the tests' other alarms are a year ahead). */
async function asleep(id: string): Promise<Callback> {
  const stub = runStub(env, id);
  for (let i = 0; i < 20; i++) {
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    if (alarm !== null && alarm < Date.now() + 8 * 24 * 3600 * 1000) break;
    await runDurableObjectAlarm(stub);
  }
  const job = (await (await fetch(`${inject("toolServerUrl")}/async?key=${encodeURIComponent(`${id}/s1/start/1/j`)}`)).json()) as { bodies: { callback: { url: string; token: string } }[] };
  const { url, token } = job.bodies[0]!.callback;
  return { path: new URL(url).pathname, token };
}

const asyncRun = () =>
  ok({
    tools: [{ type: "http", name: "job", description: "answers later", inputSchema: { type: "object" }, url: `${inject("toolServerUrl")}/async`, async: true }],
    script: [{ toolCalls: [{ id: "j", name: "job", input: {} }] }, { text: "done" }],
  });

/** What GET /v1/runs/:id shows of every run (asked of the objects directly: SELF gets slower with every request). */
export async function snapshot(): Promise<{ objects: number; runs: unknown[] }> {
  const runs = await Promise.all([world.waiting, world.finished, world.running, world.asyncWaiting, world.batchWaiting].map((run) => runStub(env, run.id).view()));
  return { objects: (await listDurableObjectIds(env.RUNS)).length, runs };
}

/** Makes the world; a test file calls it in its beforeAll. */
export async function buildWorld(): Promise<void> {
  userToken = ((await (await postJson("/v1/tokens", { subject: "bad-input-user" })).json()) as { token: string }).token;
  const { mintUserToken } = await import("../../../src/http/auth/user-tokens");
  expiredUserToken = await mintUserToken(TEST_RUN_ID_KEY, "bad-input-user", Date.now() - 1000);
  const finished = await create(ok());
  const waiting = await create(ok({ tools: ["ask"], script: [{ toolCalls: [{ id: "ask_1", name: "ask", input: { question: "Which one?" } }] }] }));
  // Running for as long as the test file takes: its first model call holds until the run is cancelled.
  const running = await create(ok({ script: [{ text: "slow", hold: "never" }] }));
  await create(ok(), { ...bearer(), "Idempotency-Key": IDEMPOTENCY_KEY });
  expect((await settle(finished.id)).status).toBe("finished");
  const asked = await settle(waiting.id);
  expect(asked.status).toBe("waiting");
  const asyncWaiting = await create(asyncRun());
  const callback = await asleep(asyncWaiting.id);
  const cancelled = await create(asyncRun());
  const cancelledCallback = await asleep(cancelled.id);
  await call(`/v1/runs/${cancelled.id}/cancel`, { method: "POST", headers: bearer() });
  const batchWaiting = await create(ok({ tools: [browserToolset], script: [{ toolCalls: [{ id: "b1", name: "browser__open", input: { url: "a" } }, { id: "b2", name: "browser__open", input: { url: "b" } }] }] }));
  expect((await settle(batchWaiting.id)).waiting?.kind).toBe("client-toolset");
  world = { waiting, finished, running, waitingCallId: asked.waiting!.callId, asyncWaiting, callback, cancelledCallback, batchWaiting };
}

/** Cancels the runs that would go on; a test file calls it in its afterAll. */
export async function tearDownWorld(): Promise<void> {
  if (world !== undefined) await call(`/v1/runs/${world.running.id}/cancel`, { method: "POST", headers: bearer() });
  if (world !== undefined) await call(`/v1/runs/${world.asyncWaiting.id}/cancel`, { method: "POST", headers: bearer() });
}
