// The tree of a run (docs/children.md): its parent (for a child run) and its child runs — each
// child's status and cost, kept up to date from the run's child-started and child-ended events.
// A child opens in place, in the same panel, with the token the page holds (a parent's run token
// reads its children).
import type { RunView, StreamEvent } from "../src/client";
import { byId, el, money, show } from "./dom";

type Child = NonNullable<RunView["children"]>[number];

export class RunTree {
  private readonly box = byId("run-tree", HTMLDivElement);
  private readonly parent = byId("run-parent", HTMLButtonElement);
  private readonly list = byId("run-children", HTMLUListElement);
  private readonly heading = byId("run-children-title", HTMLHeadingElement);
  private rows = new Map<string, HTMLLIElement>();
  private openRun: (id: string) => void = () => undefined;
  private parentId: string | undefined;

  constructor() {
    this.parent.addEventListener("click", () => this.parentId !== undefined && this.openRun(this.parentId));
  }

  open(run: RunView, openRun: (id: string) => void): void {
    this.openRun = openRun;
    this.parentId = run.parentId;
    this.rows = new Map();
    this.list.replaceChildren();
    this.parent.textContent = run.parentId === undefined ? "" : `Parent run ${run.parentId}`;
    show(this.parent, run.parentId !== undefined);
    for (const child of run.children ?? []) this.set(child);
    this.refresh();
  }

  apply(event: StreamEvent): void {
    if (event.type === "child-started") this.set({ id: event.childId, callId: event.callId, status: "running", spentUsd: this.rows.has(event.childId) ? Number(this.rows.get(event.childId)!.dataset.spent) : 0 }, true);
    else if (event.type === "child-ended") this.set({ id: event.childId, callId: event.callId, status: event.status, spentUsd: event.spentUsd });
    else return;
    this.refresh();
  }

  /** One row per child: a button that opens it, its call, status and cost. A started event never moves an ended child back. */
  private set(child: Child, started = false): void {
    const known = this.rows.get(child.id);
    if (known !== undefined && started) return;
    const open = el("button", { className: "child-open", text: child.id, attrs: { type: "button" } });
    open.addEventListener("click", () => this.openRun(child.id));
    const row = el("li", { className: "child", attrs: { "data-child": child.id, "data-status": child.status, "data-spent": String(child.spentUsd) } }, open, el("span", { className: "child-call", text: ` call ${child.callId} · ` }), el("span", { className: "child-status", text: child.status }), el("span", { className: "child-cost", text: ` · ${money(child.spentUsd)}` }));
    if (known !== undefined) known.replaceWith(row);
    else this.list.append(row);
    this.rows.set(child.id, row);
  }

  private refresh(): void {
    show(this.box, this.rows.size > 0 || this.parentId !== undefined);
    // A child with no children of its own shows its parent only, under no empty "Child runs".
    show(this.list, this.rows.size > 0);
    show(this.heading, this.rows.size > 0);
  }
}
