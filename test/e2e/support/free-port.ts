// A port the OS hands out (listen on port 0, then let it go), for a process that must listen on a
// port known beforehand and take the same one again after a restart (wrangler dev after SIGKILL).
import { createServer } from "node:net";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("The OS gave no port.");
  return address.port;
}
