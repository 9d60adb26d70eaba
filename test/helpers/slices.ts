// A slice of a run cut short: exactly `steps` new steps run in its object, then the slice stops,
// as if the object's time had run out (the next alarm goes on from there).
import { runInDurableObject } from "cloudflare:test";
import { runSlice } from "../../src/durable/engine/engine";
import type { RunObject } from "../../src/durable/run/run-object";
import { engineFor } from "./engine";
import type { RunStub } from "./runs";

export async function runSteps(stub: RunStub, steps: number): Promise<void> {
  await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (_instance, state) => {
    await runSlice(engineFor(state, { sliceSteps: steps }), new AbortController());
  });
}
