// One tools/call of an agent, from its run's start to the call's answer. The run is the engine;
// this only translates its events: each finished step a progress notification, a waiting ask or
// approval an elicitation (when the client can show one; else the call answers with the question),
// the end the call's result. Past the call's time it answers with the run id, and the run goes on.
// Everything it does goes through `deps`, so the decisions are tested without a Worker.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RunView } from "../../../api/types";
import { endResult, longCallResult, waitingResult, type RunLinks } from "./call-results";
import { canElicit, type Waiting } from "../answers/elicitation";
import type { CallEvent, EventReader } from "./run-events";
import type { LoopVerdictSeen } from "../../../api/rules/policy-stops";

export type AgentCallDeps = {
  /** Starts the agent's run (or finds the one this same request started before). */
  start(): Promise<RunView>;
  /** The run's stored events after a seq. */
  events(runId: string, after: number): Promise<EventReader>;
  /** Sends a progress notification (a no-op when the client sent no progressToken). */
  progress(progress: number, total: number, message: string): Promise<void>;
  /** Puts a wait to the person as an elicitation; undefined when the client declared none. */
  elicit: ((runId: string, waiting: Waiting) => Promise<void>) | undefined;
  /** Resolves when the call's time (MCP_CALL_SECONDS) is over. */
  deadline: Promise<void>;
  seconds: number;
  links(runId: string): RunLinks;
};

const TERMINAL = new Set(["finished", "failed", "cancelled"]);
const TIMED_OUT: unique symbol = Symbol("timed out");

export async function callAgent(deps: AgentCallDeps): Promise<CallToolResult> {
  const view = await deps.start();
  const links = deps.links(view.id);
  if (TERMINAL.has(view.status)) return endResult(view.id, view, links);
  await deps.progress(view.steps, view.maxSteps, `Run ${view.id} started.`);
  const deadline = deps.deadline.then((): typeof TIMED_OUT => TIMED_OUT);
  let waiting: Waiting | undefined = view.waiting;
  let asked: string | undefined;
  // The newest loop guard verdict read: the words of a loop stop.
  let loop: LoopVerdictSeen | undefined;
  const reader = await deps.events(view.id, view.lastSeq);
  try {
    for (;;) {
      if (waiting !== undefined && waiting.callId !== asked) {
        if (deps.elicit === undefined || !canElicit(waiting)) return waitingResult(view.id, waiting, links);
        // A send that fails (the call's stream is gone, the client refused it) leaves the question to the answer.
        const sent = await deps.elicit(view.id, waiting).then(
          () => true,
          () => false,
        );
        if (!sent) return waitingResult(view.id, waiting, links);
        asked = waiting.callId;
      }
      const event: CallEvent | undefined | typeof TIMED_OUT = await Promise.race([reader.next(), deadline]);
      if (event === TIMED_OUT || event === undefined) return longCallResult(view.id, deps.seconds, links);
      if (event.type === "step") await deps.progress(event.step, view.maxSteps, `Step ${event.step} done.`);
      else if (event.type === "waiting") waiting = event;
      // The client could not put the question to its person: the call ends with it, at once.
      else if (event.type === "elicitation-failed" && waiting !== undefined && event.callId === waiting.callId) return waitingResult(view.id, waiting, links);
      else if (event.type === "answered" && event.callId === waiting?.callId) waiting = undefined;
      else if (event.type === "loop-guard") loop = { verdict: event.verdict, message: event.message };
      else if (event.type === "end") return endResult(view.id, event, links, loop);
    }
  } finally {
    reader.close();
  }
}
