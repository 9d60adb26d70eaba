// The door matrix: every forbidden input (test/helpers/door-matrix.ts's rows) at every door a run
// comes in by (its columns) gets the same status and the same issue path, under where the door puts
// the body. The doors: POST /v1/runs, a fork by a user, run or deployment token, a schedule's create
// and patch, a trigger (a stored run that today's settings or rules refuse: planted in the schedule's
// object as one stored before), an agent template at depth 1 and 2 (in a create, and in a fork by a
// run token, the hole this table closed), a child's start (its template checked again against today's settings), and
// continue (POST …/messages to a finished run: its maxSteps), a stored agent's template (POST
// /v1/agents, the deployment's door: under `run.`), a run of a stored agent (POST /v1/runs
// {agent}: the fields its caller may set), and the doors that run a stored agent whose template
// today's settings refuse (planted in the agents object, as the trigger's run is in its schedule's):
// by name (POST /v1/runs {agent}), A2A's SendMessage, MCP's tools/call and an AG-UI thread's first request (and its own client tools, beside the agent's), whose refusals (a
// JSON-RPC error, a tool error) carry the intake's status and issues; the AI SDK chat's POST is a
// column of named skips (it carries a message only, sent by POST …/messages' code), and an experiment's
// case (its variant over its recording, admitted when the case starts). Cells a door cannot be asked
// are skipped by the table, by name, with their reason. The matrix runs with the rate limits lifted:
// the creation limit's rule (every door counts against the one limit, nothing is created past it) is
// held door by door in test/rate-limits/creation-doors.test.ts and creation-admission.test.ts.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunTemplate } from "../../src/api/rpc/schedule-rpc";
import { A2A_ERRORS } from "../../src/api/a2a/a2a-types";
import { agentsStub } from "../../src/durable/agents/agents-stub";
import { migrateAgents, writeVersion } from "../../src/durable/agents/agents-store";
import { BASE } from "../helpers/http";
import { readTemplate, writeTemplate } from "../../src/durable/schedule/schedule-store";
import { script, uniqueModel } from "../fake-anthropic/client";
import { DOORS, PATH_PREFIX, ROWS, skipReason, type Door, type Row } from "../helpers/door-matrix";
import { freshSubject, userToken } from "../helpers/inbox";
import { createSchedule, scheduleCall, scheduleStubFor } from "../helpers/schedules";
import { api, driveRun, startRun } from "../helpers/service-client";
import { agentTool, callAgents } from "../helpers/children";
import { driveExperiment } from "../helpers/experiments";
import { createRun, drive, storedEvents, stubFor, valueOf } from "../helpers/runs";
import { TEST_API_TOKEN } from "../test-env";

const MODEL = "claude-sonnet-5-5";
/** A body every door takes from either caller: a real provider (a user token may not use the scripted one). */
const base = () => ({ provider: "anthropic", model: MODEL, messages: [{ role: "user", content: "hi" }] });
const agent = (run: Record<string, unknown>) => ({ type: "agent", name: "helper", description: "Helps.", run });

type World = { subject: string; user: string; source: { id: string; token: string }; agent: string };
let world: World;

beforeAll(async () => {
  const subject = freshSubject("doors");
  // A finished source of the subject on a real provider (the fake Anthropic server), made by the
  // deployment: the fork doors fork it, the continue door continues it.
  const model = uniqueModel("claude-sonnet-5-5");
  await script(model, [{ text: "The source's one answer, long enough to stand as a whole answer to the question asked." }]);
  const { run, token } = await startRun({ subject, provider: "anthropic", model, messages: [{ role: "user", content: "hi" }], minAnswerChars: 0 });
  await driveRun(run.id);
  // A stored agent every user token may run (no subject), made by the deployment: the agent run door runs it.
  const agentName = `doors-${crypto.randomUUID().slice(0, 8)}`;
  const made = await post("/v1/agents", TEST_API_TOKEN, { name: agentName, description: "A door.", run: template() });
  expect(made.status, await made.clone().text()).toBe(201);
  world = { subject, user: await userToken(subject), source: { id: run.id, token }, agent: agentName };
});

