// The scripted provider's turns for a run. The edge validated the script when the run was created
// (the create body's schema, src/api/schemas/runs/create-run-schemas.ts), and a run's body never changes, so the object
// parses it once per instance rather than on every slice (a script of a thousand turns costs about
// 2 ms to parse). A new instance (after eviction) parses it again; a stored script that fails the
// schema after all is a clear error, never a turn played from unchecked data.
import { scriptSchema, type ScriptedTurn } from "../../../providers";

/** Each object instance's parsed script, by its run (an object holds one run, and its id is never used again). */
const parsed = new WeakMap<DurableObjectState, { runId: string; turns: ScriptedTurn[] }>();

/** The run's script as turns (undefined when the run has none), parsed on the first call in this object instance. */
export function scriptOf(ctx: DurableObjectState, runId: string, script: unknown): ScriptedTurn[] | undefined {
  if (script === undefined) return undefined;
  const held = parsed.get(ctx);
  if (held?.runId === runId) return held.turns;
  const result = scriptSchema.safeParse(script);
  if (!result.success) {
    const [issue] = result.error.issues;
    const where = issue === undefined || issue.path.length === 0 ? "" : ` at script.${issue.path.join(".")}`;
    throw new Error(`The run's stored script is not valid${where}: ${issue?.message ?? "it does not match the schema"}.`);
  }
  parsed.set(ctx, { runId, turns: result.data });
  return result.data;
}
