// The case table of an experiment: one row per case (case-rows.ts decides what each says and in
// which order), with each score and its reason a click away (and on hover), the delta against the
// baseline, cost and steps, the divergence from the recording, and two links: the case's run and
// the recording it replayed, each opened in the run panel.
import { deltaText, scoreText, usdSize, type CaseRow, type ScoreCell } from "./case-rows";
import { el, money } from "../dom";

const ENDED_BADLY = new Set(["failed", "skipped", "cancelled"]);

function scoreItem(score: ScoreCell): HTMLLIElement {
  const delta = score.delta === undefined || score.delta === null ? "" : ` ${deltaText(score.delta)} vs ${scoreText(score.baseline)}`;
  const direction = score.delta === undefined || score.delta === null || Math.abs(score.delta) < 1e-9 ? "same" : score.delta < 0 ? "down" : "up";
  const summary = el(
    "summary",
    { attrs: { title: score.reason } },
    el("span", { className: "scorer", text: score.scorer }),
    document.createTextNode(" "),
    el("strong", { className: "score-value", text: scoreText(score.score) }),
    ...(delta === "" ? [] : [el("span", { className: "delta", text: delta, attrs: { "data-direction": direction } })]),
  );
  return el("li", { attrs: { "data-scorer": score.scorer } }, el("details", { className: "score", attrs: { "data-detail": `score:${score.scorer}` } }, summary, el("p", { className: "reason", text: score.reason })));
}

function withDelta(text: string, delta: number | null | undefined, format?: (size: number) => string): Node[] {
  const parts: Node[] = [document.createTextNode(text)];
  if (delta !== undefined && delta !== null) parts.push(el("span", { className: "delta hint", text: ` (${deltaText(delta, format)})` }));
  return parts;
}

function runLink(label: string, runId: string, ariaLabel: string, open: (runId: string) => void): HTMLButtonElement {
  const button = el("button", { className: "link", text: label, attrs: { type: "button", "aria-label": ariaLabel, title: runId, "data-run": runId } });
  button.addEventListener("click", () => open(runId));
  return button;
}

export function caseTableRow(row: CaseRow, openRun: (runId: string) => void): HTMLTableRowElement {
  const status = el("td", { className: "case-state" }, el("span", { className: "status", text: row.state, attrs: { "data-status": row.state } }));
  if (row.regression) status.append(el("span", { className: "badge regression", text: "regression" }));
  if (row.reason !== undefined && ENDED_BADLY.has(row.state)) status.append(el("p", { className: "hint reason", text: row.reason }));
  const scores = el("td", { className: "case-scores" }, row.scores.length === 0 ? el("span", { className: "hint", text: "–" }) : el("ul", { className: "scores" }, ...row.scores.map(scoreItem)));
  const divergence =
    row.divergence.length === 0
      ? el("td", { className: "case-divergence hint", text: row.recordingId === undefined ? "no recording (inline input)" : "–" })
      : el(
          "td",
          { className: "case-divergence" },
          row.divergenceDetails.length === 0
            ? el("span", { text: row.divergence.join(" · ") })
            : el("details", { attrs: { "data-detail": "divergence" } }, el("summary", { text: row.divergence.join(" · ") }), el("ul", { className: "divergence-details" }, ...row.divergenceDetails.map((text) => el("li", { text })))),
        );
  const links: Node[] = [];
  if (row.runId !== undefined) links.push(runLink("Run", row.runId, `Case ${row.n}'s run`, openRun));
  if (row.recordingId !== undefined) links.push(runLink("Recording", row.recordingId, `Case ${row.n}'s recording`, openRun));
  return el(
    "tr",
    { attrs: { "data-case": String(row.n), "data-regression": String(row.regression) } },
    el("th", { text: String(row.n), attrs: { scope: "row" } }),
    status,
    scores,
    el("td", { className: "num" }, ...(row.costUsd === undefined ? [document.createTextNode("–")] : withDelta(money(row.costUsd), row.costDelta, usdSize))),
    el("td", { className: "num" }, ...(row.steps === undefined ? [document.createTextNode("–")] : withDelta(String(row.steps), row.stepsDelta, String))),
    divergence,
    el("td", { className: "case-runs" }, ...(links.length === 0 ? [document.createTextNode("–")] : links)),
  );
}
