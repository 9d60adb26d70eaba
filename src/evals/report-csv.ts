// An experiment's report as CSV (GET /v1/experiments/{id}/export?format=csv), pure: one row per
// case with its scores, spend, steps and divergence, and, when the report has a comparison, each
// score's baseline and delta and whether the case regressed. Cells are quoted as RFC 4180 asks,
// and a cell that a spreadsheet would read as a formula (=, +, -, @ first) starts with a quote mark.
import type { Comparison, ExperimentCase } from "../api/resources/eval-types";

const FORMULA = /^[=+\-@\t\r]/;

function cell(value: unknown): string {
  if (value === undefined || value === null) return "";
  let text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
  if (typeof value === "string" && FORMULA.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function reportCsv(scorers: readonly string[], cases: readonly ExperimentCase[], comparison?: Comparison): string {
  const compared = new Map((comparison?.cases ?? []).map((one) => [one.n, one]));
  const header = ["case", "state", "sourceRunId", "runId", "status", "steps", "costUsd", "judgeUsd"];
  for (const scorer of scorers) header.push(scorer, ...(comparison === undefined ? [] : [`${scorer}.baseline`, `${scorer}.delta`]));
  header.push("fromRecording", "unrecorded", "neverMade", "argumentMismatches", "firstRequestDifference", ...(comparison === undefined ? [] : ["regression"]), "reason");
  const rows = cases.map((one) => {
    const against = compared.get(one.n);
    const row: unknown[] = [one.n, one.state, one.sourceRunId, one.runId, one.facts?.status, one.facts?.steps, one.facts?.spentUsd, one.judgeUsd];
    for (const scorer of scorers) {
      row.push(one.scores.find((score) => score.scorer === scorer)?.score);
      if (comparison !== undefined) {
        const delta = against?.scores.find((score) => score.scorer === scorer);
        row.push(delta?.baseline, delta?.delta);
      }
    }
    const divergence = one.divergence;
    const first = divergence?.firstRequestDifference;
    row.push(divergence?.fromRecording, divergence?.unrecorded.length, divergence?.neverMade.length, divergence?.argumentMismatches.length, first === undefined ? undefined : `step ${first.step}: ${first.path}`);
    if (comparison !== undefined) row.push(against?.regression);
    row.push(one.reason);
    return row.map(cell).join(",");
  });
  return [header.map(cell).join(","), ...rows].join("\r\n") + "\r\n";
}
