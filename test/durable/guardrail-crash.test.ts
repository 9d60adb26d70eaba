// An HTTP guardrail's verdict is a journal step (src/loop/guardrails/guardrail-step.ts): killed at
// each call into SQLite of the slice that asks it, the run resumed asks the check again only when
// its verdict was not stored (the check was in flight or not yet asked: at-least-once, with the
// same Idempotency-Key), never once it was; and the run ends as a run never killed does.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { runSlice } from "../../src/durable/engine/engine";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "../helpers/engine";
import { createRun, drive, journalKeys, storedEvents, viewOf, type RunStub } from "../helpers/runs";
import { watchedState } from "../helpers/watched-sql";

const typed = (stub: RunStub) => stub as unknown as DurableObjectStub<RunObject>;
const server = () => inject("toolServerUrl");

const body = () => ({
  minAnswerChars: 0,
  tools: ["calculator"],
  guardrails: { tool: [{ name: "gate", type: "http" as const, url: `${server()}/guardrail` }] },
  script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }] }, { text: "Done." }],
});
const CHECK = "s1/guardrail/tool/1/c1/gate";
const keys = ["s1/model/1", CHECK, "s1/tool/1/c1", "s1/model/2"];

async function asked(id: string): Promise<number> {
  return ((await (await fetch(`${server()}/count?key=${encodeURIComponent(`${id}/${CHECK}`)}`)).json()) as { count: number }).count;
}

class Killed extends Error {}

/** The object's state whose SQLite dies at its `at`-th call and every one after it, as a killed process's would. */
function killedAt(state: DurableObjectState, at: number): { state: DurableObjectState; calls: () => number } {
  let calls = 0;
  const watched = watchedState(state, {
    exec: () => {
      if (++calls >= at) throw new Killed(`killed at call ${at}`);
    },
    transaction: () => {
      if (calls >= at) throw new Killed(`killed at call ${at}`);
    },
  });
  return { state: watched, calls: () => calls };
}

async function slice(stub: RunStub, at: number): Promise<number> {
  return runInDurableObject(typed(stub), async (_instance, state) => {
    const killed = killedAt(state, at);
    await runSlice(engineFor(killed.state), new AbortController()).catch((error: unknown) => {
      if (!(error instanceof Killed)) throw error;
    });
    return killed.calls();
  });
}

describe("an HTTP guardrail, killed at each call into SQLite", () => {
  it("is asked again only when its verdict was not stored, and the run ends as one never killed", async () => {
    const first = await createRun(body());
    const total = await slice(first.stub, Number.POSITIVE_INFINITY);
    expect((await storedEvents(first.stub)).find((event) => event.type === "guardrail")).toMatchObject({ pass: true });
    expect(await journalKeys(first.stub)).toEqual(keys);
    expect(await asked(first.id)).toBe(1);
    for (let at = 1; at <= total; at++) {
      const { id, stub } = await createRun(body());
      await slice(stub, at);
      const committed = await journalKeys(stub);
      expect(committed, `killed at call ${at}`).toEqual(keys.slice(0, committed.length));
      // Past the step after the check, the kill points are the tool's and the run's end (their own tests'), not the check's.
      if (committed.length > keys.indexOf(CHECK) + 1) break;
      const before = await asked(id);
      await evictDurableObject(stub);
      await drive(stub);
      expect(await viewOf(stub), `killed at call ${at}`).toMatchObject({ status: "finished", finalText: "Done." });
      expect(await journalKeys(stub)).toEqual(keys);
      // A stored verdict is read back; one not stored is asked once more, with the same key.
      expect(await asked(id), `killed at call ${at}`).toBe(committed.includes(CHECK) ? before : before + 1);
      expect(await asked(id), `killed at call ${at}`).toBeLessThanOrEqual(2);
    }
  }, 60_000);
});
