// An experiment opened on the page and kept live: read once, then followed over its event stream
// (from the seq the view holds, so nothing between the two is missed) until it ends or another
// experiment is opened; its comparison with its baseline read again after each case ends (one
// request at a time: a case that ends while one is out asks for one more when it answers).
import { RatchetError } from "@ratchet/client";
import type { ExperimentView } from "../../src/api/resources/eval-types";
import { describe } from "../describe-error";
import type { ExperimentsApi } from "./experiment-api";
import { applyExperimentEvent, isRunning } from "./experiment-state";
import type { ExperimentPage } from "./experiment-page";

export type FollowOptions = {
  api: ExperimentsApi;
  id: string;
  page: ExperimentPage;
  /** Opens a case's run, or its recording, in the run panel. */
  openRun(runId: string): void;
  /** The experiment as it now stands, after each change (the list shows it too). */
  onChange(view: ExperimentView): void;
  /** Aborted when the page opens another experiment. */
  signal: AbortSignal;
};

/** Stream failures in a row the page rides out (a dropped connection, a restart) before it says so and stops. */
const RETRIES = 5;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** Saves `blob` as a file named `name`, as a download link would. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** One comparison request at a time; a refresh asked for while one is out runs once it answers. */
function comparisons({ api, id, page, signal }: FollowOptions): () => void {
  let out = false;
  let again = false;
  const read = async (): Promise<void> => {
    out = true;
    try {
      do {
        again = false;
        const comparison = await api.comparison(id);
        if (!signal.aborted) page.setComparison(comparison);
      } while (again && !signal.aborted);
    } catch (error) {
      if (!signal.aborted) page.showError(describe(error));
    } finally {
      out = false;
    }
  };
  return () => {
    if (out) again = true;
    else void read();
  };
}

/** Shows experiment `id` and keeps it live. Rejects when it cannot be read. */
export async function followExperiment(options: FollowOptions): Promise<void> {
  const { api, id, page, signal } = options;
  let view = await api.get(id);
  if (signal.aborted) return;
  const refresh = comparisons(options);
  const update = (next: ExperimentView) => {
    if (signal.aborted || next === view) return;
    view = next;
    page.show(next);
    options.onChange(next);
  };
  page.open(view, {
    cancel: async () => {
      update(await api.cancel(id));
      refresh();
    },
    download: async (format) => save(await api.report(id, format), `${id}.${format}`),
    openRun: options.openRun,
  });
  options.onChange(view);
  refresh();
  let failures = 0;
  while (isRunning(view) && !signal.aborted) {
    try {
      for await (const event of api.events(id, view.lastSeq, signal)) {
        failures = 0;
        update(applyExperimentEvent(view, event));
        if (event.type === "case-ended" || event.type === "experiment-ended") refresh();
        if (!isRunning(view)) break;
      }
      // The stream closed while the experiment runs: open it again after a moment.
      if (isRunning(view)) await pause(1_000, signal);
    } catch (error) {
      if (signal.aborted) return;
      failures += 1;
      if (!(error instanceof RatchetError && error.retryable) || failures > RETRIES) return page.showError(describe(error));
      await pause(1_000 * failures, signal);
    }
  }
}
