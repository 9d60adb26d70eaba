// A scorer's name as its scores carry it (src/api/schemas/evals/scorer-schemas.ts): its `name`, else
// its type, with the tool for the tool scorers.
type Named = { type: string; name?: string; tool?: string };

export function scorerName(scorer: Named): string {
  if (scorer.name !== undefined) return scorer.name;
  return scorer.type === "tool-called" || scorer.type === "tool-not-called" ? `${scorer.type}:${scorer.tool ?? ""}` : scorer.type;
}
