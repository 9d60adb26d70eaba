// The runs every fuzz property aims at, and the checks they share: a finished run, a run waiting
// on an ask, and a running run (its first model call holds until released, which nothing does;
// in this project no alarm fires by itself either, so it stays running). After every case each of
// them must be exactly as it was, and no Durable Object may have appeared except for a run the
// case was allowed to create.
import { createExecutionContext, env, listDurableObjectIds, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import fc from "fast-check";
import { expect } from "vitest";
import type { RunView } from "../../src/api/types";
import { runStub } from "../../src/http/run-stub";
import worker from "../../src/worker";
import { bearer } from "./http";

export type Run = { id: string; token: string };
export type World = { finished: Run; waiting: Run; running: Run; waitingCallId: string; finishedTicket: string };

export const BASE = "https://ratchet.test";

/**
 * A request to the Worker's own fetch handler (the Hono app of src/worker.ts, with the test's env
 * and Durable Object namespace). SELF.fetch would do the same through the runtime, but it slows
 * down with every request made in one test (about 5 ms per request at first, 90 ms after 400),
 * which thousands of fuzz cases cannot afford.
 */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`${BASE}${path}`, init), env as unknown as Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

export function postJson(path: string, body: unknown, headers: Record<string, string> = bearer()): Promise<Response> {
  return call(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
}

async function create(body: object): Promise<Run> {
  const response = await postJson("/v1/runs", body);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  const { run, token } = (await response.json()) as { run: RunView; token: string };
  return { id: run.id, token };
}

async function settle(id: string): Promise<RunView> {
  const stub = runStub(env, id);
  for (let i = 0; i < 50; i++) {
    const outcome = await stub.view();
    if (outcome.ok && outcome.value.status !== "running") return outcome.value;
    await runDurableObjectAlarm(stub);
  }
  throw new Error(`run ${id} did not settle`);
}

export async function makeWorld(): Promise<World> {
  const hi = [{ role: "user", content: "hi" }];
  const finished = await create({ provider: "scripted", messages: hi, script: [{ text: "done" }] });
  const waiting = await create({ provider: "scripted", messages: hi, tools: ["ask"], script: [{ toolCalls: [{ id: "ask_1", name: "ask", input: { question: "Which one?" } }] }] });
  const running = await create({ provider: "scripted", messages: hi, script: [{ text: "slow", hold: "never" }] });
  expect((await settle(finished.id)).status).toBe("finished");
  const asked = await settle(waiting.id);
  expect(asked.status).toBe("waiting");
  const ticket = await postJson(`/v1/runs/${finished.id}/tickets`, {}, bearer(finished.token));
  const { ticket: finishedTicket } = (await ticket.json()) as { ticket: string };
  return { finished, waiting, running, waitingCallId: asked.waiting!.callId, finishedTicket };
}

export type Snapshot = { objects: number; runs: unknown[] };

/** What GET /v1/runs/:id shows of the world's runs (asked of the objects directly), and how many objects exist. */
export async function snapshot(world: World, withMessages = false): Promise<Snapshot> {
  const runs = await Promise.all([world.finished, world.waiting, world.running].map(async (run) => {
    const stub = runStub(env, run.id);
    // The view carries status, lastSeq and updatedAt: any change to a run shows there.
    return withMessages ? { view: await stub.view(), messages: await stub.messages() } : stub.view();
  }));
  return { objects: (await listDurableObjectIds(env.RUNS)).length, runs };
}

/**
 * Watches the world over one property: after every case the runs must look as they did at the
 * start and the objects must be those of the start plus the runs the cases were allowed to create.
 * At the end the whole history of each run is compared too.
 */
export class WorldGuard {
  private expectedObjects: number;
  private constructor(private readonly world: World, private readonly initial: Snapshot, private readonly initialFull: Snapshot) {
    this.expectedObjects = initial.objects;
  }

  static async start(world: World): Promise<WorldGuard> {
    return new WorldGuard(world, await snapshot(world), await snapshot(world, true));
  }

  /** `created`: objects this case may have added (a 201, or a probe of a well-formed unknown id). */
  async check(created: { exactly?: number; atMost?: number } = {}): Promise<void> {
    const now = await snapshot(this.world);
    expect(now.runs).toEqual(this.initial.runs);
    const grew = now.objects - this.expectedObjects;
    if (created.atMost !== undefined) expect(grew).toBeLessThanOrEqual(created.atMost);
    else expect(grew).toBe(created.exactly ?? 0);
    this.expectedObjects = now.objects;
  }

  /** Takes the objects that exist now as the new baseline (after a test that may leave some behind). */
  async rebase(): Promise<void> {
    this.expectedObjects = (await listDurableObjectIds(env.RUNS)).length;
  }

  async finish(): Promise<void> {
    expect((await snapshot(this.world, true)).runs).toEqual(this.initialFull.runs);
  }
}

/** No stack trace, file path or runtime error name in anything sent back. */
export const LEAKS = /\bat .+:\d+:\d+|\.ts:\d+|node_modules|\b(TypeError|RangeError|SyntaxError|ReferenceError)\b|Error: /;

export type ErrorBody = { error: { code: string; message: string; issues?: { path: string; message: string }[] } };

const CODES: Record<number, string> = { 400: "invalid-request", 401: "unauthorized", 403: "forbidden", 404: "not-found", 409: "conflict", 413: "too-large", 429: "rate-limited" };

/** A refusal in the API's one error shape, with the code of its status, and nothing leaked. */
export function checkErrorShape(status: number, contentType: string | null, text: string): ErrorBody {
  expect(contentType ?? "", text.slice(0, 300)).toMatch(/^application\/json/);
  const body = JSON.parse(text) as ErrorBody;
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).filter((key) => !["code", "message", "issues"].includes(key))).toEqual([]);
  expect(body.error.code).toBe(CODES[status]);
  expect(typeof body.error.message).toBe("string");
  if (body.error.issues !== undefined) {
    expect(Array.isArray(body.error.issues)).toBe(true);
    for (const issue of body.error.issues) {
      expect(typeof issue.path).toBe("string");
      expect(typeof issue.message).toBe("string");
    }
  }
  expect(text).not.toMatch(LEAKS);
  return body;
}

