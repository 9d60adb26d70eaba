import { describe, expect, it } from "vitest";
import { ArithmeticError, evaluate, formatNumber } from "../../src/tools/builtin/arithmetic";
import { calculatorTool } from "../../src/tools/builtin/calculator";

const context = { signal: new AbortController().signal, callId: "c1", key: "tool/1/c1" };

describe("evaluate", () => {
  it.each([
    ["1 + 2", 3],
    ["2 + 3 * 4", 14],
    ["(2 + 3) * 4", 20],
    ["10 - 4 - 3", 3],
    ["100 / 10 / 5", 2],
    ["7 % 3", 1],
    ["-7 % 3", -1],
    ["2 ^ 10", 1024],
    ["2 ^ 3 ^ 2", 512],
    ["-2 ^ 2", -4],
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["--3", 3],
    ["-(1 + 2) * 3", -9],
    ["+5", 5],
    ["1.5 * 2", 3],
    [".5 + .25", 0.75],
    ["3.", 3],
    ["1e3 + 1", 1001],
    ["2.5e-1 * 4", 1],
    ["  ( ( 1 ) )  ", 1],
    ["4 * -2", -8],
    ["9 ^ 0.5", 3],
  ])("%s = %d", (expression, expected) => {
    expect(evaluate(expression)).toBeCloseTo(expected, 12);
  });

  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["1 +", "ends too early"],
    ["(1 + 2", 'Missing ")"'],
    ["1 + 2)", 'Unexpected ")"'],
    ["1 / 0", "Division by zero"],
    ["5 % 0", "Division by zero"],
    ["2 ^ 5000", "not a finite number"],
    ["abc", 'Unexpected character "a"'],
    ["1 + 2; 3", 'Unexpected character ";"'],
    ["Math.max(1)", 'Unexpected character "M"'],
    ["1 2", "Unexpected number 2"],
    ["* 3", 'Unexpected "*"'],
    ["1..2", "Unexpected number"],
    ["(-1) ^ 0.5", "not a finite number"],
    ["x".repeat(1001), "longer than"],
    ["(".repeat(150) + "1" + ")".repeat(150), "nested too deeply"],
    ["-".repeat(150) + "1", "nested too deeply"],
  ])("%j is refused (%s)", (expression, message) => {
    expect(() => evaluate(expression)).toThrow(ArithmeticError);
    expect(() => evaluate(expression)).toThrow(message);
  });

  it("reports positions 1-based", () => {
    expect(() => evaluate("1 + $")).toThrow("position 5");
  });
});

describe("formatNumber", () => {
  it("hides binary rounding noise", () => {
    expect(formatNumber(0.1 + 0.2)).toBe("0.3");
    expect(formatNumber(-0)).toBe("0");
    expect(formatNumber(1 / 3)).toBe("0.333333333333333");
    expect(formatNumber(1024)).toBe("1024");
  });
});

describe("calculator tool", () => {
  it("answers the value as text and keeps the number as the output value", async () => {
    const output = await calculatorTool.run!({ expression: "0.1 + 0.2" }, context);
    expect(output).toEqual({ content: "0.3", value: 0.30000000000000004 });
  });

  it("reports a bad expression as an error result the model can fix", async () => {
    const output = await calculatorTool.run!({ expression: "2 +* 3" }, context);
    expect(output).toEqual({ content: 'Invalid expression: Unexpected "*" at position 4.', isError: true });
  });

  it("has a zod schema that refuses a missing expression", () => {
    expect(calculatorTool.schema!.safeParse({}).success).toBe(false);
    expect(calculatorTool.schema!.safeParse({ expression: "1" }).success).toBe(true);
  });
});
