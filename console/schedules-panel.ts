// The schedules: a token's schedules (a user token's subject's; the deployment token's for a
// subject, or those without one), each with its clock, its next fire, its newest runs and fires,
// and buttons to pause or resume it, start its run now, and open one of its runs. A schedule has
// no stream: the panel shows each schedule as the API last answered it, and Refresh reads them again.
import type { ScheduleView } from "@ratchet/client";
import { byId, el, show } from "./dom";

export type ScheduleActions = {
  setPaused(scheduleId: string, paused: boolean): Promise<ScheduleView>;
  trigger(scheduleId: string): Promise<ScheduleView>;
  openRun(runId: string): void;
};

function when(iso: string | undefined): string {
  return iso === undefined ? "–" : new Date(iso).toLocaleString();
}

export class SchedulesPanel {
  private readonly section = byId("schedules", HTMLElement);
  private readonly list = byId("schedule-list", HTMLUListElement);
  private readonly empty = byId("schedules-empty", HTMLParagraphElement);
  private readonly error = byId("schedules-error", HTMLParagraphElement);
  private actions: ScheduleActions | undefined;

  open(schedules: ScheduleView[], actions: ScheduleActions): void {
    this.actions = actions;
    this.list.replaceChildren(...schedules.map((schedule) => this.item(schedule)));
    show(this.error, false);
    show(this.empty, schedules.length === 0);
    show(this.section, true);
  }

  showError(message: string): void {
    this.error.textContent = message;
    show(this.error, true);
  }

  private update(schedule: ScheduleView): void {
    this.list.querySelector(`[data-schedule="${schedule.id}"]`)?.replaceWith(this.item(schedule));
  }

  /** Runs an action of one schedule's buttons, showing what it answers (or why it failed). */
  private act(work: () => Promise<ScheduleView>, button: HTMLButtonElement): void {
    button.disabled = true;
    show(this.error, false);
    work()
      .then((schedule) => this.update(schedule))
      .catch((error: unknown) => {
        button.disabled = false;
        this.showError(error instanceof Error ? error.message : String(error));
      });
  }

  private item(schedule: ScheduleView): HTMLLIElement {
    const pause = el("button", { text: schedule.paused ? "Resume" : "Pause", attrs: { type: "button" } });
    pause.addEventListener("click", () => this.act(() => this.actions!.setPaused(schedule.id, !schedule.paused), pause));
    const now = el("button", { text: "Run now", attrs: { type: "button" } });
    now.addEventListener("click", () => this.act(() => this.actions!.trigger(schedule.id), now));
    const runs = el(
      "ul",
      { className: "schedule-runs", attrs: { "aria-label": "Last runs" } },
      ...schedule.lastRuns.map((run) => {
        const open = el("button", { text: "Open", attrs: { type: "button" } });
        open.addEventListener("click", () => this.actions?.openRun(run.id));
        return el("li", { attrs: { "data-run": run.id } }, el("span", { className: "status", text: run.status, attrs: { "data-status": run.status } }), el("span", { className: "hint", text: ` fired ${when(run.firedAt)} · ${run.id} ` }), open);
      }),
    );
    const fire = schedule.fires[0];
    return el(
      "li",
      { className: "schedule-item", attrs: { "data-schedule": schedule.id, "data-paused": String(schedule.paused) } },
      el("div", { className: "run-head" }, el("h3", { text: `${schedule.cron} (${schedule.timezone})` }), el("div", { className: "buttons" }, pause, now)),
      el("p", { className: "hint", text: schedule.id + (schedule.subject === undefined ? "" : ` · ${schedule.subject}`) }),
      el("p", { className: "next-fire", text: schedule.paused ? "Paused: no next fire." : `Next fire: ${when(schedule.nextAt)}` }),
      el("p", { className: "hint last-fire", text: fire === undefined ? "No fire yet." : `Last fire: ${when(fire.at)}, ${fire.outcome}${fire.reason === undefined ? "" : ` (${fire.reason})`}` }),
      schedule.lastRuns.length === 0 ? el("p", { className: "hint", text: "No run yet." }) : runs,
    );
  }
}
