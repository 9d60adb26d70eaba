// /v1/datasets (docs/evals.md): each handler resolves the cases at the edge (src/http/evals/dataset-cases.ts)
// and asks the one datasets object, which stores each version in one transaction.
import { OpenAPIHono } from "@hono/zod-openapi";
import { LIST_LIMIT_DEFAULT } from "../../../api/schemas/subject/inbox-schemas";
import { datasetsStub } from "../../../durable/evals/experiment/experiment-stub";
import { isoNow } from "../../../durable/storage/clock";
import type { AppEnv } from "../../app-env";
import { resolveCases } from "../../evals/dataset-cases";
import { validationHook } from "../../errors";
import { unwrap } from "../../outcome";
import { addCasesRoute, createDatasetRoute, getDatasetRoute, listDatasetsRoute } from "../definitions/eval-routes";

export function datasetsApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(createDatasetRoute, async (c) => {
    const { name, description, cases, select } = c.req.valid("json");
    const resolved = await resolveCases(c.env, cases, select);
    const made = { name, cases: resolved, createdAt: isoNow(), ...(description === undefined ? {} : { description }) };
    const dataset = unwrap(await datasetsStub(c.env).create(made, c.var.settings.limits.datasetCases));
    return c.json({ dataset }, 201);
  });

  app.openapi(listDatasetsRoute, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const page = await datasetsStub(c.env).list(limit === undefined ? LIST_LIMIT_DEFAULT : Number(limit), cursor);
    return c.json({ datasets: page.datasets, ...(page.next === undefined ? {} : { nextCursor: page.next }) }, 200);
  });

  app.openapi(getDatasetRoute, async (c) => {
    const { version } = c.req.valid("query");
    const dataset = unwrap(await datasetsStub(c.env).view(c.req.valid("param").name, version === undefined ? undefined : Number(version)));
    return c.json({ dataset }, 200);
  });

  app.openapi(addCasesRoute, async (c) => {
    const { cases, select } = c.req.valid("json");
    const resolved = await resolveCases(c.env, cases, select);
    const dataset = unwrap(await datasetsStub(c.env).addCases(c.req.valid("param").name, resolved, isoNow(), c.var.settings.limits.datasetCases));
    return c.json({ dataset }, 200);
  });

  return app;
}
