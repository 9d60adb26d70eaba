// The inbox converges to exactly the runs' own states after a crash at any point of the outbox's
// way. For each change of a run (created, waiting, answered, finished, deleted) the whole world is
// aborted at each point of its delivery:
//
//   committed   the change and its outbox row are written, nothing was sent
//   leased      the attempt's lease is written (the row is due again later), nothing was sent
//   applied     the inbox applied the change, the run did not yet delete its row
//   delivered   the row is gone
//
// then the run's alarms alone (time moved on) must bring the listing to what each run's view says,
// with every change in the inbox's log once. A random mix of operations, crashes and evictions on
// several runs follows (fast-check).
import { abortAllDurableObjects, env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InboxChange } from "../../src/api/rpc/inbox-rpc";
import type { InboxEvent, RunSummary, StoredInboxEvent } from "../../src/api/types";
import { engineFor } from "../helpers/engine";
import { runSlice } from "../../src/durable/engine/engine";
import { eventsAfter } from "../../src/durable/events/log/event-log";
import type { InboxObject } from "../../src/durable/inbox/inbox-object";
import { inboxStub } from "../../src/durable/inbox/inbox-stub";
import { leaseRow, pendingRows } from "../../src/durable/outbox/outbox-store";
import type { RunObject } from "../../src/durable/run/run-object";
import { deliverOutbox, ownSummary, pendingOutbox } from "../helpers/inbox";
import { newRun, stubFor, valueOf, type RunStub } from "../helpers/runs";

type Point = "committed" | "leased" | "applied" | "delivered";
const POINTS: Point[] = ["committed", "leased", "applied", "delivered"];

// Each turn costs, so the subject's spend (reserved at each start, released at each end) is tested too.
const asking = [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Go on?" } }], costUsd: 0.25 }, { text: "Done.", costUsd: 0.125 }, { text: "More.", costUsd: 0.0625 }];
const BUDGET_USD = 1;

function objectOf(stub: RunStub): DurableObjectStub<RunObject> {
  return stub as unknown as DurableObjectStub<RunObject>;
}

async function inboxLog(subject: string): Promise<StoredInboxEvent[]> {
  const stub = inboxStub(env, subject) as unknown as DurableObjectStub<InboxObject>;
  return runInDurableObject(stub, (_instance, state) => {
    const exists = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'event'").toArray().length > 0;
    return exists ? eventsAfter(state.storage.sql, 0).map((event) => JSON.parse(event.text) as StoredInboxEvent) : [];
  });
}

async function listing(subject: string): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const page = await inboxStub(env, subject).list(after === undefined ? { limit: 100 } : { limit: 100, after });
    runs.push(...page.runs);
    if (page.next === undefined) return runs;
    after = page.next;
  }
}

/** Time moves on: every pending row is due; the alarms run until nothing is left to deliver (bounded). */
async function recover(ids: readonly string[]): Promise<void> {
  for (let round = 0; round < 10; round++) {
    let pending = 0;
    for (const id of ids) {
      const stub = stubFor(id);
      await runInDurableObject(objectOf(stub), (_instance, state) => {
        const exists = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray().length > 0;
        if (exists) state.storage.sql.exec("UPDATE outbox SET next_at = ? WHERE state = 'pending'", Date.now() - 1);
      });
      await deliverOutbox(stub);
      pending += (await pendingOutbox(stub)).filter((row) => row.channel === "inbox").length;
    }
    if (pending === 0) return;
  }
  throw new Error("the outboxes did not empty");
}

