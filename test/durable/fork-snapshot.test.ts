// A fork's prefix from its source's snapshot (src/durable/forks/fork-snapshot.ts): for every step
// of sources of several shapes (tool turns, a follow-up turn without tools, summary compactions,
// an ask answered in a second segment, a source still running), the prefix taken from the stored
// history is the one the loop's replay reaches, and it is resumable exactly where the source's loop
// carried nothing past that history. An unchanged fork of a resumable prefix goes on in a segment
// of its own from the step: nothing is replayed, and it ends as its source did.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ForkPrefix } from "../../src/api/rpc/fork-rpc";
import type { EngineContext } from "../../src/durable/engine/engine-context";
import { loadJournal } from "../../src/durable/engine/journal/journal";
import { forkPrefix } from "../../src/durable/forks/fork-prefix";
import type { RunObject } from "../../src/durable/run/run-object";
import { readRun } from "../../src/durable/run/store/run-store";
import { createRun, drive, freshRunId, newRun, stubFor, valueOf, viewOf, type RunStub } from "../helpers/runs";

type Inside = { engine: EngineContext };
const asObject = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;

/** The prefix at `atStep` from the snapshot (where it has one) and by the loop's replay. */
async function bothPrefixes(stub: RunStub, atStep: number): Promise<{ snapshot: ForkPrefix; replayed: ForkPrefix }> {
  return runInDurableObject(asObject(stub), async (instance) => {
    const { engine } = instance as unknown as Inside;
    return { snapshot: valueOf(await forkPrefix(engine, atStep)), replayed: valueOf(await forkPrefix(engine, atStep, true)) };
  });
}

/** For each step 1..steps: whether the snapshot's prefix is resumable; every prefix equals the replayed one but for that flag. */
async function resumableSteps(stub: RunStub): Promise<boolean[]> {
  const { steps } = await viewOf(stub);
  const flags: boolean[] = [];
  for (let atStep = 1; atStep <= steps; atStep++) {
    const { snapshot, replayed } = await bothPrefixes(stub, atStep);
    const { resumable, ...rest } = snapshot;
    expect(rest, `step ${atStep}`).toEqual(replayed);
    expect(replayed.resumable).toBeUndefined();
    flags.push(resumable === true);
  }
  return flags;
}

const calc = (id: string, text = "Working.") => ({ text, toolCalls: [{ id, name: "calculator", input: { expression: `${id.length} + 1` } }], costUsd: 0.001 });

describe("a fork's prefix from its source's snapshot", () => {
  it("tool turns: resumable at every step the source went on from; the last, a plain answer, is replayed", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: [calc("a"), calc("bb"), calc("ccc"), { text: "Done.", costUsd: 0.001 }] });
    await drive(stub);
    expect(await resumableSteps(stub)).toEqual([true, true, true, false]);
  });

  it("after a turn with no tool call (a reminder to hand in), nothing later in the segment is resumable: the loop carried that turn's state", async () => {
    const { stub } = await createRun({
      tools: ["calculator", "current_time"],
      finishTools: ["calculator"],
      minAnswerChars: 0,
      script: [{ text: "Thinking." }, { text: "The time first.", toolCalls: [{ id: "t", name: "current_time", input: {} }] }, calc("a"), { text: "never" }],
    });
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", stoppedBy: "finish-tool", steps: 3 });
    expect(await resumableSteps(stub)).toEqual([false, false, false]);
  });

  it("summary compactions: the records are in the history as the replay has them; no step right before a compaction is resumable", async () => {
    const script = [...Array.from({ length: 6 }, (_v, i) => calc(`c${i}`, `Step ${i + 1}. ${"Working carefully. ".repeat(160)}`)), { text: "Six.", costUsd: 0.001 }];
    const { stub } = await createRun({ tools: ["calculator"], maxSteps: 20, minAnswerChars: 0, compaction: { mode: "summary", atTokens: 1_500 }, script });
    await drive(stub);
    const flags = await resumableSteps(stub);
    const keys = await runInDurableObject(asObject(stub), (_i, state) => [...loadJournal(state.storage.sql, "s1/").keys()]);
    const compactedAfter = keys.filter((key) => key.startsWith("compact/")).map((key) => Number(key.split("/")[1]));
    expect(compactedAfter.length).toBeGreaterThan(0);
    for (const step of compactedAfter) expect(flags[step - 1], `step ${step}`).toBe(false);
    expect(flags.some(Boolean)).toBe(true);
  });

  it("an ask answered: the first segment's steps before the ask are resumable; the answered turn is replayed", async () => {
    const { stub } = await createRun({ tools: ["calculator", "ask"], minAnswerChars: 0, script: [calc("a"), { toolCalls: [{ id: "q", name: "ask", input: { question: "Go on?" } }] }, calc("bb"), { text: "Done." }] });
    await drive(stub);
    valueOf(await stub.answer({ callId: "q", content: "yes" }));
    await drive(stub);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", steps: 4 });
    expect(await resumableSteps(stub)).toEqual([true, false, true, false]);
  });

  it("a source still running in the segment of the step is replayed", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script: [calc("a"), calc("bb"), { text: "Done." }] });
    await runInDurableObject(asObject(stub), async (instance) => {
      const { engine } = instance as unknown as Inside;
      const { runSlice } = await import("../../src/durable/engine/engine");
      await runSlice({ ...engine, sliceSteps: 3 }, new AbortController());
    });
    expect((await viewOf(stub)).status).toBe("running");
    expect(await resumableSteps(stub)).toEqual([false, false]);
  });

  it("an unchanged fork of a resumable prefix goes on in a segment of its own from the step, replays nothing, and ends as its source did", async () => {
    const body = { tools: ["calculator"], minAnswerChars: 0, script: [calc("a"), calc("bb"), calc("ccc"), { text: "Done.", costUsd: 0.001 }] };
    const { stub } = await createRun(body);
    await drive(stub);
    const prefix = valueOf(await stub.forkPrefix(3));
    expect(prefix.resumable).toBe(true);
    const run = newRun(body, freshRunId());
    const fork = stubFor(run.id);
    valueOf(await fork.createFork(run, prefix, { cut: false }));
    const before = await runInDurableObject(asObject(fork), (_i, state) => {
      const row = readRun(state.storage.sql)!;
      return { segment: row.segment, steps: row.steps, own: loadJournal(state.storage.sql, `s${row.segment}/`).size };
    });
    expect(before).toEqual({ segment: 2, steps: 3, own: 0 });
    await drive(fork);
    expect(await viewOf(fork)).toMatchObject({ status: "finished", steps: 4, finalText: "Done." });
    expect(valueOf(await fork.messages()).messages).toEqual(valueOf(await stub.messages()).messages);
  });
});
