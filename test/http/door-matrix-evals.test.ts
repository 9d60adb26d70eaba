// The door matrix's deployment columns (test/helpers/door-matrix.ts): every route of /v1/datasets
// and /v1/experiments takes the deployment token only, so each token that is not the deployment's
// is refused at each of them: none (401), a user token and a run token (403, before any body or
// object is read). The dataset and the experiment named in the paths exist, so a route opened to
// another token would answer it, not 404.
import { afterAll, beforeAll, describe, it } from "vitest";
import type { DatasetView, ExperimentView } from "../../src/api/resources/eval-types";
import { DEPLOYMENT_DOORS, TOKEN_ROWS, type DeploymentDoor, type TokenRow } from "../helpers/door-matrix";
import { post, recordedRun } from "../helpers/experiments";
import { call, expectError } from "../helpers/http";
import { freshSubject, userToken } from "../helpers/inbox";
import { api, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

type World = { name: string; id: string; tokens: Record<TokenRow["name"], string | undefined> };
let world: World;

beforeAll(async () => {
  const name = `door-${crypto.randomUUID().slice(0, 8)}`;
  const { dataset } = await post<{ dataset: DatasetView }>("/v1/datasets", { name, cases: [{ runId: await recordedRun("1+1", "Two."), recordedReference: true }] });
  // An experiment every route can name (cancelled after the last test).
  const { experiment } = await post<{ experiment: ExperimentView }>("/v1/experiments", { dataset: dataset.name, variant: {}, scorers: [{ type: "exact" }], concurrency: 1 });
  const { token: runToken } = await startRun({ provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "Hello." }] });
  world = { name, id: experiment.id, tokens: { "no token": undefined, "a user token": await userToken(freshSubject("evals-door")), "a run token": runToken } };
});

afterAll(async () => {
  await api(`/v1/experiments/${world.id}/cancel`, TEST_API_TOKEN, { method: "POST" });
});

async function knock(door: DeploymentDoor, row: TokenRow): Promise<Response> {
  const fill = (text: string) => text.replaceAll("{name}", world.name).replaceAll("{id}", world.id);
  const token = world.tokens[row.name];
  const headers: Record<string, string> = { "Content-Type": "application/json", ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }) };
  if (door.path.endsWith("/events")) headers.Accept = "text/event-stream";
  const body = door.body === undefined ? undefined : fill(JSON.stringify(door.body));
  return call(fill(door.path), { method: door.method, headers, ...(body === undefined ? {} : { body }) });
}

describe("the door matrix's deployment columns: evals take the deployment token only", () => {
  for (const row of TOKEN_ROWS) {
    describe(row.name, () => {
      for (const door of DEPLOYMENT_DOORS) {
        it(`${door.method} ${door.path}: ${row.status} ${row.code}`, async () => {
          await expectError(await knock(door, row), row.status, row.code);
        });
      }
    });
  }
});