/** The listing is exactly the runs' own states, and the log holds each change once, in version order per run. */
async function expectConverged(subject: string, ids: readonly string[]): Promise<void> {
  const own = (await Promise.all(ids.map(ownSummary))).filter((summary): summary is RunSummary => summary !== undefined);
  const listed = await listing(subject);
  const byId = (a: RunSummary, b: RunSummary) => a.id.localeCompare(b.id);
  expect([...listed].sort(byId)).toEqual([...own].sort(byId));
  const log = await inboxLog(subject);
  expect(log.map((event) => event.seq)).toEqual(log.map((_event, i) => i + 1));
  for (const id of ids) {
    const versions = log.filter((event) => event.run.id === id).map((event) => event.run.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
  }
  // Spend: a running or waiting run holds its whole budget (what it spent before its last start is
  // counted as spent, the rest as reserved); an ended or deleted one counts what it spent, once.
  let expected = 0;
  for (const id of ids) {
    const own = await ownSummary(id);
    const last = log.filter((event) => event.run.id === id).at(-1)!;
    const state = own ?? last.run;
    expected += own !== undefined && (own.status === "running" || own.status === "waiting") ? BUDGET_USD : state.spentUsd;
  }
  const usage = await inboxStub(env, subject).usage(subject, 20);
  expect(Math.round((usage.reservedUsd + usage.spentUsd) * 1e6)).toBe(Math.round(expected * 1e6));
}

/** Stops the delivery of the run's pending changes at `point`, as the outbox would have got there. */
async function stopAt(stub: RunStub, subject: string, point: Point): Promise<void> {
  if (point === "committed") return;
  if (point === "delivered") return deliverOutbox(stub);
  await runInDurableObject(objectOf(stub), async (_instance, state) => {
    const rows = pendingRows(state.storage.sql, "inbox");
    for (const row of rows) leaseRow(state.storage.sql, row.id, Date.now() + 15_000);
    if (point === "applied") {
      const changes: InboxChange[] = rows.map((row) => ({ version: row.version, event: JSON.parse(row.body) as InboxEvent }));
      valueOf(await inboxStub(env, subject).apply(subject, changes));
    }
  });
}

/** One slice of the run, in its object, without the alarm (so nothing is delivered). */
async function sliceOnly(stub: RunStub): Promise<void> {
  await runInDurableObject(objectOf(stub), async (_instance, state) => {
    await runSlice(engineFor(state), new AbortController());
  });
}

type Change = { name: string; make: (id: string) => Promise<void> };

/** The changes of a run that asks, is answered, finishes and is deleted, in order. */
const CHANGES: Change[] = [
  { name: "created", make: async () => undefined },
  { name: "waiting", make: async (id) => sliceOnly(stubFor(id)) },
  { name: "answered", make: async (id) => void valueOf(await stubFor(id).answer({ callId: "q", content: "yes" })) },
  { name: "finished", make: async (id) => sliceOnly(stubFor(id)) },
  { name: "deleted", make: async (id) => void valueOf(await stubFor(id).deleteRun()) },
];

async function createFor(subject: string): Promise<string> {
  const run = { ...newRun({ tools: ["ask"], script: asking, subject, budget: { usd: BUDGET_USD } }), subject };
  valueOf(await stubFor(run.id).create(run));
  return run.id;
}

describe("the inbox converges after a crash at any point", () => {
  for (const [index, change] of CHANGES.entries()) {
    for (const point of POINTS) {
      it(`${change.name}: aborted at "${point}"`, async () => {
        const subject = `converge-${change.name}-${point}-${crypto.randomUUID()}`;
        const id = await createFor(subject);
        // The changes before this one are delivered in full.
        for (const earlier of CHANGES.slice(1, index)) {
          await earlier.make(id);
          await recover([id]);
        }
        if (index > 0) await change.make(id);
        await stopAt(stubFor(id), subject, point);
        await abortAllDurableObjects();
        await recover([id]);
        await expectConverged(subject, [id]);
        // And the run goes on to its end (and deletion) with the inbox following.
        for (const later of CHANGES.slice(index + 1)) {
          await later.make(id);
          await recover([id]);
          await expectConverged(subject, [id]);
        }
        expect(await listing(subject)).toEqual([]);
        expect(await pendingOutbox(stubFor(id))).toEqual([]);
        // The tombstone gave back its outbox and its alarm once the deletion was delivered.
        expect(await runInDurableObject(objectOf(stubFor(id)), async (_instance, state) => state.storage.getAlarm())).toBeNull();
      });
    }
  }

  it("a redelivered or late change changes nothing: the inbox keeps the newest version", async () => {
    const subject = `converge-stale-${crypto.randomUUID()}`;
    const id = await createFor(subject);
    await sliceOnly(stubFor(id));
    const rows = await runInDurableObject(objectOf(stubFor(id)), (_instance, state) => pendingRows(state.storage.sql, "inbox"));
    const changes: InboxChange[] = rows.map((row) => ({ version: row.version, event: JSON.parse(row.body) as InboxEvent }));
    const inbox = inboxStub(env, subject);
    expect(valueOf(await inbox.apply(subject, changes)).applied).toBe(2);
    expect(valueOf(await inbox.apply(subject, changes)).applied).toBe(0);
    expect(valueOf(await inbox.apply(subject, [changes[0]!])).applied).toBe(0);
    expect((await listing(subject)).map((run) => run.status)).toEqual(["waiting"]);
    expect(await inbox.apply("someone-else", changes)).toMatchObject({ ok: false, status: 409 });
    await recover([id]);
    await expectConverged(subject, [id]);
  });
});

type Op = { kind: "create" } | { kind: "slice" | "answer" | "cancel" | "delete" | "deliver" | "continue"; run: number } | { kind: "crash" | "evict-inbox" } | { kind: "stop"; run: number; point: Point };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Op>({ kind: "create" }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom("slice", "answer", "cancel", "delete", "deliver", "continue"), run: fc.nat(3) }) as fc.Arbitrary<Op> },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("stop"), run: fc.nat(3), point: fc.constantFrom(...POINTS) }) as fc.Arbitrary<Op> },
  { weight: 1, arbitrary: fc.constantFrom<Op>({ kind: "crash" }, { kind: "evict-inbox" }) },
);

