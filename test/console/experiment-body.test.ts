// The console's "Start an experiment" request (console/experiments/experiment-body.ts): the form's
// fields made into POST /v1/experiments's body, an agent's version or changes as the variant, the
// optional fields left out when empty, and a field that is not JSON said as such (the rest is the
// API's to judge).
import { describe, expect, it } from "vitest";
import { agentChoice, experimentBody, type ExperimentFields } from "../../console/experiments/experiment-body";

const fields = (changed: Partial<ExperimentFields>): ExperimentFields => ({ name: "", dataset: "arithmetic", variant: "", changes: "{}", scorers: '[{ "type": "exact" }]', mode: "replay", budget: "", baseline: "", ...changed });

describe("the experiment form's request", () => {
  it("takes changes as the variant, and leaves out the empty optional fields", () => {
    expect(experimentBody(fields({ changes: '{ "system": "Words only." }' }))).toEqual({ body: { dataset: "arithmetic", variant: { system: "Words only." }, scorers: [{ type: "exact" }], mode: "replay" } });
    expect(experimentBody(fields({ changes: "  " }))).toEqual({ body: { dataset: "arithmetic", variant: {}, scorers: [{ type: "exact" }], mode: "replay" } });
  });

  it("takes an agent's version as the variant, and the name, budget and baseline given", () => {
    const variant = agentChoice({ name: "ticket-triage", version: 3 });
    expect(variant).toBe("ticket-triage@3");
    expect(experimentBody(fields({ variant, changes: "not read", name: " nightly ", budget: "0.5", baseline: " recordings ", mode: "replay-then-live" }))).toEqual({
      body: { name: "nightly", dataset: "arithmetic", variant: { agent: { name: "ticket-triage", version: 3 } }, scorers: [{ type: "exact" }], mode: "replay-then-live", budget: { usd: 0.5 }, baseline: "recordings" },
    });
  });

  it("says which field is not JSON", () => {
    expect(experimentBody(fields({ changes: "{ system: x }" }))).toEqual({ error: expect.stringMatching(/^The changes are not JSON: /) });
    expect(experimentBody(fields({ scorers: "[exact]" }))).toEqual({ error: expect.stringMatching(/^The scorers are not JSON: /) });
  });
});
