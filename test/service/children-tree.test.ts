// MAX_TREE_RUNS (200): the runs one tree (a top-level run and all its descendants) may hold, counted
// by the root (src/durable/children/tree-store.ts) whatever the depth; the agent call past it gets an
// error result naming the setting. And the crash point: a start that the root counted but that
// crashed before its parent wrote its row is counted once when it is made again.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { childCredentials } from "../../src/durable/children/child-deps";
import { agentTool, callAgents, childRows, driveTree } from "../helpers/children";
import { createRun, drive, stubFor, valueOf, viewOf } from "../helpers/runs";

type Message = { role: string; toolCallId?: string; content: unknown; isError?: boolean };

async function toolResults(id: string): Promise<Message[]> {
  const { messages } = valueOf(await stubFor(id).messages());
  return (messages as Message[]).filter((message) => message.role === "tool");
}

/** Seeds the root's count with `n` descendants (as if the tree had started them earlier), plus `ids`. */
async function seedTree(rootId: string, n: number, ids: string[] = []): Promise<void> {
  await runInDurableObject(stubFor(rootId), (_instance, state) => {
    state.storage.sql.exec("CREATE TABLE IF NOT EXISTS tree_run (run_id TEXT PRIMARY KEY)");
    for (let i = 0; i < n; i++) state.storage.sql.exec("INSERT INTO tree_run (run_id) VALUES (?)", `seeded_${i}`);
    for (const id of ids) state.storage.sql.exec("INSERT INTO tree_run (run_id) VALUES (?)", id);
  });
}

const treeCount = (rootId: string) =>
  runInDurableObject(stubFor(rootId), (_instance, state) => Number(state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM tree_run").one().n));

describe("MAX_TREE_RUNS", () => {
  it("the root's call past the tree's 200 runs gets an error result naming MAX_TREE_RUNS, and starts nothing", async () => {
    const { id, stub } = await createRun({
      tools: [agentTool("a", [{ text: "x" }])],
      minAnswerChars: 0,
      budget: { usd: 1 },
      script: [callAgents([["c1", "a", "1"], ["c2", "a", "2"]]), { text: "ok" }],
    });
    // The root and 198 descendants: one more fits, the next does not.
    await seedTree(id, 198);
    await drive(stub);
    const rows = await childRows(id);
    expect(rows).toHaveLength(1);
    expect(await treeCount(id)).toBe(199);
    await driveTree(id);
    const results = await toolResults(id);
    const refused = results.find((result) => result.toolCallId === "c2");
    expect(refused).toMatchObject({ isError: true });
    expect(String(refused!.content)).toMatch(/^Not run: tree .*MAX_TREE_RUNS/);
  });

  it("a grandchild counts at the root: a child's call past the tree's limit gets the error result", async () => {
    const grandchild = agentTool("leaf", [{ text: "leaf" }]);
    const { id, stub } = await createRun({
      tools: [agentTool("middle", [callAgents([["g1", "leaf", "deeper"]]), { text: "middle done" }], { tools: [grandchild] })],
      minAnswerChars: 0,
      budget: { usd: 1 },
      script: [callAgents([["c1", "middle", "1"]]), { text: "ok" }],
    });
    await seedTree(id, 198);
    await drive(stub);
    const [child] = (await viewOf(stub)).children!;
    // The root, 198 seeded and the child: 200. The child's own call is one too many.
    expect(await treeCount(id)).toBe(199);
    await driveTree(child!.id);
    const [result] = await toolResults(child!.id);
    expect(result).toMatchObject({ isError: true });
    expect(String(result!.content)).toMatch(/^Not run: tree .*MAX_TREE_RUNS/);
    expect(await childRows(child!.id)).toEqual([]);
  });

  it("a start the root counted, crashed before the parent wrote its row, is counted once when made again", async () => {
    const { id, stub } = await createRun({
      tools: [agentTool("a", [{ text: "x" }])],
      minAnswerChars: 0,
      budget: { usd: 1 },
      script: [callAgents([["c1", "a", "1"]]), { text: "ok" }],
    });
    // The crash left the root's count with the child (its id is the call's), and no child_run row.
    const { id: childId } = await childCredentials(env, id, "s1/start/1/c1");
    await seedTree(id, 198, [childId]);
    await drive(stub);
    // The tree holds 200 runs with it; asked again, the same place is given, not a new one refused.
    expect((await childRows(id)).map((row) => row.child_id)).toEqual([childId]);
    expect(await treeCount(id)).toBe(199);
  });
});
