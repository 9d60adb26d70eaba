// A run's loop guards (docs/api.md) and guardrails (docs/guardrails.md) as the public API
// gives them, and what a trip of either reports. Re-exported by ./types.ts.
import type { ProviderName } from "./provider-name.ts";

export type LoopDetector = "sameCall" | "sameText" | "alternation" | "noProgress";
export type LoopPolicy = "warn" | "ask" | "stop";
export type LoopGuards = { [D in LoopDetector]?: { warn?: number; ask?: number; stop?: number } };
/** A loop detector that reached a level on a turn. */
export type LoopTrip = { detector: LoopDetector; count: number; threshold: number; policy: LoopPolicy };
/** What every guardrail has (docs/guardrails.md). */
type GuardrailBase = { name: string; onFail?: "stop" | "reject" | "ask" | "retry"; retries?: number; tools?: string[] };

/** One check of a run's guardrails: a data kind (regex, deny, json-schema, size), an HTTP check or a model-graded check. */
export type GuardrailRef =
  | (GuardrailBase & { type: "regex"; pattern: string; ignoreCase?: boolean; mode?: "deny" | "require" })
  | (GuardrailBase & { type: "deny"; words: string[]; ignoreCase?: boolean })
  | (GuardrailBase & { type: "json-schema"; schema: Record<string, unknown> })
  | (GuardrailBase & { type: "size"; maxChars: number })
  | (GuardrailBase & { type: "http"; url: string; timeoutSeconds?: number })
  | (GuardrailBase & { type: "model"; prompt: string; provider?: ProviderName; model?: string; maxUsd?: number; script?: unknown });

export type GuardrailStage = "input" | "tool" | "output";

/** A run's checks by stage: the question, each tool call, the final answer. */
export type Guardrails = { input?: GuardrailRef[]; tool?: GuardrailRef[]; output?: GuardrailRef[] };

/** The check that ended a run (stoppedBy "guardrail"). */
export type GuardrailTrip = { name: string; stage: GuardrailStage; reason: string };