/** Sends a request and checks the answer: never a 5xx, always the error shape for a refusal. */
export async function send(path: string, init: RequestInit, allowed: readonly number[]): Promise<{ status: number; text: string }> {
  const response = await call(path, init);
  if (response.status === 101) {
    response.webSocket?.accept();
    response.webSocket?.close(1000, "fuzz");
    expect(allowed).toContain(101);
    return { status: 101, text: "" };
  }
  if (response.headers.get("content-type")?.startsWith("text/event-stream") === true) {
    await response.body?.cancel();
    expect(allowed).toContain(response.status);
    return { status: response.status, text: "" };
  }
  const text = await response.text();
  if (init.method === "HEAD") {
    // No body by definition: the status is all there is to check.
    expect(allowed).toContain(response.status);
    return { status: response.status, text };
  }
  expect(allowed, `${init.method ?? "GET"} ${path} → ${response.status} ${text.slice(0, 300)}`).toContain(response.status);
  if (response.status >= 400) checkErrorShape(response.status, response.headers.get("content-type"), text);
  return { status: response.status, text };
}

export { bearer };

/** Counts of cases tried, printed once per file. */
export class CaseCounter {
  private readonly counts = new Map<string, number>();
  add(name: string, n = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + n);
  }
  report(file: string): void {
    const total = [...this.counts.values()].reduce((sum, n) => sum + n, 0);
    console.log(`[fuzz] ${file}: ${total} cases — ${[...this.counts].map(([name, n]) => `${name} ${n}`).join(", ")}`);
  }
}

/** Non-ASCII as \\uXXXX escapes: a lone surrogate in a failure message would break the test pool's socket. */
export function ascii(text: string): string {
  return text.replace(/[^\x20-\x7e\n]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * fc.assert, with the failure report made ASCII-safe (the counterexamples hold lone surrogates,
 * which the worker pool cannot send to the reporter). Answers how many cases ran.
 */
export async function checkProperty<T>(property: fc.IAsyncPropertyWithHooks<T> | fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<number> {
  const details = await fc.check(property, params);
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? `${details.errorInstance.message}` : String(details.errorInstance);
    throw new Error(ascii(`${fc.defaultReportMessage(details) ?? "property failed"}\nCause: ${cause}`));
  }
  return details.numRuns;
}
