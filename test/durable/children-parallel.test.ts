// The starts of one turn's agent calls do not wait for their children's objects
// (src/durable/children/child-deps.ts): every start is journaled while the creations it asked for
// are in flight together, and the call's wait waits for its own. The crash points of that: a crash
// after the starts were journaled and before a child's object answered (the creation never
// arrived), and after it answered but before the parent recorded it: each child is made once, the
// parent tells `child-started` once per call, and the parent finishes.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { NewRun, RunTemplate } from "../../src/api/types";
import { childRunDeps } from "../../src/durable/children/child-deps";
import { runSlice } from "../../src/durable/engine/engine";
import type { RunObject } from "../../src/durable/run/run-object";
import { readRun, readSegment } from "../../src/durable/run/run-store";
import { engineFor } from "../helpers/engine";
import { agentTool, callAgents, childRows, driveTree } from "../helpers/children";
import { createRun, drive, storedEvents, stubFor, valueOf, viewOf, type RunStub } from "../helpers/runs";

const body = () => ({
  tools: [agentTool("a", [{ text: "A done." }]), agentTool("b", [{ text: "B done." }])],
  minAnswerChars: 0,
  script: [callAgents([["c1", "a", "1"], ["c2", "b", "2"]]), { text: "All done." }],
});

/**
 * The test's own RUNS binding: every child creation is recorded, and held before (`"before"`) or
 * after (`"after"`) it reaches the child's object until `open` is called; everything else passes.
 */
function gatedRuns(hold: "before" | "after") {
  const asked: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let bothAsked!: () => void;
  const both = new Promise<void>((resolve) => (bothAsked = resolve));
  const real = env.RUNS as unknown as DurableObjectNamespace<RunObject>;
  const runs = {
    idFromName: (name: string) => real.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = real.get(id) as unknown as RunStub;
      return new Proxy(stub, {
        get(target, property, receiver) {
          if (property !== "create") return Reflect.get(target, property, receiver) as unknown;
          return async (run: NewRun) => {
            asked.push(run.id);
            if (asked.length === 2) bothAsked();
            if (hold === "before") await gate;
            const outcome = await target.create(run);
            if (hold === "after") await gate;
            return outcome;
          };
        },
      });
    },
  };
  return { env: { ...env, RUNS: runs as unknown as Env["RUNS"] }, asked, open, both };
}

async function expectOneChildEach(id: string): Promise<void> {
  const rows = await childRows(id);
  expect(rows).toHaveLength(2);
  for (const row of rows) expect((await storedEvents(stubFor(row.child_id))).filter((event) => event.type === "run-started")).toHaveLength(1);
  expect((await storedEvents(stubFor(id))).filter((event) => event.type === "child-started")).toHaveLength(2);
}

/** Runs the parent's slice with `gated` children's creations, until both were asked; the slice is left in flight. */
async function sliceUntilBothAsked(id: string, gated: ReturnType<typeof gatedRuns>): Promise<void> {
  await runInDurableObject(stubFor(id) as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
    void runSlice(engineFor(state, { env: gated.env }), new AbortController()).catch(() => undefined);
    await gated.both;
  });
}

describe("agent calls of one turn start their children at once", () => {
  it("each start returns before its child's object answered: both creations are in flight together, and each wait waits for its own", async () => {
    const { id, stub } = await createRun(body());
    const gated = gatedRuns("before");
    const settled = await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
      const run = readRun(state.storage.sql)!;
      const deps = childRunDeps(engineFor(state, { env: gated.env }), run, readSegment(state.storage.sql, 1));
      const templates = (run.body.tools ?? []) as unknown as { run: RunTemplate }[];
      const first = await deps.start({ key: "start/1/c1", callId: "c1", name: "a", task: "1", template: templates[0]!.run });
      const second = await deps.start({ key: "start/1/c2", callId: "c2", name: "b", task: "2", template: templates[1]!.run });
      expect([first.ok, second.ok]).toEqual([true, true]);
      // Both asked, neither answered: the parent's record of each is still "starting".
      expect(gated.asked).toHaveLength(2);
      expect(state.storage.sql.exec<{ status: string }>("SELECT status FROM child_run ORDER BY rowid").toArray().map((row) => row.status)).toEqual(["starting", "starting"]);
      gated.open();
      return Promise.all([deps.settle("start/1/c1"), deps.settle("start/1/c2")]);
    });
    expect(settled).toEqual([{ kind: "pending" }, { kind: "pending" }]);
    expect((await childRows(id)).map((row) => row.status)).toEqual(["running", "running"]);
    await expectOneChildEach(id);
  });

  it("crash after the starts were journaled, before the children's objects were reached: the waits ask again, each child is made once", async () => {
    const { id } = await createRun(body());
    const gated = gatedRuns("before");
    await sliceUntilBothAsked(id, gated);
    await abortAllDurableObjects();
    expect((await childRows(id)).map((row) => row.status)).toEqual(["starting", "starting"]);
    for (const row of await childRows(id)) expect(await stubFor(row.child_id).exists()).toBe(false);
    // The alarm that died is delivered again: a read re-arms the running run.
    await viewOf(stubFor(id));
    await drive(stubFor(id));
    await expectOneChildEach(id);
    expect((await driveTree(id)).status).toBe("finished");
  });

  it("crash after the children's objects made them, before the parent recorded it: the waits find the same children", async () => {
    const { id } = await createRun(body());
    const gated = gatedRuns("after");
    await sliceUntilBothAsked(id, gated);
    await abortAllDurableObjects();
    const rows = await childRows(id);
    expect(rows.map((row) => row.status)).toEqual(["starting", "starting"]);
    await viewOf(stubFor(id));
    await drive(stubFor(id));
    expect((await childRows(id)).map((row) => row.child_id)).toEqual(rows.map((row) => row.child_id));
    await expectOneChildEach(id);
    const view = await driveTree(id);
    expect(view.status).toBe("finished");
    const { messages } = valueOf(await stubFor(id).messages());
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["A done.", "B done."]);
  });
});
