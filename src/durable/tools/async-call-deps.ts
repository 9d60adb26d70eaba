// What async HTTP tools get from the run object (ToolDeps.asyncCalls): their records in the run's
// storage (async-call-store.ts), callbacks on this deployment, and the tool-started event.
import { callKeyOf } from "../../lib/ids/call-key";
import { callbackToken } from "../../lib/ids/callback-token";
import { callbackBase } from "../../config/public-url";
import { currentRunIdKey } from "../../config/settings";
import type { AsyncCalls } from "../../tools/tool-deps";
import { acceptCall, closeCall, registerCall, settleCall } from "./async-call-store";
import type { EngineContext } from "../engine/engine-context";
import { emitEvent } from "../events/log/emit-event";
import type { RunCore } from "../run/store/run-store";
import type { Segment } from "../run/store/segment-store";

/** The model call of a start key (`start/<n>/<callId>`, see src/loop/step-keys.ts) within its segment. */
function stepOf(startKey: string): number {
  return Number(/^start\/(\d+)\//.exec(startKey)?.[1] ?? 0);
}

/** The run's async calls of `segment`; keys from the loop are the segment's own, stored with its prefix. */
export function asyncCallDeps(engine: EngineContext, run: RunCore, segment: Segment): AsyncCalls {
  const { sql } = engine.ctx.storage;
  const prefix = `s${segment.n}/`;
  return {
    async register({ key, callId, name, timeoutSeconds }) {
      const base = callbackBase(engine.env, run.origin);
      if (base === undefined) return { ok: false, problem: "this deployment does not know the URL tool servers reach it at (set PUBLIC_URL)" };
      const now = engine.now();
      const row = registerCall(sql, { key: prefix + key, callId, name, step: segment.stepsBefore + stepOf(key), startedAt: now, deadline: now + timeoutSeconds * 1000 });
      const callKey = callKeyOf(row.key);
      const token = await callbackToken(currentRunIdKey(engine.env), run.id, callKey);
      return { ok: true, callback: { url: `${base}/v1/runs/${run.id}/calls/${callKey}/result`, token } };
    },
    accepted(key) {
      const row = acceptCall(sql, prefix + key, engine.now());
      if (row === undefined) return;
      const event = { type: "tool-started" as const, step: row.step, callId: row.callId, name: row.name, deadline: new Date(row.deadline).toISOString() };
      emitEvent(engine, event, `${prefix}tool-started/${key}`);
    },
    close: (key) => closeCall(sql, prefix + key, "immediate", engine.now()),
    settle: (key) => settleCall(sql, prefix + key, engine.now()),
  };
}
