// Which of a run's steps answer in the same turn they start in — no I/O, no timer, nothing awaited
// but themselves — so the slice may write their rows with the next steps' (journal/step-rows.ts):
// the model calls of a scripted run whose turns neither wait (a hold, a delay) nor record a failure
// (`once`, which waits for its write to be on disk), and the tools marked `answersAtOnce` (the
// calculator, the clock). Anything else is taken to wait: the rows before it are written first.
import type { AnyToolSpec } from "../../loop/types";
import type { RunCore } from "../run/store/run-store";
import type { EngineContext } from "./engine-context";
import { scriptOf } from "./provider/run-script";

/** True when every model call of `run` answers in the turn it starts in (the scripted provider, turns that do not wait). */
export function modelAnswersAtOnce(engine: EngineContext, run: RunCore): boolean {
  if (run.provider !== "scripted") return false;
  const turns = scriptOf(engine.ctx, run.id, run.body.script) ?? [];
  return turns.every((turn) => turn.hold === undefined && turn.delayMs === undefined && turn.once === undefined);
}

/** The names of the tools among `tools` that answer in the turn they start in. */
export function atOnceTools(tools: readonly AnyToolSpec[]): ReadonlySet<string> {
  return new Set(tools.filter((tool) => tool.answersAtOnce === true).map((tool) => tool.name));
}
