// A fork beside its source: which run it was forked from and at which model step (where the two
// diverge), and the cost of each: the source's spend, the fork's inherited prefix (what those
// steps cost the source, not charged to the fork) and the fork's own spend, kept live. An
// experiment's case run is a fork at step 0 of its recording (docs/evals.md): it shows beside its
// recording, with the recording's spend, steps and status.
import type { RunView } from "../src/client";
import { byId, el, money, show } from "./dom";

export type ForkLinks = {
  /** The source's view, when this page holds a token that may read it. */
  source(runId: string): Promise<RunView | undefined>;
  /** Opens the source in the panel. */
  openSource(runId: string): void;
};

/** The steps a fork took from its source, as a sentence's subject: "Step 1 is the source's", "Steps 1–3 are the source's". */
function inherited(step: number): string {
  return step === 1 ? "Step 1 is the source's" : `Steps 1–${step} are the source's`;
}

export class ForkView {
  private readonly box = byId("fork-of", HTMLDivElement);
  private readonly ownSpent = el("span", { className: "fork-spent" });
  private forkedFrom: RunView["forkedFrom"];

  /** Shows the run's source when it is a fork, and hides the box otherwise. */
  open(run: RunView, links: ForkLinks): void {
    this.forkedFrom = run.forkedFrom;
    this.box.replaceChildren();
    this.box.classList.remove("experiment-case");
    show(this.box, run.forkedFrom !== undefined);
    if (run.forkedFrom === undefined) return;
    const { runId, step } = run.forkedFrom;
    const sourceLink = el("button", { className: "link", text: runId, attrs: { type: "button", "data-source": runId } });
    sourceLink.addEventListener("click", () => links.openSource(runId));
    const sourceCost = el("span", { className: "source-spent", text: "–" });
    if (run.experiment !== undefined) this.caseOf(run.experiment, sourceLink, sourceCost);
    else this.forkOf(run, step, sourceLink, sourceCost);
    this.setSpent(run.spentUsd);
    void links.source(runId).then((source) => {
      if (this.forkedFrom?.runId !== runId) return;
      sourceCost.textContent = source === undefined ? "not readable with this fork's token" : `${money(source.spentUsd)} over ${source.steps} steps (${source.status})`;
    });
  }

  /** A fork made by hand: its source, the step where they diverge, and the three costs. */
  private forkOf(run: RunView, step: number, sourceLink: HTMLButtonElement, sourceCost: HTMLSpanElement): void {
    this.box.append(
      el("h3", { text: "Fork" }),
      el("p", {}, document.createTextNode("Forked from "), sourceLink, document.createTextNode(` at step ${step}. `), el("span", { className: "diverged", text: step === 0 ? "It keeps the source's first messages and none of its steps: it ran from the start." : `${inherited(step)}, replayed from its journal (no model or tool asked again); the fork diverged after step ${step}.` })),
      el(
        "dl",
        { className: "fork-costs" },
        el("div", {}, el("dt", { text: "Source" }), el("dd", {}, sourceCost)),
        el("div", {}, el("dt", { text: "Inherited (not charged)" }), el("dd", { className: "fork-inherited", text: money(run.inheritedUsd ?? 0) })),
        el("div", {}, el("dt", { text: "This fork spent" }), el("dd", {}, this.ownSpent)),
      ),
    );
  }

  /** A case run: its experiment and case, and its recording beside it. */
  private caseOf(experiment: NonNullable<RunView["experiment"]>, recordingLink: HTMLButtonElement, recordingCost: HTMLSpanElement): void {
    const answered = experiment.mode === "replay" ? "from the recording (a call it lacks is refused)" : experiment.mode === "live" ? "by the tools themselves" : "from the recording where it has the call, else by the tool";
    this.box.classList.add("experiment-case");
    this.box.append(
      el("h3", { text: `Case ${experiment.case} of experiment ${experiment.id}` }),
      el("p", {}, document.createTextNode("Its recording: "), recordingLink, document.createTextNode(". "), el("span", { className: "diverged", text: `Run again from the recording's first message with the experiment's variant; its tool calls answered ${answered}.` })),
      el(
        "dl",
        { className: "fork-costs" },
        el("div", {}, el("dt", { text: "Recording" }), el("dd", {}, recordingCost)),
        el("div", {}, el("dt", { text: "This case spent" }), el("dd", {}, this.ownSpent)),
      ),
    );
  }

  setSpent(spentUsd: number): void {
    this.ownSpent.textContent = money(spentUsd);
  }
}