function tokenOf(row: Row): string {
  return row.caller === "user" ? world.user : TEST_API_TOKEN;
}

async function post(path: string, token: string, body: unknown, method = "POST"): Promise<Response> {
  return api(path, token, { method, body: JSON.stringify(body) });
}

/** A schedule of the row's caller with a run it may have. */
async function schedule(row: Row): Promise<string> {
  return (await createSchedule({ cron: "0 * * * *", run: base() }, tokenOf(row))).id;
}

/** `answer`, once the schedule made for it is deleted: a subject holds at most SCHEDULES_PER_SUBJECT, and every row makes two. */
async function dropping(id: string, row: Row, answer: Response): Promise<Response> {
  const deleted = await api(`/v1/schedules/${id}`, tokenOf(row), { method: "DELETE" });
  expect(deleted.status, await deleted.clone().text()).toBeLessThan(300);
  return answer;
}

/** The row's fields written into a schedule's stored run, as a run stored before a rule or setting changed would be. */
async function plant(id: string, fields: Record<string, unknown>): Promise<void> {
  await runInDurableObject(scheduleStubFor(id), (_instance, state) => {
    const template: RunTemplate = readTemplate(state.storage.sql);
    const planted: RunTemplate = { ...template, body: { ...template.body, ...fields } };
    if (typeof fields.provider === "string") planted.provider = fields.provider as RunTemplate["provider"];
    writeTemplate(state.storage.sql, planted);
  });
}

/** An agent's template: a run's body without its messages (each run of the agent brings its own). */
function template(): Record<string, unknown> {
  const { messages: _messages, ...rest } = base();
  return rest;
}

async function knock(door: Door, row: Row): Promise<Response> {
  const { fields } = row;
  const forkFields = row.forkFields ?? row.fields;
  const fork = (token: string, body: Record<string, unknown>) => post(`/v1/runs/${world.source.id}/fork`, token, { atStep: 1, ...body });
  switch (door) {
    case "create":
      return post("/v1/runs", tokenOf(row), { ...base(), ...fields });
    case "fork (user token)":
      return fork(world.user, forkFields);
    case "fork (run token)":
      return fork(world.source.token, forkFields);
    case "fork (deployment)":
      return fork(TEST_API_TOKEN, forkFields);
    case "schedule create":
      return post("/v1/schedules", tokenOf(row), { cron: "0 * * * *", run: { ...base(), ...fields } });
    case "schedule patch": {
      const id = await schedule(row);
      return dropping(id, row, await post(`/v1/schedules/${id}`, tokenOf(row), { run: { ...base(), ...fields } }, "PATCH"));
    }
    case "trigger": {
      const id = await schedule(row);
      await plant(id, fields);
      return dropping(id, row, await scheduleCall(`/v1/schedules/${id}/trigger`, { method: "POST", token: tokenOf(row) }));
    }
    case "template depth 1":
      return post("/v1/runs", tokenOf(row), { ...base(), tools: [agent(fields)] });
    case "template depth 2":
      return post("/v1/runs", tokenOf(row), { ...base(), tools: [agent({ tools: [agent(fields)] })] });
    case "template depth 1 in a fork (run token)":
      return fork(world.source.token, { tools: [agent(fields)] });
    case "continue":
      return post(`/v1/runs/${world.source.id}/messages`, world.user, { content: "more", ...fields });
    case "child start":
      return childStart(fields);
    case "agent create":
      // Only the deployment token makes agents: the caps and host rows are asked of it.
      return post("/v1/agents", TEST_API_TOKEN, { name: `door-${crypto.randomUUID().slice(0, 8)}`, description: "A door.", run: { ...template(), ...fields } });
    case "agent run":
      return post("/v1/runs", tokenOf(row), { agent: world.agent, messages: [{ role: "user", content: "hi" }], ...fields });
    case "stored agent run":
      return post("/v1/runs", tokenOf(row), { agent: await plantAgent(fields), messages: [{ role: "user", content: "hi" }] });
    case "A2A SendMessage":
      return a2aSend(await plantAgent(fields), tokenOf(row));
    case "MCP tools/call":
      return mcpCall(await plantAgent(fields), tokenOf(row));
    case "AG-UI run":
      return agUiRun(await plantAgent(fields), tokenOf(row));
    case "AG-UI tools":
      return agUiRun(world.agent, tokenOf(row), agUiTools(fields));
    case "experiment case":
      return experimentCase(fields);
    case "AI SDK chat POST":
      // Every cell of this column is a named skip (skipReason): a chat POST has no run field to ask.
      throw new Error(`${door} is not asked: ${skipReason(row, door)}`);
  }
}

