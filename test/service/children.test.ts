// Child runs (docs/children.md) through the run objects: an agent tool call starts a child, the
// parent waits with no alarm, the child's end comes back through its outbox and is the call's result.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { agentTool, alarmOf, callAgents, childRows, deliverReports, driveTree, finishChild } from "../helpers/children";
import { createRun, drive, storedEvents, stubFor, valueOf, viewOf } from "../helpers/runs";

type Message = { role: string; toolCallId?: string; content: unknown; isError?: boolean };

async function toolResults(id: string): Promise<Message[]> {
  const { messages } = valueOf(await stubFor(id).messages());
  return (messages as Message[]).filter((message) => message.role === "tool");
}

const ofType = (events: StoredEvent[], type: string) => events.filter((event) => event.type === type);

describe("agent tools: one child", () => {
  it("starts the child, waits with no alarm, and takes the child's finalText as the call's result", async () => {
    const { id, stub } = await createRun({
      tools: [agentTool("researcher", [{ text: "X is 42.", costUsd: 0.02 }])],
      minAnswerChars: 0,
      budget: { usd: 1 },
      script: [callAgents([["c1", "researcher", "Find X."]]), { text: "Done: X is 42.", costUsd: 0.01 }],
    });
    await drive(stub);
    const waiting = await viewOf(stub);
    expect(waiting.status).toBe("running");
    expect(waiting.children).toHaveLength(1);
    const childId = waiting.children![0]!.id;
    expect(waiting.children![0]).toMatchObject({ callId: "c1", status: "running" });
    // No alarm while the parent waits on its child.
    expect(await alarmOf(id)).toBeNull();
    const child = await viewOf(stubFor(childId));
    expect(child.parentId).toBe(id);
    expect(child.budgetUsd).toBeCloseTo(0.05);
    const { messages } = valueOf(await stubFor(childId).messages());
    expect(messages[0]).toMatchObject({ role: "user", content: "Find X." });

    await finishChild(childId);
    expect(await alarmOf(id)).not.toBeNull();
    const done = await driveTree(id);
    expect(done.status).toBe("finished");
    expect(done.finalText).toBe("Done: X is 42.");
    expect(done.children).toEqual([{ id: childId, callId: "c1", status: "finished", spentUsd: 0.02 }]);
    expect(done.spentUsd).toBeCloseTo(0.04);
    const results = await toolResults(id);
    expect(results).toEqual([expect.objectContaining({ toolCallId: "c1", content: "X is 42." })]);
    const events = await storedEvents(stub);
    expect(ofType(events, "child-started")).toEqual([expect.objectContaining({ callId: "c1", childId })]);
    expect(ofType(events, "child-ended")).toEqual([expect.objectContaining({ callId: "c1", childId, status: "finished", spentUsd: 0.02 })]);
    expect(ofType(events, "end")[0]).toMatchObject({ spentUsd: expect.closeTo(0.04, 6) });
  });

  it("gives a child's typed final as JSON", async () => {
    const output = { schema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } };
    const { id } = await createRun({
      tools: [agentTool("typed", [{ toolCalls: [{ id: "f", name: "final_answer", input: { x: 42 } }] }], { output })],
      minAnswerChars: 0,
      script: [callAgents([["c1", "typed", "Give x."]]), { text: "ok" }],
    });
    expect((await driveTree(id)).status).toBe("finished");
    expect(await toolResults(id)).toEqual([expect.objectContaining({ toolCallId: "c1", content: '{"x":42}' })]);
  });

  it("a child that ended with no answer gives an error result with why and its id", async () => {
    const { id } = await createRun({
      tools: [agentTool("quiet", [{ text: "" }])],
      minAnswerChars: 0,
      script: [callAgents([["c1", "quiet", "a"]]), { text: "ok" }],
    });
    const view = await driveTree(id);
    const childId = view.children![0]!.id;
    const [result] = await toolResults(id);
    expect(result).toMatchObject({ toolCallId: "c1", isError: true });
    expect(String(result!.content)).toContain(childId);
    expect(String(result!.content)).toContain("no answer");
  });

  it("a child cancelled by itself gives an error result naming it", async () => {
    const { id, stub } = await createRun({
      tools: [agentTool("slow", [{ text: "never" }])],
      minAnswerChars: 0,
      script: [callAgents([["c1", "slow", "a"]]), { text: "ok" }],
    });
    await drive(stub);
    const childId = (await viewOf(stub)).children![0]!.id;
    expect(valueOf(await stubFor(childId).cancel()).status).toBe("cancelled");
    await deliverReports(childId);
    const view = await driveTree(id);
    expect(view.children![0]!.status).toBe("cancelled");
    const [result] = await toolResults(id);
    expect(result).toMatchObject({ isError: true, content: `Agent slow (child run ${childId}) was cancelled.` });
  });
});

