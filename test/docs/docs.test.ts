// The reference docs against the code, so that they cannot drift apart unnoticed: the operations,
// status codes, bodies, types and events of the OpenAPI document the Worker serves (generated from
// the schemas that check requests) against docs/api.md; the settings the Worker reads against
// docs/configuration.md and README.md; and every link to a heading against the heading. The files
// come from test/docs/global-setup.ts.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { call } from "../helpers/http";
import { codeSpans, headings, linkTargets, section, tables, typeFields } from "./markdown";
import { workerNames } from "./settings";

type Schema = { properties?: Record<string, Schema>; enum?: string[]; oneOf?: Schema[]; allOf?: Schema[]; $ref?: string };
type OpenApi = {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, Schema> };
};

const files = inject("repoFiles");

function file(path: string): string {
  const text = files[path];
  if (text === undefined) throw new Error(`${path} was not provided by test/docs/global-setup.ts.`);
  return text;
}

const api = file("docs/api.md");
let doc: OpenApi;

beforeAll(async () => {
  const response = await call("/v1/openapi.json");
  expect(response.status).toBe(200);
  doc = (await response.json()) as OpenApi;
});

function schema(name: string): Schema {
  const found = doc.components.schemas[name];
  if (found === undefined) throw new Error(`The OpenAPI document has no schema ${name}.`);
  return found;
}

function resolve(node: Schema): Schema {
  return node.$ref === undefined ? node : schema(node.$ref.replace("#/components/schemas/", ""));
}

const propertiesOf = (name: string) => Object.keys(schema(name).properties ?? {}).sort();
const sorted = (values: Iterable<string>) => [...values].sort();

/** "METHOD /path" of every operation the Worker serves, with its status codes. */
function operations(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) found.set(`${method.toUpperCase()} ${path}`, Object.keys(operation.responses).sort());
  }
  return found;
}

/** The first table of `text` whose header starts with `first`. */
function tableOf(text: string, first: string) {
  const table = tables(text).find((candidate) => candidate.header[0] === first);
  if (table === undefined) throw new Error(`No table whose header starts with "${first}".`);
  return table;
}

/** The code spans of the first cell of each row. */
const firstCells = (table: { rows: string[][] }) => table.rows.flatMap((row) => codeSpans(row[0] ?? ""));

describe("docs/api.md against the OpenAPI document", () => {
  it("has a section `### \\`METHOD /path\\`` for every operation, and none for an operation that does not exist", () => {
    const sections = headings(api)
      .filter((heading) => heading.level === 3)
      .flatMap((heading) => /^`((?:GET|POST|PUT|PATCH|DELETE) \/\S*)`$/.exec(heading.text)?.[1] ?? []);
    expect(sorted(sections)).toEqual(sorted(operations().keys()));
  });

  it("lists every operation in the endpoints table with the status codes the document gives it", () => {
    const table = tableOf(section(api, "Endpoints"), "Method and path");
    const listed = new Map(table.rows.map((row) => [codeSpans(row[0]!)[0]!, row.at(-1)!.split(/,\s*/).sort()]));
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(operations()));
  });

  it("has a row in the events table for every event type of StoredEvent, naming each of its fields", () => {
    const events = resolve(schema("StoredEvent").allOf![0]!).oneOf!;
    const table = tables(section(api, "Events")).find((candidate) => candidate.header[1] === "Fields")!;
    const rows = new Map(table.rows.map((row) => [codeSpans(row[0]!)[0]!, codeSpans(row[1]!)]));
    const types = events.map((event) => event.properties!.type!.enum![0]!);
    expect(sorted(rows.keys())).toEqual(sorted(types));
    for (const event of events) {
      const type = event.properties!.type!.enum![0]!;
      const fields = Object.keys(event.properties!).filter((field) => field !== "type");
      expect(fields.filter((field) => !rows.get(type)!.includes(field)), `fields of ${type} missing from its row`).toEqual([]);
    }
  });

  it("writes each type with exactly the fields of its schema", () => {
    for (const name of ["RunView", "PendingCall", "WebhookDelivery", "RunSummary", "InboxEvent", "ScheduleView", "ScheduleFire", "Dataset", "DatasetCase", "Experiment", "ExperimentProgress", "ExperimentCase", "Divergence"]) {
      expect(sorted(typeFields(api, name)), name).toEqual(propertiesOf(name));
    }
  });

  it("has a row in the experiment events table for every type of ExperimentEvent, naming each of its fields", () => {
    const events = resolve(schema("ExperimentEvent")).oneOf!.map(resolve);
    const table = tableOf(section(api, "Experiment events"), "`type`");
    const rows = new Map(table.rows.map((row) => [codeSpans(row[0]!)[0]!, codeSpans(row[1]!)]));
    expect(sorted(rows.keys())).toEqual(sorted(events.map((event) => event.properties!.type!.enum![0]!)));
    for (const event of events) {
      const type = event.properties!.type!.enum![0]!;
      expect(sorted(rows.get(type)!), `the fields of ${type}`).toEqual(sorted(Object.keys(event.properties!).filter((field) => field !== "type")));
    }
  });

  it("names every field of an HTTP tool in ToolRef", () => {
    const toolRef = section(api, "ToolRef");
    expect(propertiesOf("HttpToolRef").filter((field) => !new RegExp(`\\b${field}\\??:`).test(toolRef))).toEqual([]);
  });

  it("has a row for every field of each request body, and none for a field that does not exist", () => {
    const bodies = {
      "`POST /v1/runs`": "CreateRunBody",
      "`POST /v1/runs/{id}/answer`": "AnswerBody",
      "`POST /v1/runs/{id}/messages`": "ContinueBody",
      "`POST /v1/runs/{id}/compact`": "CompactBody",
      "`POST /v1/runs/{id}/calls/{callKey}/result`": "CallResult",
      "`POST /v1/tokens`": "MintTokenBody",
      "`POST /v1/schedules`": "CreateScheduleBody",
      "`PATCH /v1/schedules/{id}`": "UpdateScheduleBody",
    };
    for (const [title, name] of Object.entries(bodies)) {
      expect(sorted(firstCells(tableOf(section(api, title), "Field"))), title).toEqual(propertiesOf(name));
    }
  });

  it("has a row for every inbox event type and every webhook type", () => {
    expect(sorted(firstCells(tableOf(section(api, "Inbox events"), "`type`")))).toEqual(sorted(schema("InboxEvent").properties!.type!.enum!));
    expect(sorted(firstCells(tableOf(section(api, "Webhooks"), "`type`")))).toEqual(sorted(schema("WebhookDelivery").properties!.type!.enum!));
  });
});

