// One experiment's page: its facts (status, dataset, variant, mode, spend against the budget,
// baseline), its progress (live while it runs), Cancel while it runs, its report as CSV and JSON,
// the totals against the baseline, and the case table. It draws what it is given; the experiment's
// events and comparison come from experiment-follow.ts.
import type { Comparison, ExperimentView } from "../../src/api/resources/eval-types";
import { caseRows, deltaText, progressText, scoreText, usdSize, variantText } from "./case-rows";
import { caseTableRow } from "./case-table";
import { describe } from "../describe-error";
import { byId, money, show } from "../dom";
import { reportPath } from "./experiment-api";
import { isRunning } from "./experiment-state";
import { experimentTitle } from "./experiments-panel";

export type ExperimentActions = {
  cancel(): Promise<void>;
  /** Saves the report as a file (the route needs the token, which a plain link cannot send). */
  download(format: "csv" | "json"): Promise<void>;
  openRun(runId: string): void;
};

/** The totals against the baseline: "3 cases · 1 regression · 0 improvements · exact 0.67 (−0.33 vs 1) · cost … · steps …". */
export function totalsText(comparison: Comparison, skipped: number): string {
  const { totals } = comparison;
  const baseline = comparison.baseline === "recordings" ? "the recordings" : comparison.baseline;
  const scores = totals.scores.map((score) => `${score.scorer} ${scoreText(score.score)}${score.delta === null ? "" : ` (${deltaText(score.delta)} vs ${scoreText(score.baseline)})`}`);
  const counts = [`${totals.cases} cases`, `${totals.regressions} ${totals.regressions === 1 ? "regression" : "regressions"}`, `${totals.improvements} ${totals.improvements === 1 ? "improvement" : "improvements"}`];
  if (skipped > 0) counts.push(`${skipped} skipped`);
  const cost = `cost ${money(totals.costUsd.new)} (${deltaText(totals.costUsd.delta, usdSize)})`;
  const steps = `steps ${totals.steps.new} (${deltaText(totals.steps.delta, String)})`;
  return `Against ${baseline}: ${[...counts, ...scores, cost, steps].join(" · ")}`;
}

export class ExperimentPage {
  private readonly section = byId("experiment", HTMLElement);
  private readonly title = byId("experiment-id", HTMLElement);
  private readonly status = byId("experiment-status", HTMLSpanElement);
  private readonly dataset = byId("experiment-dataset", HTMLElement);
  private readonly mode = byId("experiment-mode", HTMLElement);
  private readonly spent = byId("experiment-spent", HTMLElement);
  private readonly variant = byId("experiment-variant", HTMLElement);
  private readonly baseline = byId("experiment-baseline", HTMLElement);
  private readonly progress = byId("experiment-progress", HTMLProgressElement);
  private readonly progressLabel = byId("experiment-progress-text", HTMLSpanElement);
  private readonly totals = byId("experiment-totals", HTMLParagraphElement);
  private readonly error = byId("experiment-error", HTMLParagraphElement);
  private readonly cancelButton = byId("experiment-cancel", HTMLButtonElement);
  private readonly csv = byId("experiment-csv", HTMLAnchorElement);
  private readonly json = byId("experiment-json", HTMLAnchorElement);
  private readonly rows = byId("case-rows", HTMLTableSectionElement);
  private actions: ExperimentActions | undefined;
  private view: ExperimentView | undefined;
  private comparison: Comparison | undefined;

  constructor() {
    this.cancelButton.addEventListener("click", () => {
      this.cancelButton.disabled = true;
      void this.act((actions) => actions.cancel()).finally(() => (this.cancelButton.disabled = false));
    });
    for (const [link, format] of [[this.csv, "csv"], [this.json, "json"]] as const) {
      link.addEventListener("click", (event) => {
        event.preventDefault();
        void this.act((actions) => actions.download(format));
      });
    }
  }

  open(view: ExperimentView, actions: ExperimentActions): void {
    this.actions = actions;
    this.comparison = undefined;
    this.rows.replaceChildren();
    show(this.error, false);
    show(this.section, true);
    this.csv.href = reportPath(view.id, "csv");
    this.json.href = reportPath(view.id, "json");
    this.show(view);
    // Focus (and on a phone, scroll) to it, so its table is what a screen reader reads next.
    this.section.focus();
  }

  /** The experiment as it now stands (after an event, or a cancel). */
  show(view: ExperimentView): void {
    this.view = view;
    this.title.textContent = experimentTitle(view);
    this.status.textContent = view.status;
    this.status.dataset.status = view.status;
    show(this.cancelButton, isRunning(view));
    this.dataset.textContent = `${view.dataset.name} v${view.dataset.version}`;
    this.mode.textContent = view.mode;
    this.spent.textContent = `${money(view.spentUsd)} of ${money(view.budgetUsd)}`;
    this.variant.textContent = variantText(view.variant);
    this.baseline.textContent = view.baseline === undefined ? "the recordings (default)" : view.baseline === "recordings" ? "the recordings" : view.baseline;
    const { progress } = view;
    this.progress.max = Math.max(progress.total, 1);
    this.progress.value = progress.total - progress.pending - progress.running - progress.scoring;
    this.progressLabel.textContent = progressText(progress);
    this.drawTable();
  }

  setComparison(comparison: Comparison): void {
    this.comparison = comparison;
    this.drawTable();
  }

  showError(message: string): void {
    this.error.textContent = message;
    show(this.error, true);
  }

  private drawTable(): void {
    const view = this.view;
    if (view === undefined) return;
    const comparison = this.comparison?.experimentId === view.id ? this.comparison : undefined;
    // A reason or a divergence opened stays open while the table is drawn again (each event redraws it).
    const opened = new Set(Array.from(this.rows.querySelectorAll<HTMLDetailsElement>("details[open]"), (details) => `${details.closest("tr")?.dataset.case}/${details.dataset.detail}`));
    this.rows.replaceChildren(...caseRows(view, comparison).map((row) => caseTableRow(row, (runId) => this.actions?.openRun(runId))));
    for (const details of this.rows.querySelectorAll<HTMLDetailsElement>("details")) details.open = opened.has(`${details.closest("tr")?.dataset.case}/${details.dataset.detail}`);
    this.totals.textContent = comparison === undefined ? "" : totalsText(comparison, view.progress.skipped);
    show(this.totals, comparison !== undefined);
  }

  private async act(work: (actions: ExperimentActions) => Promise<void>): Promise<void> {
    if (this.actions === undefined) return;
    try {
      show(this.error, false);
      await work(this.actions);
    } catch (error) {
      this.showError(describe(error));
    }
  }
}
