// Small DOM helpers: find the page's elements by id (failing loudly when the HTML and the script
// disagree) and build new ones with text only, never HTML, so nothing a run says is markup.

export function byId<T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`The page has no <${type.name}> #${id}.`);
  return node;
}

type Props = { className?: string; text?: string; attrs?: Record<string, string> };

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Node[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className !== undefined) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [name, value] of Object.entries(props.attrs ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function show(node: HTMLElement, visible: boolean): void {
  node.hidden = !visible;
}

/** Dollars with enough digits for a run's small costs. */
/** The exact sum of two amounts in whole micro-dollars, as the service sums them (0.012 + 0.009 is 0.021). */
export function addUsd(a: number, b: number): number {
  return (Math.round(a * 1_000_000) + Math.round(b * 1_000_000)) / 1_000_000;
}

export function money(usd: number): string {
  return `$${usd.toFixed(usd !== 0 && Math.abs(usd) < 1 ? 4 : 2)}`;
}

/** A value as short JSON for one line (tool inputs). */
export function json(value: unknown): string {
  return JSON.stringify(value) ?? "undefined";
}
