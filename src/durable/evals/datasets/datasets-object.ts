// The deployment's datasets, in one object (DatasetsObject, named `datasets:deployment`), with the
// deployment's list of experiments: it only stores and reads. What a case may hold (a run that
// exists, a selection of runs, a reference) is the edge's to resolve before it calls here
// (src/http/evals). Each change of a dataset is one transaction.
import { DurableObject } from "cloudflare:workers";
import type { DatasetsPage, DatasetsRpc, ExperimentEntry, NewCase, NewDataset } from "../../../api/rpc/evals-rpc";
import type { ListPosition } from "../../../api/rpc/inbox-rpc";
import type { Outcome } from "../../../api/types";
import type { DatasetView as View } from "../../../api/resources/eval-types";
import { fail, ok } from "../../run/outcome";
import { caseCount, hasDatasets, latestVersion, listDatasets, newDatasetVersion, readDataset, writeVersion } from "./dataset-store";
import { addEntry, dropEntry, listEntries } from "./experiment-index-store";

export const DATASET_NOT_FOUND = "No such dataset.";

const tooMany = (limit: number) => fail(400, `A dataset holds at most ${limit} cases on this deployment (DATASET_CASES_LIMIT).`, [{ path: "cases", message: `At most ${limit} cases in all (DATASET_CASES_LIMIT).` }]);

export class DatasetsObject extends DurableObject<Env> implements DatasetsRpc {
  private get sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  async create(dataset: NewDataset, casesLimit: number): Promise<Outcome<View>> {
    if (dataset.cases.length > casesLimit) return tooMany(casesLimit);
    return this.ctx.storage.transactionSync(() => {
      if (latestVersion(this.sql, dataset.name) !== undefined) return fail(409, `A dataset named ${dataset.name} exists: add cases with POST /v1/datasets/${dataset.name}/cases.`);
      newDatasetVersion(this.sql, dataset);
      return ok(readDataset(this.sql, dataset.name)!);
    });
  }

  async addCases(name: string, cases: NewCase[], at: string, casesLimit: number): Promise<Outcome<View>> {
    return this.ctx.storage.transactionSync(() => {
      const version = latestVersion(this.sql, name);
      if (version === undefined) return fail(404, DATASET_NOT_FOUND);
      if (caseCount(this.sql, name, version) + cases.length > casesLimit) return tooMany(casesLimit);
      writeVersion(this.sql, name, version + 1, cases, at);
      return ok(readDataset(this.sql, name)!);
    });
  }

  async view(name: string, version?: number): Promise<Outcome<View>> {
    const found = hasDatasets(this.sql) ? readDataset(this.sql, name, version) : undefined;
    if (found !== undefined) return ok(found);
    if (version !== undefined && latestVersion(this.sql, name) !== undefined) return fail(404, `Dataset ${name} has no version ${version}.`);
    return fail(404, DATASET_NOT_FOUND);
  }

  async list(limit: number, after?: string): Promise<DatasetsPage> {
    return listDatasets(this.sql, limit, after);
  }

  async addExperiment(entry: ExperimentEntry): Promise<null> {
    addEntry(this.sql, entry);
    return null;
  }

  async dropExperiment(id: string): Promise<null> {
    dropEntry(this.sql, id);
    return null;
  }

  async experiments(limit: number, after?: ListPosition): Promise<{ entries: ExperimentEntry[]; next?: ListPosition }> {
    return listEntries(this.sql, limit, after);
  }
}
