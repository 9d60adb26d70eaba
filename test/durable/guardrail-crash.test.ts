// An HTTP guardrail's verdict is a journal step (src/loop/guardrails/guardrail-step.ts): killed at
// each call into SQLite of the slice that asks it, the run resumed asks the check again only when
// its verdict was not stored (the check was in flight or not yet asked: at-least-once, with the
// same Idempotency-Key), never once it was; and the run ends as a run never killed does.
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { sliceKilledAt } from "../helpers/killed-at";
import { createRun, drive, journalKeys, storedEvents, viewOf } from "../helpers/runs";

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

describe("an HTTP guardrail, killed at each call into SQLite", () => {
  it("is asked again only when its verdict was not stored, and the run ends as one never killed", async () => {
    const first = await createRun(body());
    const total = await sliceKilledAt(first.stub, Number.POSITIVE_INFINITY);
    expect((await storedEvents(first.stub)).find((event) => event.type === "guardrail")).toMatchObject({ pass: true });
    expect(await journalKeys(first.stub)).toEqual(keys);
    expect(await asked(first.id)).toBe(1);
    for (let at = 1; at <= total; at++) {
      const { id, stub } = await createRun(body());
      await sliceKilledAt(stub, at);
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