const RUNS = Number(process.env.VITE_FUZZ_RUNS ?? 12);

describe("random operations, crashes and evictions", () => {
  it("after every sequence the listing equals the runs' own views", async () => {
    const details = await fc.check(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 14 }), async (ops) => {
        const subject = `converge-random-${crypto.randomUUID()}`;
        const ids: string[] = [await createFor(subject)];
        for (const step of ops) {
          const id = "run" in step ? ids[step.run % ids.length]! : undefined;
          // Refusals (an answer to a run that does not wait, a delete of a deleted run) are part of the mix.
          switch (step.kind) {
            case "create":
              if (ids.length < 4) ids.push(await createFor(subject));
              break;
            case "slice":
              if ((await ownSummary(id!))?.status === "running") await sliceOnly(stubFor(id!));
              break;
            case "answer":
              await stubFor(id!).answer({ callId: "q", content: "yes" });
              break;
            case "cancel":
              await stubFor(id!).cancel();
              break;
            case "continue":
              await stubFor(id!).continueRun({ content: "more" });
              break;
            case "delete":
              await stubFor(id!).deleteRun();
              break;
            case "deliver":
              await deliverOutbox(stubFor(id!));
              break;
            case "stop":
              if ((await ownSummary(id!)) !== undefined) await stopAt(stubFor(id!), subject, step.point);
              break;
            case "crash":
              await abortAllDurableObjects();
              break;
            case "evict-inbox":
              // An inbox that is not running has nothing to lose.
              await evictDurableObject(inboxStub(env, subject)).catch(() => undefined);
              break;
          }
        }
        await recover(ids);
        await expectConverged(subject, ids);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    if (details.failed) throw new Error(`${fc.defaultReportMessage(details) ?? "property failed"}\nCause: ${String(details.errorInstance)}`);
  }, 120_000);
});
