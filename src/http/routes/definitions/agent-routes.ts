// The routes of /v1/agents as OpenAPI route configs: the same objects validate requests and write
// the OpenAPI document. Paths are relative to the /v1/agents mount.
import { createRoute, z } from "@hono/zod-openapi";
import { agentAnswerSchema, agentNameSchema, agentsPageSchema, agentVersionsPageSchema, createAgentBodySchema, updateAgentBodySchema } from "../../../api/schemas/agents/agent-schemas";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../../../api/schemas/subject/inbox-schemas";
import { requireAgentReader, requireAgentWriter } from "../../auth/agent-auth";
import { errors, json } from "./run-routes";
import { listLimitSchema } from "./schedule-routes";

const nameParams = z.object({ name: agentNameSchema.openapi({ param: { name: "name", in: "path" } }) });

export const createAgentRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Store an agent: a named run template, version 1 (deployment token)",
  middleware: [requireAgentWriter()] as const,
  request: { body: { required: true, content: { "application/json": { schema: createAgentBodySchema } } } },
  responses: { 201: json(agentAnswerSchema, "The agent, version 1 (or the next number, for a deleted name made again)."), ...errors(400, 401, 403, 409, 413, 429) },
});

export const listAgentsRoute = createRoute({
  method: "get",
  path: "/",
  summary: "The agents the caller sees, by name: every one for the deployment token; for a user token, those without a subject and its own subject's",
  middleware: [requireAgentReader()] as const,
  request: {
    query: z.strictObject({
      limit: listLimitSchema.optional().openapi({ description: `Agents per page: 1 to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}.` }),
      cursor: agentNameSchema.optional().openapi({ description: "The nextCursor of the page before." }),
    }),
  },
  responses: { 200: json(agentsPageSchema, "A page of agents, each at its latest version."), ...errors(400, 401, 403, 429) },
});

export const getAgentRoute = createRoute({
  method: "get",
  path: "/{name}",
  summary: "An agent at its latest version",
  middleware: [requireAgentReader()] as const,
  request: { params: nameParams },
  responses: { 200: json(agentAnswerSchema, "The agent."), ...errors(400, 401, 403, 404, 429) },
});

export const updateAgentRoute = createRoute({
  method: "patch",
  path: "/{name}",
  summary: "Change an agent: its next version (deployment token); a change that changes nothing makes none",
  middleware: [requireAgentWriter()] as const,
  request: { params: nameParams, body: { required: true, content: { "application/json": { schema: updateAgentBodySchema } } } },
  responses: { 200: json(agentAnswerSchema, "The agent at its new version."), ...errors(400, 401, 403, 404, 413, 429) },
});

export const deleteAgentRoute = createRoute({
  method: "delete",
  path: "/{name}",
  summary: "Delete an agent (deployment token): no door finds it after; runs made from it go on",
  middleware: [requireAgentWriter()] as const,
  request: { params: nameParams },
  responses: { 204: { description: "Deleted." }, ...errors(400, 401, 403, 404, 429) },
});

/** A version number in a path or a cursor: a whole number from 1. */
const versionNumberSchema = z.string().regex(/^[1-9]\d{0,8}$/, { message: "Must be a whole number from 1." });

export const listAgentVersionsRoute = createRoute({
  method: "get",
  path: "/{name}/versions",
  summary: "An agent's versions, newest first, each as the caller may see it (a user token: those whose subject is absent or its own)",
  middleware: [requireAgentReader()] as const,
  request: {
    params: nameParams,
    query: z.strictObject({
      limit: listLimitSchema.optional().openapi({ description: `Versions per page: 1 to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}.` }),
      cursor: versionNumberSchema.optional().openapi({ description: "The nextCursor of the page before." }),
    }),
  },
  responses: { 200: json(agentVersionsPageSchema, "A page of versions, newest first."), ...errors(400, 401, 403, 404, 429) },
});

export const getAgentVersionRoute = createRoute({
  method: "get",
  path: "/{name}/versions/{version}",
  summary: "One version of an agent, as it was made (versions never change)",
  middleware: [requireAgentReader()] as const,
  request: {
    params: z.object({
      name: agentNameSchema.openapi({ param: { name: "name", in: "path" } }),
      version: versionNumberSchema.openapi({ param: { name: "version", in: "path" }, example: "1" }),
    }),
  },
  responses: { 200: json(agentAnswerSchema, "That version."), ...errors(400, 401, 403, 404, 429) },
});
