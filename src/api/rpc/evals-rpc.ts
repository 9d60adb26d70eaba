// The calls made on the evals' objects (Durable Object RPC): the datasets object (one per
// deployment: every version of every dataset, and the list of experiments) and an experiment's
// object (one per experiment). Errors cross as data (Outcome).
import type { AgentOfRun, CreateRunBody, Outcome } from "../types";
import type { AgentProvider } from "../resources/agent-types";
import type { InboxChange, ListPosition } from "./inbox-rpc";
import type { DatasetCase, DatasetSummary, DatasetView, ExperimentSummary, ExperimentView, ReplayMode, Scorer, Variant, VariantChanges } from "../resources/eval-types";

/** A case as the edge hands it to the datasets object: a recorded run or an inline input, with its reference. */
export type NewCase = Omit<DatasetCase, "n" | "addedIn">;

export type NewDataset = { name: string; description?: string; cases: NewCase[]; createdAt: string };

/** Where a page of datasets starts: after this name. */
export type DatasetsPage = { datasets: DatasetSummary[]; next?: string };

export type ExperimentEntry = { id: string; createdAt: string };

export interface DatasetsRpc {
  /** Makes version 1 (409 when the name is taken; 400 past `casesLimit`). */
  create(dataset: NewDataset, casesLimit: number): Promise<Outcome<DatasetView>>;
  /** Adds the cases as the next version (404 for no such dataset; 400 past `casesLimit`). */
  addCases(name: string, cases: NewCase[], at: string, casesLimit: number): Promise<Outcome<DatasetView>>;
  /** The dataset at `version` (default: the latest); 404 for no such dataset or version. */
  view(name: string, version?: number): Promise<Outcome<DatasetView>>;
  list(limit: number, after?: string): Promise<DatasetsPage>;
  /** Lists an experiment (before its object is made: a listing skips an entry whose experiment is not there). */
  addExperiment(entry: ExperimentEntry): Promise<null>;
  /** Drops an entry whose experiment is not there (a crash between the entry and the object). */
  dropExperiment(id: string): Promise<null>;
  /** Experiments, newest first. */
  experiments(limit: number, after?: ListPosition): Promise<{ entries: ExperimentEntry[]; next?: ListPosition }>;
}

/** A variant as the experiment stores it: changes to each recording's request, or a stored agent's version, resolved. */
export type StoredVariant =
  | { kind: "changes"; changes: VariantChanges }
  | { kind: "agent"; agent: AgentOfRun; template: Omit<CreateRunBody, "messages">; provider: AgentProvider; model: string };

/** What the edge hands an experiment's object to make it: the dataset's cases as they are at its version. */
export type NewExperiment = {
  id: string;
  name?: string;
  dataset: { name: string; version: number };
  cases: DatasetCase[];
  /** The variant as given (for the view) and as resolved. */
  variant: Variant;
  resolved: StoredVariant;
  mode: ReplayMode;
  budgetUsd: number;
  concurrency: number;
  scorers: Scorer[];
  baseline?: string;
  /** The origin the creating request reached (case runs' async HTTP tools send their results back there, unless PUBLIC_URL names another). */
  origin: string;
  createdAt: string;
};

export interface ExperimentRpc {
  /** Makes the experiment and sets its alarm (409 when the id is taken). */
  create(experiment: NewExperiment): Promise<Outcome<ExperimentView>>;
  view(): Promise<Outcome<ExperimentView>>;
  summary(): Promise<Outcome<ExperimentSummary>>;
  /** Cancels what has not ended: pending cases, and the runs of running ones. An ended experiment is unchanged. */
  cancel(): Promise<Outcome<ExperimentView>>;
  /** A case run's changes, delivered by its outbox at least once (409 when they are another experiment's). */
  apply(experimentId: string, changes: InboxChange[]): Promise<Outcome<{ applied: number }>>;
  /** GET /v1/experiments/{id}/events, forwarded after auth (SSE or a WebSocket upgrade). */
  fetch(request: Request): Promise<Response>;
}
