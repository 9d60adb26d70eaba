// A fork beside its source: which run it was forked from and at which model step (where the two
// diverge), and the cost of each: the source's spend, the fork's inherited prefix (what those
// steps cost the source, not charged to the fork) and the fork's own spend, kept live.
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
    show(this.box, run.forkedFrom !== undefined);
    if (run.forkedFrom === undefined) return;
    const { runId, step } = run.forkedFrom;
    const sourceLink = el("button", { className: "link", text: runId, attrs: { type: "button", "data-source": runId } });
    sourceLink.addEventListener("click", () => links.openSource(runId));
    const sourceCost = el("span", { className: "source-spent", text: "–" });
    this.box.append(
      el("h3", { text: "Fork" }),
      el("p", {}, document.createTextNode("Forked from "), sourceLink, document.createTextNode(` at step ${step}. `), el("span", { className: "diverged", text: `${inherited(step)}, replayed from its journal (no model or tool asked again); the fork diverged after step ${step}.` })),
      el(
        "dl",
        { className: "fork-costs" },
        el("div", {}, el("dt", { text: "Source" }), el("dd", {}, sourceCost)),
        el("div", {}, el("dt", { text: "Inherited (not charged)" }), el("dd", { className: "fork-inherited", text: money(run.inheritedUsd ?? 0) })),
        el("div", {}, el("dt", { text: "This fork spent" }), el("dd", {}, this.ownSpent)),
      ),
    );
    this.setSpent(run.spentUsd);
    void links.source(runId).then((source) => {
      if (this.forkedFrom?.runId !== runId) return;
      sourceCost.textContent = source === undefined ? "not readable with this fork's token" : `${money(source.spentUsd)} over ${source.steps} steps (${source.status})`;
    });
  }

  setSpent(spentUsd: number): void {
    this.ownSpent.textContent = money(spentUsd);
  }
}