describe("the settings the Worker reads", () => {
  const { settings, storage } = workerNames(file("secrets.types.env"), file("wrangler.toml"));
  /** Not a Worker setting: read by the console's build (docs/configuration.md#console). */
  const BUILD_SWITCHES = ["CONSOLE"];

  it("are found in secrets.types.env and wrangler.toml", () => {
    expect(settings).toEqual(expect.arrayContaining(["API_TOKEN", "DEFAULT_MODEL", "CREATE_RATE_LIMIT"]));
    expect(storage).toEqual(expect.arrayContaining(["RUNS", "BLOBS"]));
  });

  it("each have a row in docs/configuration.md's summary, which names nothing else", () => {
    const listed = firstCells(tableOf(section(file("docs/configuration.md"), "Summary"), "Name"));
    expect(sorted(settings.filter((name) => !listed.includes(name))), "missing").toEqual([]);
    expect(sorted(storage.filter((name) => !listed.includes(name))), "missing").toEqual([]);
    expect(sorted(listed.filter((name) => ![...settings, ...storage, ...BUILD_SWITCHES].includes(name))), "unknown").toEqual([]);
  });

  it("each have a row in README.md's configuration table, which names nothing else", () => {
    const listed = firstCells(tableOf(section(file("README.md"), "Configuration"), "name"));
    expect(sorted(settings.filter((name) => !listed.includes(name))), "missing").toEqual([]);
    expect(sorted(listed.filter((name) => ![...settings, ...BUILD_SWITCHES].includes(name))), "unknown").toEqual([]);
  });
});

describe("links", () => {
  /** `target` (relative to the file `from`) as a path from the repository's root. */
  function join(from: string, target: string): string {
    const parts = from.split("/").slice(0, -1);
    for (const part of target.split("/")) {
      if (part === "..") parts.pop();
      else if (part !== ".") parts.push(part);
    }
    return parts.join("/");
  }

  it("to a heading of a Markdown file lead to a heading that exists", () => {
    const broken: string[] = [];
    for (const [path, text] of Object.entries(files).filter(([name]) => name.endsWith(".md"))) {
      for (const target of linkTargets(text)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [file, anchor] = target.split("#") as [string, string | undefined];
        const into = file === "" ? path : join(path, file);
        if (!into.endsWith(".md")) continue;
        const linked = files[into];
        if (linked === undefined) broken.push(`${path}: ${target} (no file ${into})`);
        else if (anchor !== undefined && !headings(linked).some((heading) => heading.anchor === anchor)) broken.push(`${path}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
