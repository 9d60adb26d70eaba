// The experiments routes the console reads (docs/evals.md, docs/api.md), through the typed client
// (src/client/evals-client.ts): the list, the datasets and a new experiment of one, one experiment,
// its comparison with its baseline, its cancel, its report, and its progress as Server-Sent Events
// (the deployment token goes in the Authorization header, never in a URL). A refusal is the
// client's RatchetError in the API's error shape.
import { createClient } from "../../src/client";
import type { Comparison, CreateExperimentRequest, DatasetSummary, ExperimentSummary, ExperimentView, StoredExperimentEvent } from "../../src/client/types";

export type { StoredExperimentEvent };

export type ExperimentsApi = {
  list(): Promise<ExperimentSummary[]>;
  /** The datasets an experiment may run (first page, by name). */
  datasets(): Promise<DatasetSummary[]>;
  create(body: Record<string, unknown>): Promise<ExperimentView>;
  get(id: string): Promise<ExperimentView>;
  cancel(id: string): Promise<ExperimentView>;
  comparison(id: string): Promise<Comparison>;
  /** The report as the export route writes it, to save as a file. */
  report(id: string, format: "csv" | "json"): Promise<Blob>;
  /** Stored events after `after`, then live ones, until the stream ends or `signal` aborts. */
  events(id: string, after: number, signal: AbortSignal): AsyncGenerator<StoredExperimentEvent>;
};

/** The path of an experiment's report: where the console's export links point. */
export function reportPath(id: string, format: "csv" | "json"): string {
  return `/v1/experiments/${encodeURIComponent(id)}/export?format=${format}`;
}

export function experimentsApi(baseUrl: string, token: string): ExperimentsApi {
  const client = createClient({ baseUrl, token, transport: "sse" });
  return {
    list: async () => (await client.listExperiments({ limit: 100 })).experiments,
    datasets: async () => (await client.listDatasets({ limit: 100 })).datasets,
    // The form's body goes as it is: the route checks it and answers in the API's error shape.
    create: (body) => client.createExperiment(body as CreateExperimentRequest),
    get: (id) => client.getExperiment(id),
    cancel: (id) => client.cancelExperiment(id),
    comparison: (id) => client.getComparison(id),
    report: async (id, format) =>
      format === "csv" ? new Blob([await client.getReportCsv(id)], { type: "text/csv" }) : new Blob([JSON.stringify(await client.getReport(id))], { type: "application/json" }),
    events: (id, after, signal) => client.experimentEvents(id, { after, signal }),
  };
}
