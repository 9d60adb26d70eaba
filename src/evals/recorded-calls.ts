// The tool calls a recording answered, in the order its loop asked for them: each call's tool and
// input (as the model wrote them in its turn) and the value its journal holds for it (a tool step's,
// or an async call's wait). Calls the loop answered itself (`reply/`: an unknown tool, an invalid
// input, a repeat) are not recorded answers. Pure: read from a run's recording (src/replay).
import type { RecordedCall } from "../api/resources/eval-types";
import type { ToolStepValue } from "../loop/tool-calls/tool-step";
import type { ModelStepValue } from "../loop/model-step";
import type { ChatMessage, ToolCall } from "../loop/types";
import type { Recording } from "../replay/recording";

export type { RecordedCall };

const ANSWER = /^(tool|wait)\/(\d+)\/(.+)$/;
const MODEL = /^model\/(\d+)$/;

/** The calls of the given history's last assistant turn (answered at turn 0). */
function givenCalls(messages: readonly ChatMessage[]): ToolCall[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "assistant") return message.toolCalls ?? [];
  }
  return [];
}

export function recordedCallsOf(recording: Pick<Recording, "segments">): RecordedCall[] {
  const calls: RecordedCall[] = [];
  for (const segment of recording.segments) {
    const made = new Map<string, ToolCall>();
    for (const call of givenCalls(segment.messages)) made.set(call.id, call);
    for (const step of segment.steps) {
      const model = MODEL.exec(step.key);
      if (model !== null) {
        for (const call of (step.value as ModelStepValue).message.toolCalls ?? []) made.set(call.id, call);
        continue;
      }
      const answer = ANSWER.exec(step.key);
      const call = answer === null ? undefined : made.get(answer[3]!);
      if (answer === null || call === undefined) continue;
      const local = Number(answer[2]);
      calls.push({ step: local === 0 ? 0 : segment.stepsBefore + local, name: call.name, input: call.input, value: step.value as ToolStepValue });
    }
  }
  return calls;
}
