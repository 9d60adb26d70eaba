// The routes of /v1/datasets and /v1/experiments (docs/evals.md) as OpenAPI route configs: the same
// objects validate requests and write the OpenAPI document. Paths are relative to each mount. Evals
// read any subject's runs and spend the deployment's money: the deployment token only.
import { createRoute, z } from "@hono/zod-openapi";
import { afterQuerySchema } from "../../../api/rules/event-cursor";
import { addCasesBodySchema, createDatasetBodySchema, datasetAnswerSchema, datasetNameSchema, datasetsPageSchema } from "../../../api/schemas/evals/dataset-schemas";
import { comparisonAnswerSchema, createExperimentBodySchema, experimentAnswerSchema, experimentsPageSchema } from "../../../api/schemas/evals/experiment-schemas";
import { CURSOR_PATTERN, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../../../api/schemas/subject/inbox-schemas";
import { requireDeployment } from "../../auth/auth";
import { errors, json } from "./run-routes";
import { listLimitSchema } from "./schedule-routes";

const nameParams = z.object({ name: datasetNameSchema.openapi({ param: { name: "name", in: "path" } }) });
const idParams = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, example: "exp_abcdefghijklmnopqrstuvwxyz" }) });
const versionQuery = z
  .string()
  .regex(/^[1-9]\d{0,8}$/, { message: "Must be a whole number from 1." })
  .openapi({ description: "A version of the dataset (default: its latest)." });

export const createDatasetRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Make a dataset, version 1: recorded runs (by id, or selected by subject or schedule, agent, tag, time) and inline inputs, each with an optional reference",
  middleware: [requireDeployment()] as const,
  request: { body: { required: true, content: { "application/json": { schema: createDatasetBodySchema } } } },
  responses: { 201: json(datasetAnswerSchema, "The dataset, version 1."), ...errors(400, 401, 403, 409, 413, 429) },
});

export const listDatasetsRoute = createRoute({
  method: "get",
  path: "/",
  summary: "Datasets by name, each at its latest version",
  middleware: [requireDeployment()] as const,
  request: {
    query: z.strictObject({
      limit: listLimitSchema.optional().openapi({ description: `Datasets per page: 1 to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}.` }),
      cursor: datasetNameSchema.optional().openapi({ description: "The nextCursor of the page before." }),
    }),
  },
  responses: { 200: json(datasetsPageSchema, "A page of datasets."), ...errors(400, 401, 403, 429) },
});

export const getDatasetRoute = createRoute({
  method: "get",
  path: "/{name}",
  summary: "A dataset with its cases, at its latest version or at `version`",
  middleware: [requireDeployment()] as const,
  request: { params: nameParams, query: z.strictObject({ version: versionQuery.optional() }) },
  responses: { 200: json(datasetAnswerSchema, "The dataset."), ...errors(400, 401, 403, 404, 429) },
});

export const addCasesRoute = createRoute({
  method: "post",
  path: "/{name}/cases",
  summary: "Add cases (recorded runs, a selection of runs, inline inputs): the dataset's next version; earlier versions stay readable",
  middleware: [requireDeployment()] as const,
  request: { params: nameParams, body: { required: true, content: { "application/json": { schema: addCasesBodySchema } } } },
  responses: { 200: json(datasetAnswerSchema, "The dataset at its new version."), ...errors(400, 401, 403, 404, 413, 429) },
});

export const createExperimentRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Run every case of a dataset against a variant, within a budget and a concurrency; tool calls answered from each recording as `mode` says",
  middleware: [requireDeployment()] as const,
  request: { body: { required: true, content: { "application/json": { schema: createExperimentBodySchema } } } },
  responses: { 201: json(experimentAnswerSchema, "The experiment, running (its cases start at once)."), ...errors(400, 401, 403, 413, 429) },
});

export const listExperimentsRoute = createRoute({
  method: "get",
  path: "/",
  summary: "Experiments, newest first",
  middleware: [requireDeployment()] as const,
  request: {
    query: z.strictObject({
      limit: listLimitSchema.optional().openapi({ description: `Experiments per page: 1 to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}.` }),
      cursor: z.string().regex(CURSOR_PATTERN, { message: "Not a cursor this API gave." }).optional().openapi({ description: "The nextCursor of the page before." }),
    }),
  },
  responses: { 200: json(experimentsPageSchema, "A page of experiments."), ...errors(400, 401, 403, 429) },
});

export const getExperimentRoute = createRoute({
  method: "get",
  path: "/{id}",
  summary: "An experiment: its progress, spend and every case with its scores and divergence",
  middleware: [requireDeployment()] as const,
  request: { params: idParams },
  responses: { 200: json(experimentAnswerSchema, "The experiment."), ...errors(401, 403, 404, 429) },
});

export const cancelExperimentRoute = createRoute({
  method: "post",
  path: "/{id}/cancel",
  summary: "Cancel an experiment: pending cases do not start, running cases' runs are cancelled (an ended experiment is unchanged)",
  middleware: [requireDeployment()] as const,
  request: { params: idParams },
  responses: { 200: json(experimentAnswerSchema, "The experiment, cancelled."), ...errors(401, 403, 404, 429) },
});

export const experimentEventsRoute = createRoute({
  method: "get",
  path: "/{id}/events",
  summary: "An experiment's progress: WebSocket (Upgrade: websocket) or SSE (Accept: text/event-stream)",
  description:
    "Stored events with seq > after, in order, then live ones: experiment-started, case-started, case-ended (the case as the view shows it), experiment-ended, " +
    "each with the progress. SSE: id = seq, Last-Event-ID honoured.",
  middleware: [requireDeployment()] as const,
  request: { params: idParams, query: z.strictObject({ after: afterQuerySchema }) },
  responses: {
    101: { description: "WebSocket: one JSON text frame per event (ExperimentEvent with seq and at)." },
    200: { description: "SSE stream of the same events.", content: { "text/event-stream": { schema: z.string() } } },
    ...errors(400, 401, 403, 404, 429),
  },
});

export const comparisonRoute = createRoute({
  method: "get",
  path: "/{id}/comparison",
  summary: "The experiment against a baseline (another experiment of the same dataset, or the recordings): per case and in total, regressions first",
  middleware: [requireDeployment()] as const,
  request: {
    params: idParams,
    query: z.strictObject({ baseline: z.string().min(1).max(128).optional().openapi({ description: 'An experiment id or "recordings" (default: the experiment\'s baseline, else "recordings").' }) }),
  },
  responses: { 200: json(comparisonAnswerSchema, "The comparison."), ...errors(400, 401, 403, 404, 429) },
});

export const exportExperimentRoute = createRoute({
  method: "get",
  path: "/{id}/export",
  summary: "The experiment's report: JSON (the experiment and its comparison) or CSV (one row per case)",
  middleware: [requireDeployment()] as const,
  request: {
    params: idParams,
    query: z.strictObject({
      format: z.enum(["json", "csv"]).optional().openapi({ description: 'Default "json".' }),
      baseline: z.string().min(1).max(128).optional().openapi({ description: "As the comparison's (the report then has each score's baseline and delta)." }),
    }),
  },
  responses: {
    200: {
      description: "The report.",
      content: { "application/json": { schema: z.object({ experiment: experimentAnswerSchema.shape.experiment, comparison: comparisonAnswerSchema.shape.comparison.optional() }) }, "text/csv": { schema: z.string() } },
    },
    ...errors(400, 401, 403, 404, 429),
  },
});
