// The label of a scorer's scores: its own `name`, else its type (with the tool, for tool scorers).
import type { Scorer } from "../../api/resources/eval-types";

export function scorerName(scorer: Scorer): string {
  if (scorer.name !== undefined) return scorer.name;
  if (scorer.type === "tool-called" || scorer.type === "tool-not-called") return `${scorer.type}:${scorer.tool}`;
  return scorer.type;
}
