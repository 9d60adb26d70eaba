// The last lines of a benchmark that checks what it measures: each failure as a FAIL line and exit
// code 1, or the OK line (when it has one).
export function verdict(failures: readonly string[], log: (line: string) => void, ok?: string): void {
  if (failures.length > 0) {
    for (const failure of failures) log(`FAIL ${failure}`);
    process.exitCode = 1;
  } else if (ok !== undefined) log(ok);
}
