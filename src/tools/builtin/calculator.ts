// The built-in calculator: exact enough arithmetic for a model that should not do sums in its
// head. A bad expression is an error result that says what is wrong, so the model can fix it.
import { z } from "zod";
import type { ToolSpec } from "../../loop/types";
import { ArithmeticError, evaluate, formatNumber } from "./arithmetic";

const calculatorInput = z.object({
  expression: z.string().min(1).describe('An arithmetic expression, for example "(2 + 3.5) * 4 ^ 2 % 7".'),
});

export const calculatorTool: ToolSpec<z.infer<typeof calculatorInput>> = {
  name: "calculator",
  description:
    "Evaluate an arithmetic expression: numbers (decimals allowed), + - * / % (remainder), ^ (power), " +
    "parentheses and unary minus.",
  schema: calculatorInput,
  answersAtOnce: true,
  async run({ expression }) {
    try {
      const value = evaluate(expression);
      return { content: formatNumber(value), value };
    } catch (error) {
      if (error instanceof ArithmeticError) return { content: `Invalid expression: ${error.message}`, isError: true };
      throw error;
    }
  },
};
