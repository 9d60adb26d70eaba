// What an ask shows, read from its input (whatever the model wrote): the question, and the choices
// that answer it with one click. The run panel's waiting form and the inbox word an ask the same.

/** The question, or a stand-in when the input has none. */
export function askQuestion(input: unknown): string {
  const question = (typeof input === "object" && input !== null ? input : {}) as { question?: unknown };
  return typeof question.question === "string" ? question.question : "The run asks you something.";
}

/** The choices that are text, in order; none when the input has no list. */
export function askChoices(input: unknown): string[] {
  const { choices } = (typeof input === "object" && input !== null ? input : {}) as { choices?: unknown };
  return Array.isArray(choices) ? choices.filter((choice): choice is string => typeof choice === "string") : [];
}
