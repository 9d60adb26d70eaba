// A small arithmetic evaluator for the calculator tool: a recursive-descent parser over numbers,
// + - * / % ^, parentheses and unary minus. No eval or Function: the model's text is data only.
//
//   expression := term (("+" | "-") term)*
//   term       := unary (("*" | "/" | "%") unary)*
//   unary      := ("-" | "+") unary | power
//   power      := atom ("^" unary)?          right-associative; -2^2 = -(2^2), 2^-1 = 0.5
//   atom       := number | "(" expression ")"

export class ArithmeticError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArithmeticError";
  }
}

const MAX_LENGTH = 1000;
/** Deep enough for any sensible expression, shallow enough to never overflow the stack. */
const MAX_DEPTH = 100;

type Token = { kind: "number"; value: number; at: number } | { kind: "op"; op: string; at: number };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const number = /\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    if ("+-*/%^()".includes(char)) {
      tokens.push({ kind: "op", op: char, at });
      at++;
      continue;
    }
    number.lastIndex = at;
    const match = number.exec(text);
    if (match === null) throw new ArithmeticError(`Unexpected character "${char}" at position ${at + 1}.`);
    tokens.push({ kind: "number", value: Number(match[0]), at });
    at = number.lastIndex;
  }
  return tokens;
}

class Parser {
  private index = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): number {
    if (this.tokens.length === 0) throw new ArithmeticError("The expression is empty.");
    const value = this.expression();
    const rest = this.tokens[this.index];
    if (rest !== undefined) throw new ArithmeticError(`Unexpected ${describe(rest)} at position ${rest.at + 1}.`);
    return value;
  }

  private peekOp(...ops: string[]): string | undefined {
    const token = this.tokens[this.index];
    return token?.kind === "op" && ops.includes(token.op) ? token.op : undefined;
  }

  private expression(): number {
    let value = this.term();
    for (let op = this.peekOp("+", "-"); op !== undefined; op = this.peekOp("+", "-")) {
      this.index++;
      const right = this.term();
      value = op === "+" ? value + right : value - right;
    }
    return value;
  }

  private term(): number {
    let value = this.unary();
    for (let op = this.peekOp("*", "/", "%"); op !== undefined; op = this.peekOp("*", "/", "%")) {
      this.index++;
      const right = this.unary();
      if ((op === "/" || op === "%") && right === 0) throw new ArithmeticError("Division by zero.");
      value = op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  }

  private unary(): number {
    const op = this.peekOp("-", "+");
    if (op === undefined) return this.power();
    this.index++;
    return this.nested(() => (op === "-" ? -this.unary() : this.unary()));
  }

  private power(): number {
    const base = this.atom();
    if (this.peekOp("^") === undefined) return base;
    this.index++;
    return this.nested(() => base ** this.unary());
  }

  private atom(): number {
    const token = this.tokens[this.index];
    if (token === undefined) throw new ArithmeticError("The expression ends too early.");
    if (token.kind === "number") {
      this.index++;
      return token.value;
    }
    if (token.op === "(") {
      this.index++;
      const value = this.nested(() => this.expression());
      if (this.peekOp(")") === undefined) throw new ArithmeticError(`Missing ")" for the "(" at position ${token.at + 1}.`);
      this.index++;
      return value;
    }
    throw new ArithmeticError(`Unexpected ${describe(token)} at position ${token.at + 1}.`);
  }

  private nested(inner: () => number): number {
    if (++this.depth > MAX_DEPTH) throw new ArithmeticError("The expression is nested too deeply.");
    try {
      return inner();
    } finally {
      this.depth--;
    }
  }
}

function describe(token: Token): string {
  return token.kind === "number" ? `number ${token.value}` : `"${token.op}"`;
}

/** The value of `text`, or an ArithmeticError that says what is wrong with it. */
export function evaluate(text: string): number {
  if (text.length > MAX_LENGTH) throw new ArithmeticError(`The expression is longer than ${MAX_LENGTH} characters.`);
  const value = new Parser(tokenize(text)).parse();
  if (!Number.isFinite(value)) throw new ArithmeticError("The result is not a finite number.");
  return value;
}

/** A result as people write it: 0.1 + 0.2 shows as 0.3, not 0.30000000000000004. */
export function formatNumber(value: number): string {
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? "0" : String(rounded);
}
