// A port for a process this test starts (wrangler dev), taken from the OS: a server listens on
// port 0, the OS names a free port, the server closes and the port is handed on. Never a fixed or
// random number, which two test files (or two engineers' runs) could pick at once.
import { createServer } from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("the OS named no port"))));
    });
  });
}
