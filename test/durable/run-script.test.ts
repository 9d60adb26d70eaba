// A run's script is parsed once per object instance (run-script.ts), not on every slice; a stored
// script that fails the schema after all stops with a clear error.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runSlice } from "../../src/durable/engine/engine";
import type { RunObject } from "../../src/durable/run/run-object";
import { scriptOf } from "../../src/durable/engine/provider/run-script";
import { scriptSchema } from "../../src/providers/scripted/scripted";
import { engineFor } from "../helpers/engine";
import { createRun, journalKeys, viewOf, type RunStub } from "../helpers/runs";

const script = [
  { text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }] },
  { text: "Multiplying.", toolCalls: [{ id: "c2", name: "calculator", input: { expression: "4*5" } }] },
  { text: "It is 20." },
];

function inObject<T>(stub: RunStub, work: (state: DurableObjectState) => Promise<T>): Promise<T> {
  return runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, (_instance, state) => work(state));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the scripted provider's script", () => {
  it("is parsed once by an object that runs it over several slices", async () => {
    const { stub } = await createRun({ tools: ["calculator"], minAnswerChars: 0, script });
    const parse = vi.spyOn(scriptSchema, "safeParse");
    await inObject(stub, async (state) => {
      // One new step per slice: five slices for the run's five steps, each with a fresh engine context.
      for (let slice = 0; slice < 5; slice++) await runSlice(engineFor(state, { sliceSteps: 1 }), new AbortController());
    });
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2", "s1/tool/2/c2", "s1/model/3"]);
    expect(await viewOf(stub)).toMatchObject({ status: "finished", finalText: "It is 20." });
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it("is parsed again by another object instance, and a run with no script parses nothing", async () => {
    const first = await createRun({ script });
    const second = await createRun({ script });
    const parse = vi.spyOn(scriptSchema, "safeParse");
    const [a, b] = await Promise.all([inObject(first.stub, async (state) => scriptOf(state, first.id, script)), inObject(second.stub, async (state) => scriptOf(state, second.id, script))]);
    expect(a).toEqual(script);
    expect(b).toEqual(script);
    expect(parse).toHaveBeenCalledTimes(2);
    await inObject(first.stub, async (state) => expect(scriptOf(state, first.id, undefined)).toBeUndefined());
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it("that is invalid in storage stops with an error naming where", async () => {
    const { id, stub } = await createRun({});
    await inObject(stub, async (state) => {
      expect(() => scriptOf(state, id, [{ text: "ok" }, { txt: "typo" }])).toThrow("The run's stored script is not valid at script.1: ");
      expect(() => scriptOf(state, id, "not a list")).toThrow("The run's stored script is not valid: ");
    });
  });
});
