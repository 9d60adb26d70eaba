// The inbox: the runs waiting for one person (a user token's subject), kept up to date from its
// inbox stream and answered in place. It lists the waiting runs first, then applies each inbox
// event whose version is newer than what the page shows, so the list and the stream agree.
import type { AnswerRequest, InboxEvent, RunSummary } from "@ratchet/client";
import { byId, el, show } from "./dom";
import { answerForm } from "./inbox-answer";
import { agentLabel } from "./agents-panel";

export type InboxActions = { answer(runId: string, body: AnswerRequest): Promise<void>; open(runId: string): void };

export class InboxPanel {
  private readonly section = byId("inbox", HTMLElement);
  private readonly list = byId("inbox-list", HTMLUListElement);
  private readonly empty = byId("inbox-empty", HTMLParagraphElement);
  private readonly error = byId("inbox-error", HTMLParagraphElement);
  private actions: InboxActions | undefined;
  /** The newest version seen of every run, waiting or not: an older event changes nothing. */
  private versions = new Map<string, number>();
  private items = new Map<string, HTMLLIElement>();

  open(waiting: RunSummary[], actions: InboxActions): void {
    this.actions = actions;
    this.versions = new Map();
    this.items = new Map();
    this.list.replaceChildren();
    show(this.error, false);
    show(this.section, true);
    for (const run of [...waiting].reverse()) this.show(run);
    this.sync();
  }

  showError(message: string): void {
    this.error.textContent = message;
    show(this.error, true);
  }

  apply(event: InboxEvent): void {
    const { run } = event;
    if ((this.versions.get(run.id) ?? 0) >= run.version) return;
    if (event.type === "run-waiting" && run.waiting !== undefined) this.show(run);
    else this.remove(run.id, run.version);
    this.sync();
  }

  private show(run: RunSummary): void {
    this.versions.set(run.id, run.version);
    this.items.get(run.id)?.remove();
    const label = typeof run.metadata?.title === "string" ? run.metadata.title : run.id;
    const open = el("button", { text: "Open run", attrs: { type: "button" } });
    open.addEventListener("click", () => this.actions?.open(run.id));
    const item = el(
      "li",
      { className: "inbox-item", attrs: { "data-run": run.id } },
      el("div", { className: "run-head" }, el("h3", { text: label }), open),
      el("p", { className: "hint", text: [run.id, ...(run.agent === undefined ? [] : [agentLabel(run.agent)]), `waiting since ${new Date(run.updatedAt).toLocaleTimeString()}`].join(" · ") }),
      answerForm(run.waiting!, label, async (body) => {
        await this.actions?.answer(run.id, body);
        // Answered: gone from the list now (its run-answered event will agree).
        this.remove(run.id, run.version);
        this.sync();
      }),
    );
    this.items.set(run.id, item);
    // Newest first: the run that asked last is on top.
    this.list.prepend(item);
  }

  private remove(runId: string, version: number): void {
    this.versions.set(runId, Math.max(version, this.versions.get(runId) ?? 0));
    this.items.get(runId)?.remove();
    this.items.delete(runId);
  }

  private sync(): void {
    show(this.empty, this.items.size === 0);
  }
}
