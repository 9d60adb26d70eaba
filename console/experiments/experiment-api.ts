// The experiments routes the console reads (docs/evals.md, docs/api.md): the list, the datasets
// and a new experiment of one, one experiment, its comparison with its baseline, its cancel, its
// report, and its progress as Server-Sent Events read from a streamed fetch (the deployment token
// goes in the Authorization header, never in a URL). A refusal becomes a RatchetError in the API's
// error shape, as the typed client's are.
import type { Comparison, DatasetSummary, ExperimentEvent, ExperimentSummary, ExperimentView } from "../../src/api/resources/eval-types";
import { errorFromAnswer, networkError } from "../../src/client/errors";
import { takeSseData } from "../../src/client/sse-connection";

export type StoredExperimentEvent = ExperimentEvent & { seq: number; at: string };

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
  const authorization = { Authorization: `Bearer ${token}` };
  async function answer(path: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, { ...init, headers: { ...authorization, ...init.headers } });
    } catch (error) {
      throw networkError(`${baseUrl}${path}`, error);
    }
    if (!response.ok) throw errorFromAnswer(response.status, await response.text().catch(() => ""));
    return response;
  }
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => (await (await answer(path, init)).json()) as T;
  const one = (id: string) => `/v1/experiments/${encodeURIComponent(id)}`;
  return {
    list: async () => (await json<{ experiments: ExperimentSummary[] }>("/v1/experiments?limit=100")).experiments,
    datasets: async () => (await json<{ datasets: DatasetSummary[] }>("/v1/datasets?limit=100")).datasets,
    create: async (body) => (await json<{ experiment: ExperimentView }>("/v1/experiments", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).experiment,
    get: async (id) => (await json<{ experiment: ExperimentView }>(one(id))).experiment,
    cancel: async (id) => (await json<{ experiment: ExperimentView }>(`${one(id)}/cancel`, { method: "POST" })).experiment,
    comparison: async (id) => (await json<{ comparison: Comparison }>(`${one(id)}/comparison`)).comparison,
    report: async (id, format) => (await answer(reportPath(id, format))).blob(),
    async *events(id, after, signal) {
      const response = await answer(`${one(id)}/events?after=${after}`, { headers: { Accept: "text/event-stream" }, signal });
      if (response.body === null) return;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          const taken = takeSseData(buffer);
          buffer = taken.rest;
          for (const data of taken.data) yield JSON.parse(data) as StoredExperimentEvent;
        }
      } finally {
        reader.cancel().catch(() => undefined);
      }
    },
  };
}
