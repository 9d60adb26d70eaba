// Bad requests, one table: each gets its documented status and error code in the one error shape,
// no stack trace, and leaves every run as it was and no new run behind. These need a working run
// object (src/durable), so they also test the edge and the object together. The rows are in
// test/helpers/bad-input/, one table a file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../helpers/http";
import { callbackCases } from "../helpers/bad-input/callback-cases";
import { createCases } from "../helpers/bad-input/create-cases";
import { inboxCases } from "../helpers/bad-input/inbox-cases";
import { runCases } from "../helpers/bad-input/run-cases";
import { buildWorld, snapshot, tearDownWorld, world } from "../helpers/bad-input/world";

beforeAll(buildWorld);
afterAll(tearDownWorld);

describe("bad requests", () => {
  it("the table is big enough", () => {
    expect(createCases.length + runCases.length + inboxCases.length + callbackCases.length).toBeGreaterThanOrEqual(80);
  });

  it.each([...createCases, ...runCases, ...inboxCases, ...callbackCases].map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const before = await snapshot();
    const body = await expectError(await c.send(world), c.status, c.code);
    if (c.path !== undefined) expect(body.error.issues?.map((issue) => issue.path)).toContain(c.path);
    const after = await snapshot();
    expect(after.runs).toEqual(before.runs);
    if (c.unknownId !== true) expect(after.objects).toBe(before.objects);
  });
});
