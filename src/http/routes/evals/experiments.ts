// /v1/experiments (docs/evals.md): made at the edge (src/http/evals/experiment-create.ts), listed in
// the datasets object before the experiment's own object is made, and read, cancelled and watched
// through that object. The comparison and the report are built here from the experiments' views.
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { ExperimentSummary, ExperimentView } from "../../../api/resources/eval-types";
import { experimentAnswerSchema } from "../../../api/schemas/evals/experiment-schemas";
import { LIST_LIMIT_DEFAULT } from "../../../api/schemas/subject/inbox-schemas";
import { datasetsStub, experimentStub } from "../../../durable/evals/experiment/experiment-stub";
import { isoNow } from "../../../durable/storage/clock";
import type { AppEnv } from "../../app-env";
import { newExperiment } from "../../evals/experiment-create";
import { comparisonOf, experimentReport, reportCsvOf } from "../../evals/experiment-report";
import { ApiException, invalidRequest, validationHook } from "../../errors";
import { forwarded, wantsEventStream } from "../../forward";
import { isExperimentId, newExperimentId } from "../../ids/experiment-ids";
import { unwrap } from "../../outcome";
import { decodeCursor, encodeCursor } from "../runs/cursor";
import { EXPERIMENT_NOT_FOUND } from "../../../durable/evals/experiment/experiment-object";
import { cancelExperimentRoute, comparisonRoute, createExperimentRoute, experimentEventsRoute, exportExperimentRoute, getExperimentRoute, listExperimentsRoute } from "../definitions/eval-routes";

/** The view as the route's schema reads it (a variant's and a scorer's fields are the schemas' own). */
const answerOf = (experiment: ExperimentView) => ({ experiment }) as unknown as z.infer<typeof experimentAnswerSchema>;

export function experimentsApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  // An id this deployment did not mint is 404 before any object is touched.
  app.use("/:id/*", async (c, next) => {
    if (!(await isExperimentId(c.req.param("id"), c.var.settings.runIdKeys))) throw new ApiException(404, EXPERIMENT_NOT_FOUND);
    await next();
  });
  app.use("/:id", async (c, next) => {
    if (!(await isExperimentId(c.req.param("id"), c.var.settings.runIdKeys))) throw new ApiException(404, EXPERIMENT_NOT_FOUND);
    await next();
  });

  app.openapi(createExperimentRoute, async (c) => {
    const id = await newExperimentId(c.var.settings.runIdKeys[0]!);
    const createdAt = isoNow();
    const experiment = await newExperiment(c.env, c.var.settings, c.req.valid("json"), { id, origin: new URL(c.req.url).origin, createdAt });
    // Listed first: a crash before the object is made leaves an entry a listing skips, never an experiment none shows.
    await datasetsStub(c.env).addExperiment({ id, createdAt });
    return c.json(answerOf(unwrap(await experimentStub(c.env, id).create(experiment))), 201);
  });

  app.openapi(listExperimentsRoute, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (cursor !== undefined && after === undefined) throw invalidRequest("Invalid request query.", [{ path: "cursor", message: "Not a cursor this API gave." }]);
    const page = await datasetsStub(c.env).experiments(limit === undefined ? LIST_LIMIT_DEFAULT : Number(limit), after);
    const experiments: ExperimentSummary[] = [];
    for (const entry of page.entries) {
      const summary = await experimentStub(c.env, entry.id).summary();
      if (summary.ok) experiments.push(summary.value);
      else await datasetsStub(c.env).dropExperiment(entry.id);
    }
    return c.json({ experiments, ...(page.next === undefined ? {} : { nextCursor: encodeCursor(page.next) }) }, 200);
  });

  app.openapi(getExperimentRoute, async (c) => c.json(answerOf(unwrap(await experimentStub(c.env, c.req.valid("param").id).view())), 200));

  app.openapi(cancelExperimentRoute, async (c) => c.json(answerOf(unwrap(await experimentStub(c.env, c.req.valid("param").id).cancel())), 200));

  app.openapi(experimentEventsRoute, async (c) => {
    if (!wantsEventStream(c.req.raw)) throw invalidRequest("The experiment's stream needs a WebSocket upgrade (Upgrade: websocket) or Accept: text/event-stream.");
    return experimentStub(c.env, c.req.valid("param").id).fetch(forwarded(c.req.raw, c.var.caller));
  });

  app.openapi(comparisonRoute, async (c) => {
    const experiment = unwrap(await experimentStub(c.env, c.req.valid("param").id).view());
    const baseline = c.req.valid("query").baseline ?? experiment.baseline ?? "recordings";
    return c.json({ comparison: await comparisonOf(c.env, experiment, baseline) }, 200);
  });

  app.openapi(exportExperimentRoute, async (c) => {
    const { format, baseline } = c.req.valid("query");
    const report = await experimentReport(c.env, c.req.valid("param").id, baseline);
    if (format === "csv") return c.body(reportCsvOf(report), 200, { "content-type": "text/csv; charset=utf-8" }) as never;
    return c.json(report as never, 200);
  });

  return app;
}
