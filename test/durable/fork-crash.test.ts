// The crash points of a fork's creation (src/durable/run/create-fork.ts): after its images were
// copied and before its transaction, the same request sent again makes the fork once; after its
// transaction and before its alarm was set, a read re-arms it and it runs with nothing of the
// prefix asked again. Both for a prefix taken from the source's snapshot (the fork goes on in a
// segment of its own, src/durable/forks/fork-snapshot.ts) and for one its loop replays.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ForkPrefix, ForkSpec } from "../../src/api/rpc/fork-rpc";
import { NO_IMAGES } from "../../src/api/images/images";
import type { BlobStore } from "../../src/durable/blobs/blob-store";
import type { EngineContext } from "../../src/durable/engine/engine-context";
import { createFork } from "../../src/durable/forks/create-fork";
import type { RunObject } from "../../src/durable/run/run-object";
import { hasRun } from "../../src/durable/run/store/run-tables";
import { createRun, drive, freshRunId, journalKeys, newRun, stubFor, valueOf, viewOf, type RunStub } from "../helpers/runs";

type Inside = { engine: EngineContext; blobs: BlobStore };
const inside = (instance: unknown) => instance as Inside;

type Form = { name: string; prefix: (prefix: ForkPrefix) => ForkPrefix; liveKey: string };

const FORMS: Form[] = [
  { name: "from the source's snapshot", prefix: (prefix) => prefix, liveKey: "s2/model/1" },
  {
    name: "replayed",
    prefix: ({ resumable: _resumable, ...prefix }) => prefix,
    liveKey: "s1/model/2",
  },
];

/** A finished two-step source with an image, and its prefix at step 1 (resumable: the source went on after it). */
async function source(form: Form): Promise<{ id: string; prefix: ForkPrefix }> {
  const { id, stub } = await createRun({
    tools: ["calculator"],
    minAnswerChars: 0,
    script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { text: "Two." }],
  });
  await drive(stub);
  await env.BLOBS.put(`runs/${id}/images/${"a".repeat(64)}`, new Uint8Array([1, 2, 3]));
  const prefix = valueOf(await stub.forkPrefix(1));
  expect(prefix.resumable).toBe(true);
  return { id, prefix: form.prefix(prefix) };
}

const SPEC: ForkSpec = { cut: false };

async function crashingCreate(stub: RunStub, run: ReturnType<typeof newRun>, prefix: ForkPrefix, crash: { at: "blobs" } | { at: "alarm" }): Promise<unknown> {
  return runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (instance) => {
    const { engine, blobs } = inside(instance);
    const schedule = crash.at === "alarm" ? () => Promise.reject(new Error("crash before the alarm")) : () => Promise.resolve();
    return createFork({ engine, blobs, schedule }, run, prefix, SPEC, NO_IMAGES, () => {
      if (crash.at === "blobs") throw new Error("crash after the blobs");
    }).catch((error: unknown) => error);
  });
}

describe.each(FORMS)("a fork's creation, crashed: a prefix $name", (form) => {
  it("after its images were copied, before its transaction: nothing of the run is there, and the request sent again makes it once", async () => {
    const { id, prefix } = await source(form);
    const run = newRun({ tools: ["calculator"], minAnswerChars: 0, script: prefix.body.script as never }, freshRunId());
    let stub = stubFor(run.id);
    expect(await crashingCreate(stub, run, prefix, { at: "blobs" })).toBeInstanceOf(Error);
    await abortAllDurableObjects();
    stub = stubFor(run.id);
    expect(await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (_i, state) => hasRun(state.storage.sql))).toBe(false);
    expect((await env.BLOBS.list({ prefix: `runs/${run.id}/` })).objects).toHaveLength(1);
    const view = valueOf(await stub.createFork(run, prefix, SPEC));
    expect(view).toMatchObject({ forkedFrom: { runId: id, step: 1 }, status: "running" });
    expect(valueOf(await stub.createFork(run, prefix, SPEC)).id).toBe(run.id);
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", steps: 2, finalText: "Two." });
    expect((await env.BLOBS.list({ prefix: `runs/${run.id}/` })).objects).toHaveLength(1);
    expect(await journalKeys(stub)).toEqual(expect.arrayContaining(["s1/model/1", "s1/tool/1/c1", form.liveKey]));
  });

  it("after its transaction, before its alarm: a read re-arms it, and it goes on from the prefix", async () => {
    const { prefix } = await source(form);
    const run = newRun({ tools: ["calculator"], minAnswerChars: 0, script: prefix.body.script as never }, freshRunId());
    let stub = stubFor(run.id);
    expect(await crashingCreate(stub, run, prefix, { at: "alarm" })).toBeInstanceOf(Error);
    await abortAllDurableObjects();
    stub = stubFor(run.id);
    expect(await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_i, state) => state.storage.getAlarm())).toBeNull();
    expect((await viewOf(stub)).status).toBe("running");
    expect(await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_i, state) => state.storage.getAlarm())).not.toBeNull();
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", steps: 2, finalText: "Two." });
  });
});
