// The one place where the untyped DATASETS and EXPERIMENTS bindings become the typed RPC contracts
// of src/api/rpc/evals-rpc.ts. The deployment's datasets (and list of experiments) live in one
// object; an experiment's object is named by its id.
import type { DatasetsRpc, ExperimentRpc } from "../../../api/rpc/evals-rpc";

export type DatasetsStub = DurableObjectStub & DatasetsRpc;
export type ExperimentStub = DurableObjectStub & ExperimentRpc;

/** The one datasets object's name. */
export const DATASETS_OBJECT = "datasets:deployment";

export function datasetsStub(env: Env): DatasetsStub {
  return env.DATASETS.get(env.DATASETS.idFromName(DATASETS_OBJECT)) as unknown as DatasetsStub;
}

export function experimentStub(env: Env, experimentId: string): ExperimentStub {
  return env.EXPERIMENTS.get(env.EXPERIMENTS.idFromName(experimentId)) as unknown as ExperimentStub;
}
