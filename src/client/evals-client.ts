// The typed client's evals (docs/evals.md): datasets (create, list, read, add cases from runs, by a
// selection or inline) and experiments (create, list, read, cancel, follow their events, the
// comparison with a baseline and the report as JSON or CSV). Every route takes the deployment token.
import type { Connection } from "./connection/connection.ts";
import { experimentEvents, type ExperimentEventsOptions } from "./events/experiment-events.ts";
import type { ReconnectOptions } from "./reconnect/reconnecting.ts";
import type { AddCasesRequest, Comparison, CreateDatasetRequest, CreateExperimentRequest, DatasetsPage, DatasetView, ExperimentReport, ExperimentsPage, ExperimentView, PageOptions, StoredExperimentEvent } from "./types.ts";

export type { ExperimentEventsOptions };

export interface EvalsClient {
  /** A dataset, version 1: its `cases` and the runs `select` picks. */
  createDataset(body: CreateDatasetRequest): Promise<DatasetView>;
  /** One page of datasets by name, each at its latest version with its number of cases. */
  listDatasets(options?: PageOptions): Promise<DatasetsPage>;
  /** The dataset with its cases, at its latest version or at `version`. */
  getDataset(name: string, options?: { version?: number }): Promise<DatasetView>;
  /** Adds cases (recorded runs, a selection of runs, inline inputs) as the dataset's next version. */
  addCases(name: string, body: AddCasesRequest): Promise<DatasetView>;
  /** Runs every case of a dataset against a variant: the experiment, running. */
  createExperiment(body: CreateExperimentRequest): Promise<ExperimentView>;
  /** One page of experiments, newest first (summaries: progress and spend, no cases). */
  listExperiments(options?: PageOptions): Promise<ExperimentsPage>;
  /** The experiment with its progress and every case. */
  getExperiment(experimentId: string): Promise<ExperimentView>;
  /** Cancels the experiment: pending cases never start, running cases' runs are cancelled. */
  cancelExperiment(experimentId: string): Promise<ExperimentView>;
  /** The experiment's events (over SSE): history after `after`, then live; reconnects by itself; ends after `experiment-ended`. */
  experimentEvents(experimentId: string, options?: ExperimentEventsOptions): AsyncGenerator<StoredExperimentEvent, void, undefined>;
  /** The experiment against `baseline` (an experiment id or "recordings"; default the experiment's own). */
  getComparison(experimentId: string, options?: { baseline?: string }): Promise<Comparison>;
  /** The report as JSON: the experiment and, with a baseline, its comparison. */
  getReport(experimentId: string, options?: { baseline?: string }): Promise<ExperimentReport>;
  /** The report as CSV: one row per case. */
  getReportCsv(experimentId: string, options?: { baseline?: string }): Promise<string>;
}

export type EvalsDeps = {
  request: <T>(method: "GET" | "POST", path: string, body?: unknown) => Promise<T>;
  requestText: (path: string, accept: string) => Promise<string>;
  /** An SSE connection to `path` with `after`. */
  sse: (path: string, after: number) => Connection;
  reconnect: ReconnectOptions;
  query: (values: Record<string, string | number | undefined>) => string;
};

export function evalsClient(deps: EvalsDeps): EvalsClient {
  const { request, query } = deps;
  const dataset = (name: string, rest = "") => `/v1/datasets/${encodeURIComponent(name)}${rest}`;
  const experiment = (id: string, rest = "") => `/v1/experiments/${encodeURIComponent(id)}${rest}`;
  const datasetOf = async (answer: Promise<{ dataset: DatasetView }>) => (await answer).dataset;
  const experimentOf = async (answer: Promise<{ experiment: ExperimentView }>) => (await answer).experiment;
  const client: EvalsClient = {
    createDataset: (body) => datasetOf(request("POST", "/v1/datasets", body)),
    listDatasets: ({ limit, cursor } = {}) => request<DatasetsPage>("GET", `/v1/datasets${query({ limit, cursor })}`),
    getDataset: (name, { version } = {}) => datasetOf(request("GET", dataset(name, query({ version })))),
    addCases: (name, body) => datasetOf(request("POST", dataset(name, "/cases"), body)),
    createExperiment: (body) => experimentOf(request("POST", "/v1/experiments", body)),
    listExperiments: ({ limit, cursor } = {}) => request<ExperimentsPage>("GET", `/v1/experiments${query({ limit, cursor })}`),
    getExperiment: (id) => experimentOf(request("GET", experiment(id))),
    cancelExperiment: (id) => experimentOf(request("POST", experiment(id, "/cancel"))),
    experimentEvents: (id, options) =>
      experimentEvents({ getExperiment: () => client.getExperiment(id), connect: (after) => deps.sse(experiment(id, "/events"), after), reconnect: deps.reconnect }, options),
    getComparison: async (id, { baseline } = {}) => (await request<{ comparison: Comparison }>("GET", experiment(id, `/comparison${query({ baseline })}`))).comparison,
    getReport: (id, { baseline } = {}) => request<ExperimentReport>("GET", experiment(id, `/export${query({ format: "json", baseline })}`)),
    getReportCsv: (id, { baseline } = {}) => deps.requestText(experiment(id, `/export${query({ format: "csv", baseline })}`), "text/csv"),
  };
  return client;
}
