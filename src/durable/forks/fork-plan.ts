// A fork's segments and where it starts, from its source's prefix and the edge's decisions.
// Changed (messages or a field), the segment holding the step ends at the step with the prefix's
// history, and the fork goes on in a segment of its own. Unchanged, it goes on exactly as the
// source would have (its first model request is the source's for step atStep + 1): from the
// source's snapshot at the step when the prefix is resumable (fork-snapshot.ts) — a segment of its
// own, as a changed fork's, with the holder's limits and nothing added, so nothing is replayed —
// else in the source's segment, replayed from the copied entries up to the step. Either way the
// prefix's cost is not the fork's: a replayed segment's spend starts below the fork's own by what
// its copied entries cost, so the loop, which adds them up again, counts from the fork's own.
import type { ForkCopy, ForkSegment, ForkSpec } from "../../api/rpc/fork-rpc";
import type { ChatMessage } from "../../loop/types";
import type { RunStart } from "../run/store/run-store";
import { usd } from "../../lib/money";

export type ForkPlan = { segments: ForkSegment[]; start: RunStart };

export function forkPlan(prefix: ForkCopy, spec: ForkSpec, spentUsd: number): ForkPlan {
  const earlier = prefix.segments.slice(0, -1);
  const holder = prefix.segments[prefix.segments.length - 1]!;
  const { atStep } = prefix;
  if (!spec.cut && prefix.resumable !== true) {
    return {
      segments: [...earlier, { ...holder, spentBefore: usd(spentUsd - prefix.holderUsd) }],
      start: { segment: holder.n, steps: atStep, stepLimit: holder.stepLimit },
    };
  }
  const history = JSON.parse(prefix.history) as ChatMessage[];
  const stepLimit = spec.cut ? atStep + (spec.maxSteps ?? Math.max(1, holder.stepLimit - atStep)) : holder.stepLimit;
  const own: ForkSegment = {
    n: holder.n + 1,
    messages: [...history, ...(spec.added ?? [])],
    approvals: holder.approvals,
    stepsBefore: atStep,
    spentBefore: spentUsd,
    stepLimit,
    // Unchanged, the question goes on as the source's did (its guards count as they counted).
    perQuestion: spec.cut ? true : holder.perQuestion,
  };
  return { segments: [...earlier, { ...holder, result: history }, own], start: { segment: own.n, steps: atStep, stepLimit } };
}
