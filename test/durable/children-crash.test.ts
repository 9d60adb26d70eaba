// Crash points of child runs (docs/children.md): a crash is simulated between transactions (the
// objects aborted, or a slice stopped between steps), then the alarms are driven by hand. Every
// child is created once, no finished step is done again, and the parent hears each end once.
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runInDurableObject } from "cloudflare:test";
import { agentTool, alarmOf, callAgents, childRows, deliverReports, driveTree, finishChild } from "../helpers/children";
import { createRun, drive, journalKeys, storedEvents, stubFor, valueOf, viewOf } from "../helpers/runs";
import { runSteps } from "../helpers/slices";

const body = () => ({
  tools: [agentTool("a", [{ text: "A done." }]), agentTool("b", [{ text: "B done." }])],
  minAnswerChars: 0,
  script: [callAgents([["c1", "a", "1"], ["c2", "b", "2"]]), { text: "All done." }],
});

async function expectOneChildEach(id: string): Promise<void> {
  const rows = await childRows(id);
  expect(rows.map((row) => row.key)).toEqual([expect.stringMatching(/start\/1\/c1$/), expect.stringMatching(/start\/1\/c2$/)]);
  for (const row of rows) {
    const events = await storedEvents(stubFor(row.child_id));
    expect(events.filter((event) => event.type === "run-started")).toHaveLength(1);
  }
}

describe("child runs across crashes", () => {
  it("crash before the start: the replay starts each child once", async () => {
    const { id } = await createRun(body());
    await runSteps(stubFor(id), 1);
    expect(await childRows(id)).toEqual([]);
    await abortAllDurableObjects();
    await drive(stubFor(id));
    await expectOneChildEach(id);
    const view = await driveTree(id);
    expect(view.status).toBe("finished");
    expect((await journalKeys(stubFor(id))).filter((key) => key.includes("/model/"))).toHaveLength(2);
  });

  it("crash after a child was made but before the start was journaled: the same child is found again", async () => {
    const { id } = await createRun(body());
    await drive(stubFor(id));
    const before = await childRows(id);
    // The start's journal rows and events gone, as if the object died right after the creation.
    await runInDurableObject(stubFor(id), (_instance, state) => {
      state.storage.sql.exec("DELETE FROM journal WHERE key LIKE '%/start/%'");
      state.storage.sql.exec("UPDATE child_run SET status = 'starting'");
      // The slice that died had not ended: it was not yet suspended on anything.
      state.storage.sql.exec("UPDATE run SET suspended_on = NULL");
    });
    await abortAllDurableObjects();
    // The platform delivers the alarm that died again: a request to the running run re-arms it.
    await viewOf(stubFor(id));
    await drive(stubFor(id));
    expect((await childRows(id)).map((row) => row.child_id)).toEqual(before.map((row) => row.child_id));
    await expectOneChildEach(id);
    expect((await storedEvents(stubFor(id))).filter((event) => event.type === "child-started")).toHaveLength(2);
    expect((await driveTree(id)).status).toBe("finished");
  });

  it("a child that ended before the parent heard is told again after a crash, and applied once", async () => {
    const { id } = await createRun(body());
    await drive(stubFor(id));
    const children = (await viewOf(stubFor(id))).children!;
    // Each child's slice runs to its end (its outbox is not delivered), then the objects die.
    for (const child of children) await runSteps(stubFor(child.id), 10);
    await abortAllDurableObjects();
    for (const child of children) expect((await viewOf(stubFor(child.id))).status).toBe("finished");
    expect((await childRows(id)).every((row) => row.end_state === null)).toBe(true);
    for (const child of children) await deliverReports(child.id);
    // Delivered again (the outbox's at-least-once): the parent applies each end once.
    const rows = await childRows(id);
    const ends = rows.map((row) => JSON.parse(row.end_state!) as { childId: string; spentUsd: number });
    valueOf(await stubFor(id).childReport(ends.map((end) => ({ childId: end.childId, version: 99, status: "finished", spentUsd: end.spentUsd, end: { ...end, status: "finished", hasFinal: false, finalText: "other" } }))));
    const view = await driveTree(id);
    expect(view.status).toBe("finished");
    const events = await storedEvents(stubFor(id));
    expect(events.filter((event) => event.type === "child-ended")).toHaveLength(2);
    const { messages } = valueOf(await stubFor(id).messages());
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["A done.", "B done."]);
  });

  it("a parent evicted while waiting sleeps with no alarm, and wakes on its child's end", async () => {
    const { id } = await createRun(body());
    await drive(stubFor(id));
    await abortAllDurableObjects();
    expect(await alarmOf(id)).toBeNull();
    // A read does not wake it either.
    await viewOf(stubFor(id));
    expect(await alarmOf(id)).toBeNull();
    const children = (await viewOf(stubFor(id))).children!;
    await finishChild(children[0]!.id);
    await finishChild(children[1]!.id);
    expect(await alarmOf(id)).not.toBeNull();
    const view = await driveTree(id);
    expect(view.status).toBe("finished");
    const keys = await journalKeys(stubFor(id));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
