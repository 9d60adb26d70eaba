import { describe, expect, it } from "vitest";
import { jsonSchemaValidator, pointerToPath } from "../../src/tools/json-schema";

const schema = {
  type: "object",
  required: ["city"],
  additionalProperties: false,
  properties: {
    city: { type: "string", minLength: 1 },
    days: { type: "integer", minimum: 1 },
    tags: { type: "array", items: { type: "string" } },
    where: { type: "object", properties: { lat: { type: "number" } } },
    unit: { anyOf: [{ const: "c" }, { const: "f" }] },
  },
};

describe("jsonSchemaValidator", () => {
  const validate = jsonSchemaValidator(schema);

  it("passes valid input through unchanged", () => {
    const input = { city: "Paris", days: 2, tags: ["a"], where: { lat: 1.5 }, unit: "c" };
    expect(validate(input)).toEqual({ ok: true, value: input });
  });

  it("reports every problem once, with zod-like dotted paths and no summary noise", () => {
    const result = validate({ days: 0, tags: ["a", 3], where: { lat: "north" }, unit: "k", extra: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(["", "", "days", "tags.1", "unit", "where.lat"]);
    expect(result.issues.find((issue) => issue.path === "tags.1")!.message).toContain("Expected \"string\"");
    expect(result.issues.some((issue) => issue.message.includes('"city"'))).toBe(true);
    expect(result.issues.some((issue) => issue.message.includes('"extra"'))).toBe(true);
    expect(result.issues.some((issue) => issue.message.includes("does not match schema"))).toBe(false);
  });

  it("refuses a missing input instead of throwing", () => {
    expect(validate(undefined)).toEqual({ ok: false, issues: [{ path: "", message: "The input is missing." }] });
  });

  it("reports a schema it cannot apply instead of throwing", () => {
    const broken = jsonSchemaValidator({ $ref: "#/$defs/missing" });
    const result = broken({});
    expect(result.ok).toBe(false);
  });

  it("turns JSON Pointers into dotted paths", () => {
    expect(pointerToPath("#")).toBe("");
    expect(pointerToPath("#/a/b/0")).toBe("a.b.0");
    expect(pointerToPath("#/a~1b/c~0d")).toBe("a/b.c~d");
    expect(pointerToPath("#/sp%20ace")).toBe("sp ace");
  });
});