/**
 * A stored agent every user token sees, whose template carries `fields`: written straight into the
 * agents object, as a version stored before a cap was lowered or a host taken off the list would
 * be (a new name, so no isolate has it cached).
 */
async function plantAgent(fields: Record<string, unknown>): Promise<string> {
  const name = `planted-${crypto.randomUUID().slice(0, 8)}`;
  await runInDurableObject(agentsStub(env), (_instance, state: DurableObjectState) => {
    migrateAgents(state.storage.sql);
    state.storage.transactionSync(() => writeVersion(state.storage.sql, name, { description: "A planted door.", run: { ...template(), ...fields } as RunTemplate, provider: "anthropic", model: MODEL }, new Date().toISOString()));
  });
  return name;
}

/** A2A's SendMessage of a new task; a refusal (a JSON-RPC error whose data carries the intake's issues) in the API's error shape, for the one check below. */
async function a2aSend(name: string, token: string): Promise<Response> {
  const response = await post(`/a2a/${name}`, token, {
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] }, configuration: { returnImmediately: true } },
  });
  if (response.status !== 200) return response;
  const answer = (await response.json()) as { error?: { code: number; message: string; data?: { code?: string; issues?: unknown[] } } };
  if (answer.error === undefined) return Response.json(answer, { status: 201 });
  const status = answer.error.code === A2A_ERRORS.invalidParams ? 400 : 500;
  return Response.json({ error: { code: answer.error.data?.code, message: answer.error.message, issues: answer.error.data?.issues } }, { status });
}

/** An AG-UI thread's first request (POST /v1/ag-ui/{agent}): a refusal is the API's error; a stream that opened, the run made (201 here). */
async function agUiRun(name: string, token: string, tools?: unknown[]): Promise<Response> {
  const response = await post(`/v1/ag-ui/${name}`, token, { threadId: crypto.randomUUID(), runId: "r1", messages: [{ id: "m1", role: "user", content: "hi" }], ...(tools === undefined ? {} : { tools }) });
  if (response.status !== 200) return response;
  await response.body?.cancel();
  return Response.json({ started: "a run" }, { status: 201 });
}

/** The row's client tools as a thread brings them (AG-UI's Tool: its JSON Schema is `parameters`). */
function agUiTools(fields: Record<string, unknown>): unknown[] {
  return (fields.tools as { name: string; description: string; inputSchema: unknown }[]).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema }));
}

/** MCP's tools/call of the agent's tool; a refusal (a tool error whose `ratchet/error` carries the intake's status and issues) in the API's error shape. */
async function mcpCall(name: string, token: string): Promise<Response> {
  const response = await SELF.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: { task: "hi" } } }),
  });
  if (response.status !== 200) return response;
  const text = await response.text();
  // One JSON-RPC message, or an event stream of them: the answer is the one with the call's id.
  const messages = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)) as { id?: number; result?: unknown })
    : [JSON.parse(text) as { id?: number; result?: unknown }];
  const result = messages.find((message) => message.id === 1)?.result as { isError?: boolean; _meta?: Record<string, { status: number; code: string; issues: unknown[] }> } | undefined;
  const refusal = result?.isError === true ? result._meta?.["ratchet/error"] : undefined;
  if (refusal === undefined) return Response.json({ result }, { status: 201 });
  return Response.json({ error: { code: refusal.code, issues: refusal.issues } }, { status: refusal.status });
}

