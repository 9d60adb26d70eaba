// Tags given when a run is made (POST /v1/runs `tags`): stored with it, shown by its view and its
// listing, and chosen by GET /v1/runs?tag= (with from= and to= on its creation time). A run of a
// stored agent takes tags too; a fork keeps its source's.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { createWith, freshSubject, listAll, settle, BASE } from "../helpers/inbox";
import { expectError } from "../helpers/http";
import { TEST_API_TOKEN } from "../test-env";

const DEPLOY = { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" };

function post(path: string, body: unknown): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, { method: "POST", headers: DEPLOY, body: JSON.stringify(body) });
}

describe("run tags", () => {
  it("are stored with the run, shown by its view and listing, and filter GET /v1/runs by tag and creation time", async () => {
    const subject = freshSubject();
    const golden = await createWith(TEST_API_TOKEN, { subject, tags: ["golden", "billing/refunds"], script: [{ text: "done" }] });
    const other = await createWith(TEST_API_TOKEN, { subject, tags: ["smoke"], script: [{ text: "done" }] });
    const none = await createWith(TEST_API_TOKEN, { subject, script: [{ text: "done" }] });
    for (const made of [golden, other, none]) await settle(made.run.id);
    expect(golden.run.tags).toEqual(["golden", "billing/refunds"]);
    const view = (await (await SELF.fetch(`${BASE}/v1/runs/${golden.run.id}`, { headers: DEPLOY })).json()) as RunView;
    expect(view.tags).toEqual(["golden", "billing/refunds"]);
    const bySubject = `subject=${encodeURIComponent(subject)}`;
    expect((await listAll(TEST_API_TOKEN, `${bySubject}&tag=golden`)).map((run) => [run.id, run.tags])).toEqual([[golden.run.id, ["golden", "billing/refunds"]]]);
    expect((await listAll(TEST_API_TOKEN, `${bySubject}&tag=billing/refunds`)).map((run) => run.id)).toEqual([golden.run.id]);
    expect((await listAll(TEST_API_TOKEN, `${bySubject}&tag=nothing`)).map((run) => run.id)).toEqual([]);
    // Creation time: from is inclusive, to exclusive.
    const at = golden.run.createdAt;
    expect((await listAll(TEST_API_TOKEN, `${bySubject}&tag=golden&from=${encodeURIComponent(at)}`)).map((run) => run.id)).toEqual([golden.run.id]);
    expect((await listAll(TEST_API_TOKEN, `${bySubject}&tag=golden&to=${encodeURIComponent(at)}`)).map((run) => run.id)).toEqual([]);
    expect((await listAll(TEST_API_TOKEN, `${bySubject}&from=2000-01-01&to=2000-01-02`)).map((run) => run.id)).toEqual([]);
  });

  it("are refused past 16, duplicated or malformed, and a bad time is a 400 naming its field", async () => {
    const tooMany = Array.from({ length: 17 }, (_, i) => `t${i}`);
    const cases: [unknown, string][] = [
      [tooMany, "tags"],
      [["a", "a"], "tags.1"],
      [["has space"], "tags.0"],
      [[""], "tags.0"],
    ];
    for (const [tags, path] of cases) {
      const { error } = await expectError(await post("/v1/runs", { provider: "scripted", messages: [{ role: "user", content: "hi" }], tags }), 400, "invalid-request");
      expect(error.issues?.map((issue) => issue.path)).toContain(path);
    }
    const subject = encodeURIComponent(freshSubject());
    for (const query of ["from=yesterday", "to=2026-13-45", "tag=has%20space"]) {
      const { error } = await expectError(await SELF.fetch(`${BASE}/v1/runs?subject=${subject}&${query}`, { headers: DEPLOY }), 400, "invalid-request");
      expect(error.issues?.[0]?.path).toBe(query.split("=")[0]);
    }
  });

  it("a fork keeps its source's tags", async () => {
    const source = await createWith(TEST_API_TOKEN, {
      tags: ["golden"],
      tools: ["calculator"],
      script: [{ toolCalls: [{ id: "c", name: "calculator", input: { expression: "1 + 1" } }] }, { text: "2" }],
    });
    await settle(source.run.id);
    const response = await post(`/v1/runs/${source.run.id}/fork`, { atStep: 1, script: [{ text: "two" }] });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { run: RunView }).run.tags).toEqual(["golden"]);
  });
});
