// The fields that answer a client toolset's batch: one per action, in order, each with its input,
// a result and a "failed" box. The first failed action ends the batch: the ones after it are not
// run, so their fields are put aside and left out of the answer. Built with text only.
import type { BatchAction, BatchResultInput } from "@ratchet/client";
import { el, json } from "./dom";

export type BatchFields = {
  element: HTMLElement;
  /** The results to send, in batch order up to the first failed action; or what to fix first. */
  collect(): { ok: true; results: BatchResultInput[] } | { ok: false; message: string; focus: HTMLElement };
};

const NOT_RUN = "Not run: an earlier action failed.";

export function batchFields(batch: readonly BatchAction[], toolset: string): BatchFields {
  const rows = batch.map((action, index) => {
    const result = el("textarea", { attrs: { rows: "2", "aria-label": `Result of ${toolset} ${action.action} (${index + 1} of ${batch.length})` } });
    const failed = el("input", { attrs: { type: "checkbox", "aria-label": `${action.action} failed` } });
    const note = el("p", { className: "hint", text: NOT_RUN });
    note.hidden = true;
    const element = el(
      "li",
      { className: "batch-action", attrs: { "data-call": action.callId, "data-action": action.action } },
      el("span", { className: "name", text: `${index + 1}. ${action.action}` }),
      el("span", { className: "input", text: ` ${json(action.input)}` }),
      result,
      el("label", { className: "failed" }, failed, document.createTextNode(" failed")),
      note,
    );
    return { action, result, failed, note, element };
  });
  // Once an action is marked failed, the later ones are not run: their fields are put aside.
  const update = () => {
    const at = rows.findIndex((row) => row.failed.checked);
    rows.forEach((row, index) => {
      const skipped = at >= 0 && index > at;
      row.result.disabled = skipped;
      row.failed.disabled = skipped;
      row.note.hidden = !skipped;
      row.element.dataset.state = skipped ? "not-run" : "";
    });
  };
  for (const row of rows) row.failed.addEventListener("change", update);
  const element = el("ol", { className: "batch", attrs: { "aria-label": `Actions of ${toolset}` } }, ...rows.map((row) => row.element));
  return {
    element,
    collect() {
      const results: BatchResultInput[] = [];
      for (const row of rows) {
        const content = row.result.value.trim();
        if (content === "") return { ok: false, message: `Write the result of ${row.action.action} first.`, focus: row.result };
        results.push(row.failed.checked ? { callId: row.action.callId, content, isError: true } : { callId: row.action.callId, content });
        if (row.failed.checked) break;
      }
      return { ok: true, results };
    },
  };
}

/** How the run panel and the inbox word a batch. */
export function batchQuestion(toolset: string, count: number): string {
  return `The run asks your client to run ${count} action${count === 1 ? "" : "s"} of ${toolset}, in order. Give each result; mark the first that failed (the later ones are then not run).`;
}
