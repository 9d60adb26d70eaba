// Calls into storage a run makes (`npm run bench:calls`): its creation (POST /v1/runs), a view
// (GET /v1/runs/:id), and its alarm's slice, per agent step and beside its steps. Printed, never
// asserted. Each call (`sql.exec`, `sql.databaseSize`, the alarm's get, set and delete) costs about
// a bare insert in the runtime, and under `wrangler dev`'s local tracing (on by default since
// wrangler's miniflare 5) one span each, which is most of what a step costs there
// (BENCHMARKS.md "The step under local tracing"); the steps a slice runs in one turn are one
// statement together (src/durable/engine/journal/step-rows.ts). Counted by wrapping the storage classes' own
// methods in this isolate while each part runs (test/helpers/storage-calls.ts).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { storageCalls, tally } from "../test/helpers/storage-calls";
import { describe, it } from "vitest";
import { bearer, call, postJson } from "../test/helpers/http";
import { stubFor } from "../test/helpers/runs";

const log = (line: string) => console.log(`[bench:calls] ${line}`);
const TURNS = 90;

type Counts = Map<string, number>;

/** Every call into SQLite and the alarm while `work` runs, counted by the statement's first words (test/helpers/storage-calls.ts). */
const counted = async (work: () => Promise<unknown>): Promise<Counts> => tally(await storageCalls(work));

const total = (counts: Counts) => [...counts.values()].reduce((sum, n) => sum + n, 0);
const listing = (counts: Counts) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([label, n]) => `${n} ${label}`)
    .join("; ");

describe("calls into storage", () => {
  it("a run's creation, its views and its alarm", async () => {
    const script = [...Array.from({ length: TURNS }, (_v, i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} * 2` } }] })), { text: "done" }];
    let created: { run: { id: string }; token: string } | undefined;
    const create = await counted(async () => {
      const response = await postJson("/v1/runs", { provider: "scripted", messages: [{ role: "user", content: "go" }], tools: ["calculator"], maxSteps: TURNS + 1, script });
      created = (await response.json()) as { run: { id: string }; token: string };
      if (response.status !== 201) throw new Error(JSON.stringify(created));
    });
    const { run, token } = created!;
    const view = () => call(`/v1/runs/${run.id}`, { headers: bearer(token) }).then((response) => response.json());
    const running = await counted(view);
    const alarm = await counted(() => runDurableObjectAlarm(stubFor(run.id)));
    const finished = await counted(view);
    // A step's own statement, or the statement of the steps a slice ran in one turn (src/durable/engine/journal/step-rows.ts).
    const isCommit = (label: string) => label.startsWith("exec INSERT INTO step_commit_v1");
    const commits = [...alarm].filter(([label]) => isCommit(label)).reduce((sum, [, n]) => sum + n, 0);
    const journalSteps = await runInDurableObject(stubFor(run.id) as unknown as DurableObjectStub, (_instance, state) => state.storage.sql.exec("SELECT key FROM journal").toArray().length);
    log(`a run of ${TURNS} agent steps (a scripted model call and a calculator call each; ${journalSteps} journal steps):`);
    log(`  creation (POST /v1/runs): ${total(create)} calls: ${listing(create)}`);
    log(`  a view while it runs (GET /v1/runs/:id): ${total(running)} calls: ${listing(running)}`);
    log(`  its alarm: ${total(alarm)} calls, ${(total(alarm) / TURNS).toFixed(2)} per agent step: ${commits} statements commit its ${journalSteps} journal steps, ${total(alarm) - commits} beside them: ${listing(new Map([...alarm].filter(([label]) => !isCommit(label))))}`);
    log(`  a view once it finished: ${total(finished)} calls`);
    log(`  in all, a run seen finished by two views: ${total(create) + total(running) + total(alarm) + total(finished)} calls, ${((total(create) + total(running) + total(alarm) + total(finished)) / TURNS).toFixed(2)} per agent step`);
  });
});