describe("agent tools: several at once", () => {
  it("starts every agent call of a turn before any wait, and goes on when all have answered", async () => {
    const { id, stub } = await createRun({
      tools: [agentTool("a", [{ text: "A done." }]), agentTool("b", [{ text: "B done." }]), agentTool("c", [{ text: "C done." }])],
      minAnswerChars: 0,
      budget: { usd: 1 },
      script: [callAgents([["c1", "a", "1"], ["c2", "b", "2"], ["c3", "c", "3"]]), { text: "All done." }],
    });
    await drive(stub);
    const children = (await viewOf(stub)).children!;
    expect(children.map((child) => child.callId)).toEqual(["c1", "c2", "c3"]);
    // The last ends first: the parent still waits (its first call has no answer), with no alarm.
    await finishChild(children[2]!.id);
    await finishChild(children[1]!.id);
    await drive(stub);
    expect((await viewOf(stub)).status).toBe("running");
    expect(await alarmOf(id)).toBeNull();
    await finishChild(children[0]!.id);
    const view = await driveTree(id);
    expect(view.status).toBe("finished");
    expect((await toolResults(id)).map((result) => result.content)).toEqual(["A done.", "B done.", "C done."]);
  });
});

describe("money, control, limits", () => {
  it("caps each child's budget at what the parent has left; with nothing left the call is not run", async () => {
    const spend = (usd: number) => [{ text: "spent", costUsd: usd }];
    const { id, stub } = await createRun({
      tools: [agentTool("a", spend(0.05)), agentTool("b", spend(0.04)), agentTool("c", spend(0.05))],
      minAnswerChars: 0,
      budget: { usd: 0.1 },
      script: [callAgents([["c1", "a", "1"], ["c2", "b", "2"], ["c3", "c", "3"]], 0.01), { text: "ok", costUsd: 0 }],
    });
    await drive(stub);
    const rows = await childRows(id);
    expect(rows.map((row) => row.budget_usd)).toEqual([0.05, expect.closeTo(0.04, 9)]);
    const view = await driveTree(id);
    expect(view.spentUsd).toBeLessThanOrEqual(0.1 + 1e-9);
    expect(view.spentUsd).toBeCloseTo(0.1);
    const results = await toolResults(id);
    expect(results[2]).toMatchObject({ toolCallId: "c3", isError: true, content: "Not run: budget." });
  });

  it("cancel of the parent cancels its live children; their calls are not run", async () => {
    const { id, stub } = await createRun({
      tools: [agentTool("a", [{ text: "x" }]), agentTool("b", [{ text: "y" }])],
      minAnswerChars: 0,
      script: [callAgents([["c1", "a", "1"], ["c2", "b", "2"]]), { text: "ok" }],
    });
    await drive(stub);
    const children = (await viewOf(stub)).children!;
    expect(valueOf(await stub.cancel()).status).toBe("cancelled");
    for (const child of children) expect((await viewOf(stubFor(child.id))).status).toBe("cancelled");
    const results = await toolResults(id);
    expect(results.map((result) => result.content)).toEqual(["Not run: cancel.", "Not run: cancel."]);
  });

  it("delete of the parent cancels its live children", async () => {
    const { stub } = await createRun({ tools: [agentTool("a", [{ text: "x" }])], minAnswerChars: 0, script: [callAgents([["c1", "a", "1"]]), { text: "ok" }] });
    await drive(stub);
    const childId = (await viewOf(stub)).children![0]!.id;
    expect((await stub.deleteRun()).ok).toBe(true);
    expect((await viewOf(stubFor(childId))).status).toBe("cancelled");
  });

  it("a call deeper than MAX_RUN_DEPTH gets an error result", async () => {
    const run = { tools: [agentTool("a", [{ text: "x" }])], minAnswerChars: 0, script: [callAgents([["c1", "a", "1"]]), { text: "ok" }] };
    const { newRun } = await import("../helpers/runs");
    const deep = { ...newRun(run), depth: 3 };
    const created = await stubFor(deep.id).create(deep);
    expect(created.ok).toBe(true);
    await drive(stubFor(deep.id));
    const [result] = await toolResults(deep.id);
    expect(result).toMatchObject({ isError: true });
    expect(String(result!.content)).toMatch(/^Not run: depth .*MAX_RUN_DEPTH/);
    expect(await childRows(deep.id)).toEqual([]);
  });

  it("a run past MAX_CHILDREN children gets an error result", async () => {
    const { id, stub } = await createRun({ tools: [agentTool("a", [{ text: "x" }])], minAnswerChars: 0, script: [callAgents([["c1", "a", "1"]]), { text: "ok" }] });
    await runInDurableObject(stub, (_instance, state) => {
      for (let i = 0; i < 50; i++) {
        state.storage.sql.exec("INSERT INTO child_run (key, child_id, call_id, name, budget_usd, status, started_at, end_state) VALUES (?, ?, ?, 'a', 0, 'finished', 0, ?)", `old/${i}`, `old_${i}`, `o${i}`, JSON.stringify({ childId: `old_${i}`, status: "finished", hasFinal: false, spentUsd: 0 }));
      }
    });
    await driveTree(id);
    const [result] = await toolResults(id);
    expect(String(result!.content)).toMatch(/^Not run: children .*MAX_CHILDREN/);
  });
});
