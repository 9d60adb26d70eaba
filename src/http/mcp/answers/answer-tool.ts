// `answer_run`: the tool a host without elicitation answers a run's question with. A call whose run
// waits ends with the question, its run id and call id (call-results.ts: waitingResult); a host's
// model can call no HTTP URL, but it can call a tool. Its answer goes in as POST
// /v1/runs/{id}/answer (the one answer path), and the call then follows the run as an agent's call
// does: the next question, the final text, or the run id when MCP_CALL_SECONDS runs out. Agents'
// names never hold `_`, so no agent can take this name. Pure but for the type of the schema.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitedAnswer } from "./elicitation";
import { AGENT_TOOL_ANNOTATIONS } from "../calls/tool-output";

export const ANSWER_TOOL = "answer_run";

export const answerTool: Tool & { description: string } = {
  name: ANSWER_TOOL,
  description:
    "Answers the question a Ratchet run waits on (an agent's call that answered status \"waiting\" gives its runId and callId), then goes on with the run like the agent's call: the next question or the final answer. Give `answer` for a question, `approved` for an approval.",
  inputSchema: {
    type: "object",
    properties: {
      runId: { type: "string", description: "The run that waits (structuredContent.runId)." },
      callId: { type: "string", description: "The call it waits on (structuredContent.waiting.callId)." },
      answer: { type: "string", description: "The answer to a question (kind ask, or a client tool's result)." },
      approved: { type: "boolean", description: "The answer to an approval (kind approval)." },
    },
    required: ["runId", "callId"],
  },
  annotations: { title: "Answer a run's question", ...AGENT_TOOL_ANNOTATIONS },
};

/** The run and answer body from the tool's arguments, or the first field at fault. */
export function answerArgs(args: Record<string, unknown>): { runId: string; body: ElicitedAnswer } | { issue: { path: string; message: string } } {
  const { runId, callId, answer, approved } = args;
  if (typeof runId !== "string" || runId === "") return { issue: { path: "arguments.runId", message: "Required: the run id." } };
  if (typeof callId !== "string" || callId === "") return { issue: { path: "arguments.callId", message: "Required: the call id." } };
  if (typeof approved === "boolean") return { runId, body: { callId, approved } };
  if (typeof answer === "string") return { runId, body: { callId, content: answer } };
  return { issue: { path: "arguments.answer", message: "Give `answer` (a string) or `approved` (a boolean)." } };
}
