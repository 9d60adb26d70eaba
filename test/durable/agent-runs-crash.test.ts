// A stored agent's index of runs converges to the runs' own states after a crash at any point of
// the outbox's `agent` channel. For each change of a run of an agent (created, finished, deleted)
// the whole world is aborted at each point of its delivery:
//
//   committed   the change and its outbox row are written, nothing was sent
//   leased      the attempt's lease is written (the row is due again later), nothing was sent
//   applied     the index applied the change, the run did not yet delete its row
//   delivered   the row is gone
//
// then the run's alarms alone (time moved on) must bring the index to what the run's view says.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InboxChange } from "../../src/api/rpc/inbox-rpc";
import type { InboxEvent } from "../../src/api/types";
import { agentRunsStub } from "../../src/durable/agents/agents-stub";
import { runSlice } from "../../src/durable/engine/engine";
import { leaseRow, pendingRows } from "../../src/durable/outbox/outbox-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "../helpers/engine";
import { deliverOutbox, ownSummary, pendingOutbox } from "../helpers/inbox";
import { newRun, stubFor, valueOf, type RunStub } from "../helpers/runs";

type Point = "committed" | "leased" | "applied" | "delivered";
const POINTS: Point[] = ["committed", "leased", "applied", "delivered"];

function objectOf(stub: RunStub): DurableObjectStub<RunObject> {
  return stub as unknown as DurableObjectStub<RunObject>;
}

/** Time moves on: every pending row is due; the alarm delivers until the agent channel is empty (bounded). */
async function recover(id: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    await runInDurableObject(objectOf(stubFor(id)), (_instance, state) => {
      const exists = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray().length > 0;
      if (exists) state.storage.sql.exec("UPDATE outbox SET next_at = ? WHERE state = 'pending'", Date.now() - 1);
    });
    await deliverOutbox(stubFor(id));
    if ((await pendingOutbox(stubFor(id))).every((row) => row.channel !== "agent")) return;
  }
  throw new Error("the agent channel did not empty");
}

/** The index lists exactly the run's own state (nothing, once it is deleted). */
async function expectConverged(name: string, id: string): Promise<void> {
  const own = await ownSummary(id);
  expect((await agentRunsStub(env, name).list({ limit: 10 })).runs).toEqual(own === undefined ? [] : [own]);
}

/** Stops the delivery of the run's pending agent changes at `point`, as the outbox would have got there. */
async function stopAt(id: string, name: string, point: Point): Promise<void> {
  if (point === "committed") return;
  if (point === "delivered") return deliverOutbox(stubFor(id));
  await runInDurableObject(objectOf(stubFor(id)), async (_instance, state) => {
    const rows = pendingRows(state.storage.sql, "agent");
    for (const row of rows) leaseRow(state.storage.sql, row.id, Date.now() + 15_000);
    if (point === "applied") {
      const changes: InboxChange[] = rows.map((row) => ({ version: row.version, event: JSON.parse(row.body) as InboxEvent }));
      valueOf(await agentRunsStub(env, name).apply(changes));
    }
  });
}

type Change = { name: string; make: (id: string) => Promise<void> };

const CHANGES: Change[] = [
  { name: "created", make: async () => undefined },
  {
    name: "finished",
    make: async (id) =>
      runInDurableObject(objectOf(stubFor(id)), async (_instance, state) => {
        await runSlice(engineFor(state), new AbortController());
      }),
  },
  { name: "deleted", make: async (id) => void valueOf(await stubFor(id).deleteRun()) },
];

describe("an agent's index of runs converges after a crash at any point", () => {
  for (const [index, change] of CHANGES.entries()) {
    for (const point of POINTS) {
      it(`${change.name}: aborted at "${point}"`, async () => {
        const name = `crash-${change.name}-${point}-${crypto.randomUUID().slice(0, 8)}`;
        const run = { ...newRun({ script: [{ text: "Done." }], minAnswerChars: 0 }), agent: { name, version: 1 } };
        valueOf(await stubFor(run.id).create(run));
        for (const earlier of CHANGES.slice(1, index)) {
          await earlier.make(run.id);
          await recover(run.id);
        }
        if (index > 0) await change.make(run.id);
        await stopAt(run.id, name, point);
        await abortAllDurableObjects();
        await recover(run.id);
        await expectConverged(name, run.id);
        for (const later of CHANGES.slice(index + 1)) {
          await later.make(run.id);
          await recover(run.id);
          await expectConverged(name, run.id);
        }
        expect(await pendingOutbox(stubFor(run.id))).toEqual([]);
      });
    }
  }
});
