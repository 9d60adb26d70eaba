// A fork's full body, pure: its source's request with the fork's fields in place (a new provider
// without a model gets that provider's default). A fork's own script plays from its first live
// model call: the scripted provider picks a turn by the model call's number over the whole run, so
// the script is stored after atStep turns that stand for the prefix (the source's own turns where
// it had them; the prefix is replayed from the journal, so they are never played). Every door that
// forks calls it (a fork's request, an experiment's case: src/durable/evals), then admits the body
// as a whole (admit-run.ts).
import type { CreateRunBody } from "../api/types";

/** The fields of its source's request a fork may replace. */
export const FORK_REPLACED = ["system", "provider", "model", "tools", "budget", "maxSteps"] as const;

/** What a fork changes of its source: the replaced fields and its own script. */
export type ForkFields = Partial<Pick<CreateRunBody, (typeof FORK_REPLACED)[number] | "maxTokens">> & { script?: unknown[] };

export function forkBodyOf(source: CreateRunBody, fields: ForkFields, atStep: number): CreateRunBody {
  const merged: CreateRunBody = { ...source };
  if (fields.provider !== undefined && fields.provider !== source.provider && fields.model === undefined) delete merged.model;
  for (const field of [...FORK_REPLACED, "maxTokens"] as const) if (fields[field] !== undefined) Object.assign(merged, { [field]: fields[field] });
  if (fields.script !== undefined) {
    const inherited = Array.isArray(source.script) ? (source.script as unknown[]).slice(0, atStep) : [];
    const standIns = Array.from({ length: atStep - inherited.length }, () => ({ text: "(a step of the source, replayed)" }));
    merged.script = [...inherited, ...standIns, ...fields.script];
  }
  return merged;
}
