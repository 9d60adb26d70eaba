// Command-line settings of the benchmarks run by bench/ts.mjs: `--name value`.

/** The number after `--name` on the command line, or `fallback` when it is not given. */
export function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}
