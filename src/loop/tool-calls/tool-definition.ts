import { z } from "zod";
import type { AnyToolSpec, ToolDefinition, Validation } from "../types";

/** The definition the model sees: JSON Schema of the tool's input, without `$schema`. */
export function toToolDefinition(spec: AnyToolSpec): ToolDefinition {
  const definition: ToolDefinition = { name: spec.name, description: spec.description, inputSchema: inputSchemaOf(spec) };
  if (spec.native !== undefined) definition.native = spec.native;
  return definition;
}

/** A provider tool (run by the provider itself) as the request lists it: its own entry, named by its `name`. */
export function providerToolDefinition(spec: Record<string, unknown>): ToolDefinition {
  const name = typeof spec.name === "string" ? spec.name : String(spec.type);
  return { name, description: "", inputSchema: { type: "object" }, native: spec };
}

/**
 * Each zod schema's JSON Schema as first made: a built-in tool's schema is one object for the life
 * of the isolate, and every slice lists its tools again. Each caller gets its own copy.
 */
const jsonSchemas = new WeakMap<object, Record<string, unknown>>();

function inputSchemaOf(spec: AnyToolSpec): Record<string, unknown> {
  if (spec.schema !== undefined) {
    let made = jsonSchemas.get(spec.schema);
    if (made === undefined) {
      const { $schema: _dropped, ...schema } = z.toJSONSchema(spec.schema, { io: "input" }) as Record<string, unknown>;
      jsonSchemas.set(spec.schema, (made = schema));
    }
    return structuredClone(made);
  }
  if (spec.inputSchema !== undefined) return spec.inputSchema;
  if (spec.native !== undefined) return { type: "object" };
  throw new Error(`Tool ${spec.name} has neither schema nor inputSchema.`);
}

export function validateInput(spec: AnyToolSpec, input: unknown): Validation<unknown> {
  if (spec.schema !== undefined) {
    const parsed = spec.schema.safeParse(input);
    if (parsed.success) return { ok: true, value: parsed.data };
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    };
  }
  if (spec.validate !== undefined) return spec.validate(input);
  return { ok: true, value: input };
}
