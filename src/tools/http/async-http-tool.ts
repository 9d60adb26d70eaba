// An async HTTP tool (docs/http-tools.md "Tools that answer later") as start + wait. The start is
// one signed POST that also carries `callback: { url, token }`; the tool server answers 202 to take
// the job and later POSTs the result to the callback, where the run object keeps it. A 2xx with a
// result is a normal result at once, and any failure an error result at once: both travel in the
// handle, so the journaled start holds them and a restart does not send the start again.
// The wait only reads what the run holds: no result yet throws ToolPending, which suspends the run
// without an alarm or a socket held open, until the callback or the deadline wakes it.
import { ASYNC_TIMEOUT_DEFAULT_SECONDS } from "../../api/rules/async-calls";
import type { HttpToolRef } from "./http-tool-ref";
import { ToolPending } from "../../loop/tool-calls/tool-pending";
import type { ToolContext, ToolOutput } from "../../loop/types";
import { answerOf, duration, failure } from "./http-answer";
import { postToTool } from "./http-post";
import type { SigningKeyBytes } from "./signing-keys";
import type { ToolDeps } from "../tool-deps";

/** What the journal stores for an async call's start. */
export type AsyncHandle = { kind: "result"; output: ToolOutput } | { kind: "pending"; key: string };

export type AsyncMethods = {
  start(input: unknown, context: ToolContext): Promise<{ handle: AsyncHandle }>;
  wait(handle: unknown, context: ToolContext): Promise<ToolOutput>;
};

/**
 * start + wait for `ref`. `refuse` is what the sync path checks before sending (the allow list, the
 * signing keys, `once`): a refusal is the call's result, and nothing is sent.
 */
export function asyncHttpTool(
  ref: HttpToolRef,
  deps: ToolDeps,
  refuse: (context: ToolContext) => Promise<{ output: ToolOutput } | { keys: SigningKeyBytes }>,
): AsyncMethods {
  const timeoutSeconds = ref.timeoutSeconds ?? ASYNC_TIMEOUT_DEFAULT_SECONDS;
  const now = (output: ToolOutput): { handle: AsyncHandle } => ({ handle: { kind: "result", output } });
  return {
    async start(input, context) {
      const asyncCalls = deps.asyncCalls;
      if (asyncCalls === undefined) return now(failure(`HTTP tool ${ref.name} was not called: this run cannot take results that come later.`));
      const checked = await refuse(context);
      if ("output" in checked) return now(checked.output);
      const registered = await asyncCalls.register({ key: context.key, callId: context.callId, name: ref.name, timeoutSeconds });
      if (!registered.ok) return now(failure(`HTTP tool ${ref.name} was not called: ${registered.problem}.`));
      const payload = { runId: deps.runId, callId: context.callId, name: ref.name, input, callback: registered.callback };
      const posted = await postToTool(ref, deps, checked.keys, payload, context);
      if (posted.kind === "answered" && posted.response.status === 202) {
        asyncCalls.accepted(context.key);
        return { handle: { kind: "pending", key: context.key } };
      }
      // Answered at once (a result, or a failure): a callback for this call is refused from now on.
      asyncCalls.close(context.key);
      return now(posted.kind === "failed" ? posted.output : answerOf(ref.name, posted.response, posted.text));
    },
    async wait(handle) {
      const started = handle as AsyncHandle;
      if (started.kind === "result") return started.output;
      const settled = deps.asyncCalls?.settle(started.key) ?? { kind: "pending" };
      if (settled.kind === "result") return settled.output;
      if (settled.kind === "expired") return failure(`HTTP tool ${ref.name} did not answer within ${duration(timeoutSeconds * 1000)}.`);
      // The start's key, which names the call in the run's records: the run object wakes for it.
      throw new ToolPending(started.key);
    },
  };
}
