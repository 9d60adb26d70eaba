// The person's decisions are read by a call's own id, own keys only (src/loop/tool-calls/decision.ts):
// a call whose id names a member of Object.prototype is not taken as decided — an approval tool
// still asks, and a tool check still runs on it.
import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import type { ChatMessage, LoopGuardrail, RunToolLoopOptions } from "../../src/loop";
import { decisionOf } from "../../src/loop/tool-calls/decision";
import { memoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user: ChatMessage[] = [{ role: "user", content: "go" }];
const INHERITED = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__", "__lookupGetter__"];

function base(over: Partial<RunToolLoopOptions>): RunToolLoopOptions {
  return { generate: scriptedModel([]).generate, model: "m", messages: user, minAnswerChars: 0, step: memoryJournal().step, ...over };
}

describe("decisionOf", () => {
  it("is the decision stored under the id, and none for an id the approvals only inherit", () => {
    const approvals = JSON.parse('{"a":true,"b":false}') as Record<string, boolean>;
    expect([decisionOf(approvals, "a"), decisionOf(approvals, "b"), decisionOf(approvals, "c"), decisionOf(undefined, "a")]).toEqual([true, false, undefined, undefined]);
    for (const id of INHERITED) expect(decisionOf(approvals, id)).toBeUndefined();
    expect(decisionOf(JSON.parse('{"constructor":false}') as Record<string, boolean>, "constructor")).toBe(false);
  });
});

describe("a call whose id names a member of Object.prototype", () => {
  for (const id of INHERITED) {
    it(`an approval tool asks before call "${id}" runs`, async () => {
      const runs: string[] = [];
      const deploy = { ...echoTool("deploy"), approval: true, run: async ({ text }: { text: string }) => { runs.push(text); return "deployed"; } };
      const result = await runToolLoop(base({ generate: scriptedModel([{ toolCalls: [call("deploy", { text: "prod" }, id)] }, { text: "after" }]).generate, tools: [deploy], approvals: {} }));
      expect(result.stoppedBy).toBe("asked");
      expect(result.asked).toMatchObject({ kind: "approval", callId: id, name: "deploy" });
      expect(runs).toEqual([]);
    });

    it(`the tool checks run on call "${id}" (a reject reaches the model, the tool never runs)`, async () => {
      const echo = echoTool();
      const check: LoopGuardrail = { name: "no-rm", stage: "tool", onFail: "reject", check: async () => ({ pass: false, reason: "No." }), decide: () => ({ pass: false, reason: "No." }) };
      const result = await runToolLoop(base({ generate: scriptedModel([{ toolCalls: [call("echo", { text: "rm" }, id)] }, { text: "after" }]).generate, tools: [echo], guardrails: [check], approvals: {} }));
      expect(echo.counter.calls).toEqual([]);
      expect(result.messages.find((message) => message.role === "tool")).toMatchObject({ toolCallId: id, content: "Rejected by guardrail no-rm: No.", isError: true });
    });
  }
});
