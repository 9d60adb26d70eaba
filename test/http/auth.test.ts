// Auth answers that the edge gives without asking any run object.
import { describe, it } from "vitest";
import { newRunCredentials } from "../../src/http/ids/ids";
import { TEST_API_TOKEN, TEST_RUN_ID_KEY } from "../test-env";
import { bearer, call, expectError, postJson } from "../helpers/http";

// An id the edge minted (so it gets past the id check) whose run was never created.
const someRunId = (await newRunCredentials(TEST_RUN_ID_KEY)).id;
const someRunToken = "rt_" + "A".repeat(43);
const body = { messages: [{ role: "user", content: "hi" }] };

describe("401 without usable credentials", () => {
  it.each<[string, Record<string, string>]>([
    ["no Authorization header", {}],
    ["an empty header", { Authorization: "" }],
    ["another scheme", { Authorization: "Basic ZGV2OnRva2Vu" }],
    ["Bearer without a token", { Authorization: "Bearer " }],
    ["Bearer with two tokens", { Authorization: "Bearer a b" }],
    ["a wrong deployment token", bearer(`${TEST_API_TOKEN}-wrong`)],
    ["the token in another case", bearer(TEST_API_TOKEN.toUpperCase())],
    ["the published local token", bearer("dev-token")],
    ["a token that is neither", bearer("rt_short")],
  ])("POST /v1/runs with %s", async (_name, headers) => {
    await expectError(await postJson("/v1/runs", body, headers), 401, "unauthorized");
  });

  it.each(["/v1/runs/" + someRunId, `/v1/runs/${someRunId}/messages`, `/v1/runs/${someRunId}/events`])(
    "GET %s without a token",
    async (path) => {
      await expectError(await call(path), 401, "unauthorized");
    },
  );

  it("never takes a token in the URL, not even on the events endpoint", async () => {
    for (const path of [`/v1/runs/${someRunId}`, `/v1/runs/${someRunId}/events`]) {
      const error = await expectError(await call(`${path}?token=${TEST_API_TOKEN}`, { headers: { Accept: "text/event-stream" } }), 401, "unauthorized");
      if (!error.error.message.includes("not accepted in URLs")) throw new Error(error.error.message);
    }
    await expectError(await postJson(`/v1/runs?token=${TEST_API_TOKEN}`, body, {}), 401, "unauthorized");
  });

  it("checks credentials before the id's shape", async () => {
    await expectError(await call("/v1/runs/not-a-run"), 401, "unauthorized");
  });
});

describe("403 for a run token where only the deployment token may act", () => {
  it("POST /v1/runs with a run token", async () => {
    await expectError(await postJson("/v1/runs", body, bearer(someRunToken)), 403, "forbidden");
  });
});

describe("404 for ids of the wrong shape, without touching storage", () => {
  it.each([
    "abc",
    "run_",
    "run_" + "a".repeat(25),
    "run_" + "a".repeat(27),
    "run_" + "A".repeat(26),
    "run_" + "1".repeat(26), // 0, 1, 8 and 9 are not base32
    "RUN_" + "a".repeat(26),
    "run-" + "a".repeat(26),
    encodeURIComponent("run_" + "a".repeat(25) + "é"),
  ])("GET /v1/runs/%s", async (id) => {
    await expectError(await call(`/v1/runs/${id}`, { headers: bearer() }), 404, "not-found");
    await expectError(await call(`/v1/runs/${id}/events`, { headers: { ...bearer(), Upgrade: "websocket" } }), 404, "not-found");
    await expectError(await call(`/v1/runs/${id}/events?ticket=tk_${"a".repeat(43)}`, { headers: { Upgrade: "websocket" } }), 404, "not-found");
  });

  it("answers the same for a run token", async () => {
    await expectError(await call("/v1/runs/abc", { headers: bearer(someRunToken) }), 404, "not-found");
  });
});

describe("the events endpoint", () => {
  it("takes the header and then wants a WebSocket or an event stream", async () => {
    const response = await call(`/v1/runs/${someRunId}/events`, { headers: bearer() });
    const error = await expectError(response, 400, "invalid-request");
    if (!error.error.message.includes("WebSocket")) throw new Error(error.error.message);
  });

  it("refuses a malformed after", async () => {
    const response = await call(`/v1/runs/${someRunId}/events?after=-1`, { headers: { ...bearer(), Accept: "text/event-stream" } });
    await expectError(response, 400, "invalid-request");
  });
});
