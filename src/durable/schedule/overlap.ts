// What a fire does while the schedule's previous run is still running or waiting (pure):
//
//   skip   (default) the fire is recorded as skipped;
//   queue  the fire waits, and starts when the previous run ends; at most one fire waits (a
//          further fire meanwhile is skipped: the queued one will start a run anyway);
//   allow  the fire starts its run at once.
import type { Overlap } from "../../api/resources/schedule-types";

export type OverlapDecision = { action: "start" } | { action: "queue" } | { action: "skip"; reason: string };

export const PREVIOUS_ACTIVE = "The previous run was still running or waiting.";
export const ALREADY_QUEUED = "The previous run was still running or waiting, and a fire was already queued.";

export function overlapDecision(overlap: Overlap, previousActive: boolean, queued: boolean): OverlapDecision {
  if (overlap === "allow") return { action: "start" };
  if (overlap === "skip") return previousActive ? { action: "skip", reason: PREVIOUS_ACTIVE } : { action: "start" };
  if (queued) return { action: "skip", reason: ALREADY_QUEUED };
  return previousActive ? { action: "queue" } : { action: "start" };
}