/**
 * The child start door: a parent whose agent template carries the row's fields, stored straight
 * into its object (as one made before a cap was lowered or a host taken off the list would be).
 * Its call starts no child; the call's error result, which names the paths at fault, is answered
 * here in the API's error shape with the row's status, so the one check below reads every door.
 */
async function childStart(fields: Record<string, unknown>): Promise<Response> {
  const { id, stub } = await createRun({
    tools: [agentTool("helper", [{ text: "never" }], fields)],
    minAnswerChars: 0,
    budget: { usd: 1 },
    script: [callAgents([["c1", "helper", "Do it."]]), { text: "The helper could not start." }],
  });
  await drive(stub);
  if ((await storedEvents(stub)).some((event) => event.type === "child-started")) return Response.json({ started: "a child" }, { status: 201 });
  const { messages } = valueOf(await stubFor(id).messages());
  const result = (messages as { role: string; content: unknown; isError?: boolean }[]).find((message) => message.role === "tool");
  if (result?.isError !== true) return Response.json({ result }, { status: 200 });
  const text = JSON.stringify(result.content);
  const paths = [...text.matchAll(/([a-zA-Z0-9_.]+): /g)].map((match) => ({ path: match[1] }));
  return Response.json({ error: { code: "refused-at-start", message: text, issues: paths } }, { status: text.includes("may not be made") ? 400 : 500 });
}

/**
 * The experiment case door: an experiment on a dataset of the finished source run, its variant the
 * row's fields. The variant is checked when the case starts, by the one intake, for the deployment:
 * a refusal fails the case with its reason (each issue's path and message), answered here in the
 * API's error shape, so the one check below reads every door.
 */
async function experimentCase(fields: Record<string, unknown>): Promise<Response> {
  const name = `door-${crypto.randomUUID().slice(0, 8)}`;
  const made = await post("/v1/datasets", TEST_API_TOKEN, { name, cases: [{ runId: world.source.id }] });
  expect(made.status, await made.clone().text()).toBe(201);
  const response = await post("/v1/experiments", TEST_API_TOKEN, { dataset: name, variant: fields, scorers: [{ type: "exact" }] });
  if (response.status !== 201) return response;
  const { experiment } = (await response.json()) as { experiment: { id: string } };
  const [one] = (await driveExperiment(experiment.id)).cases;
  if (one?.state !== "failed") return Response.json({ case: one }, { status: 201 });
  const text = one.reason ?? "";
  const paths = [...text.matchAll(/([a-zA-Z0-9_.]+): /g)].map((match) => ({ path: match[1] }));
  return Response.json({ error: { code: "refused-at-start", message: text, issues: paths } }, { status: 400 });
}

describe("the door matrix: one intake, the same answer at every door", () => {
  for (const row of ROWS) {
    describe(row.name, () => {
      for (const door of DOORS) {
        const reason = skipReason(row, door);
        if (reason !== undefined) {
          it.skip(`${door}: not asked (${reason})`, () => undefined);
          continue;
        }
        it(`${door}: ${row.status} at ${PATH_PREFIX[door]}${row.path}`, async () => {
          const response = await knock(door, row);
          const text = await response.text();
          expect(response.status, text).toBe(row.status);
          const { error } = JSON.parse(text) as { error: { issues?: { path: string }[] } };
          expect(error.issues?.map((issue) => issue.path), text).toContain(`${PATH_PREFIX[door]}${row.path}`);
        });
      }
    });
  }
});
