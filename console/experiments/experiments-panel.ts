// The experiments list (docs/evals.md, "In the console"): the deployment's experiments, newest
// first, each with its name or id, dataset and version, mode, status, progress, spend against its
// budget and when it was made, and an Open button that shows its case table. The list is what the
// API last answered; the experiment open on the page updates its own item as its events come.
import type { ExperimentSummary } from "../../src/api/resources/eval-types";
import { progressText } from "./case-rows";
import { byId, el, money, show } from "../dom";

export function experimentTitle(experiment: Pick<ExperimentSummary, "id" | "name">): string {
  return experiment.name ?? experiment.id;
}

export class ExperimentsPanel {
  private readonly section = byId("experiments", HTMLElement);
  private readonly list = byId("experiment-list", HTMLUListElement);
  private readonly empty = byId("experiments-empty", HTMLParagraphElement);
  private readonly error = byId("experiments-error", HTMLParagraphElement);
  private openOne: (id: string) => void = () => undefined;

  open(experiments: ExperimentSummary[], openOne: (id: string) => void): void {
    this.openOne = openOne;
    this.list.replaceChildren(...experiments.map((experiment) => this.item(experiment)));
    show(this.error, false);
    show(this.empty, experiments.length === 0);
    show(this.section, true);
  }

  /** The experiment as it now stands (the one open on the page), when the list shows it. */
  update(experiment: ExperimentSummary): void {
    this.list.querySelector(`[data-experiment="${CSS.escape(experiment.id)}"]`)?.replaceWith(this.item(experiment));
  }

  showError(message: string): void {
    this.error.textContent = message;
    show(this.error, true);
  }

  private item(experiment: ExperimentSummary): HTMLLIElement {
    const title = experimentTitle(experiment);
    const open = el("button", { text: "Open", attrs: { type: "button", "aria-label": `Open experiment ${title}` } });
    open.addEventListener("click", () => this.openOne(experiment.id));
    const ended = experiment.progress.total - experiment.progress.pending - experiment.progress.running - experiment.progress.scoring;
    return el(
      "li",
      { className: "schedule-item experiment-item", attrs: { "data-experiment": experiment.id } },
      el("div", { className: "run-head" }, el("h3", { text: title }), el("span", { className: "status", text: experiment.status, attrs: { "data-status": experiment.status } })),
      el("p", { className: "hint", text: `${experiment.name === undefined ? "" : `${experiment.id} · `}dataset ${experiment.dataset.name} v${experiment.dataset.version} · ${experiment.mode}` }),
      el("div", { className: "progress-row" }, el("progress", { attrs: { max: String(experiment.progress.total), value: String(ended), "aria-label": `Progress of ${title}` } }), el("span", { className: "hint progress-text", text: progressText(experiment.progress) })),
      el("p", { className: "hint", text: `${money(experiment.spentUsd)} of ${money(experiment.budgetUsd)} · made ${new Date(experiment.createdAt).toLocaleString()}` }),
      open,
    );
  }
}
