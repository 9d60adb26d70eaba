// Recordings made by hand for the evals' pure tests (src/evals): a run's segments with model steps
// (their turns' calls, their requests as the export writes them: deltas with hashes) and the
// journaled answers of their calls, without running a loop.
import type { RunView } from "../../src/api/types";
import type { ModelStepValue } from "../../src/loop/model-step";
import type { ToolStepValue } from "../../src/loop/tool-calls/tool-step";
import type { ChatMessage, GenerateRequest, ToolCall } from "../../src/loop/types";
import type { Recording, RecordedSegment, RecordedStep } from "../../src/replay/recording";
import { RequestDeltaEncoder } from "../../src/replay/request-delta";

/** One model step of a hand-made recording: what its model said and called, and each call's answer (by call id). */
export type StepSpec = { text?: string; calls?: { id: string; name: string; input: unknown; answer?: string; kind?: "tool" | "wait" | "reply" }[]; system?: string };

const usage = { inputTokens: 10, outputTokens: 5, cachedReadTokens: 0, cachedWriteTokens: 0 };

/** A segment whose steps are `specs`, from model step `stepsBefore + 1`; each request adds the turn before it to the history. */
export function segmentOf(specs: readonly StepSpec[], options: { n?: number; stepsBefore?: number; messages?: ChatMessage[]; system?: string } = {}): RecordedSegment {
  const encoder = new RequestDeltaEncoder();
  const history: ChatMessage[] = [...(options.messages ?? [{ role: "user", content: "Do the thing." }])];
  const steps: RecordedStep[] = [];
  specs.forEach((spec, index) => {
    const local = index + 1;
    const request: GenerateRequest = { prompt: "", model: "m", messages: [...history], tools: [], toolChoice: "auto", cacheSystem: true, system: spec.system ?? options.system ?? "You help." };
    const toolCalls: ToolCall[] = (spec.calls ?? []).map(({ id, name, input }) => ({ id, name, input }));
    const message = { role: "assistant" as const, content: spec.text ?? "", ...(toolCalls.length > 0 ? { toolCalls } : {}) };
    const value: ModelStepValue = { message, usage, costUsd: 0.001, stopReason: toolCalls.length > 0 ? "tool_use" : "end_turn", last: false };
    steps.push({ key: `model/${local}`, value, costUsd: 0.001, request: encoder.next(request) });
    history.push(message);
    for (const call of spec.calls ?? []) {
      const answer: ToolStepValue = { content: call.answer ?? `${call.name} answered`, isError: false, costUsd: 0 };
      steps.push({ key: `${call.kind ?? "tool"}/${local}/${call.id}`, value: answer, costUsd: 0 });
      history.push({ role: "tool", toolCallId: call.id, content: answer.content });
    }
  });
  return { n: options.n ?? 1, messages: options.messages ?? [{ role: "user", content: "Do the thing." }], approvals: {}, stepsBefore: options.stepsBefore ?? 0, spentBefore: 0, stepLimit: 10, perQuestion: true, compactionRequests: [], steps, end: { kind: "stopped" } };
}

/** A recording of run `runId` with these segments, its view saying what the facts read. */
export function recordingOf(runId: string, segments: RecordedSegment[], view: Partial<RunView> = {}): Pick<Recording, "run" | "segments"> {
  const steps = segments.reduce((sum, segment) => sum + segment.steps.filter((step) => step.key.startsWith("model/")).length, 0);
  const run = { id: runId, status: "finished", model: "m", provider: "scripted", steps, maxSteps: 10, spentUsd: steps * 0.001, budgetUsd: 1, lastSeq: 1, createdAt: "", updatedAt: "", finalText: "", ...view } as RunView;
  return { run, segments };
}
