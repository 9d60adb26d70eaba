// A local push service (RFC 8030) that checks every push the way a browser's push service and the
// browser would, with code that is not the project's: the VAPID JWT's ES256 signature (node:crypto),
// its audience, expiry and contact (RFC 8292), and the payload decrypted with http_ece (the package
// web-push encrypts with; RFC 8291 aes128gcm) with the subscription's own private key. It records
// each push and answers as its subscription was told to.
//
//   POST /__control/subscriptions   { answers?: number[], retryAfter?: number, hold?: number } → a new
//                                   subscription { id, endpoint, keys: { p256dh, auth } }: the n-th push
//                                   gets answers[n-1] (then 201); retryAfter is sent with a 429; the
//                                   first `hold` pushes are recorded and never answered (held: true)
//   GET  /__control/subscriptions/<id>                  { pushes: [...] } (ReceivedPush, in arrival order)
//   GET  /__control/subscriptions/<id>/wait?count=<n>   the same, once n pushes arrived (long-poll)
//   POST /push/<id>                 a push (the subscription's endpoint)
import { createECDH, createPublicKey, randomBytes, randomUUID, verify, type ECDH } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import ece from "http_ece";
import { changes } from "../e2e/support/changes";
import { answerWhen, header, listen, sendJson, shut } from "../e2e/support/http-server";
import type { NewSubscription, ReceivedPush } from "./types";

export type { NewSubscription, ReceivedPush };

type Subscription = { id: string; endpoint: string; ecdh: ECDH; auth: string; answers: number[]; retryAfter?: number; hold: number; pushes: ReceivedPush[] };

export type SubscriptionOptions = { answers?: number[]; retryAfter?: number; hold?: number };

export type PushService = {
  url: string;
  subscribe(options?: SubscriptionOptions): NewSubscription;
  pushes(id: string): ReceivedPush[];
  /** Resolves once `check()` holds, checked again on each push that arrives. */
  until(check: () => boolean, timeoutMs: number, message: () => string): Promise<void>;
  close(): Promise<void>;
};

function readBytes(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

/** The VAPID header's checks (RFC 8292): what is wrong, and the JWT's claims when it parses. */
function checkVapid(authorization: string | undefined, publicKey: string, endpoint: string, problems: string[]): ReceivedPush["jwt"] {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? "");
  if (match === null) {
    problems.push(`Authorization is not "vapid t=…, k=…": ${authorization ?? "(none)"}`);
    return undefined;
  }
  const [, token, key] = match as unknown as [string, string, string];
  if (key !== publicKey) problems.push("k is not the deployment's VAPID public key");
  const [head, body, signature] = token.split(".") as [string, string, string];
  const header = JSON.parse(Buffer.from(head, "base64url").toString("utf8")) as { alg?: string; typ?: string };
  if (header.alg !== "ES256") problems.push(`alg is ${header.alg}`);
  const point = Buffer.from(key, "base64url");
  const verifier = createPublicKey({ key: { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33).toString("base64url") }, format: "jwk" });
  if (!verify("sha256", Buffer.from(`${head}.${body}`), { key: verifier, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"))) problems.push("the JWT's signature does not verify");
  const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { aud?: unknown; exp?: unknown; sub?: unknown };
  if (claims.aud !== new URL(endpoint).origin) problems.push(`aud is ${String(claims.aud)}, not the endpoint's origin`);
  const now = Date.now() / 1000;
  if (typeof claims.exp !== "number" || claims.exp <= now || claims.exp > now + 24 * 3600) problems.push(`exp ${String(claims.exp)} is not within the next 24 hours`);
  if (typeof claims.sub !== "string" || !/^(mailto:|https:)/.test(claims.sub)) problems.push(`sub ${String(claims.sub)} is not a mailto: or https: contact`);
  return claims;
}

export async function startPushService(vapidPublicKey: string): Promise<PushService> {
  const subscriptions = new Map<string, Subscription>();
  const changed = changes();
  let url = "";

  const subscribe = (options: SubscriptionOptions = {}): NewSubscription => {
    const id = randomUUID();
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const auth = randomBytes(16).toString("base64url");
    const subscription: Subscription = { id, endpoint: `${url}/push/${id}`, ecdh, auth, answers: options.answers ?? [], hold: options.hold ?? 0, pushes: [] };
    if (options.retryAfter !== undefined) subscription.retryAfter = options.retryAfter;
    subscriptions.set(id, subscription);
    return { id, endpoint: subscription.endpoint, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth } };
  };

  const receive = async (subscription: Subscription, request: IncomingMessage): Promise<{ status: number; headers: Record<string, string> } | "held"> => {
    const body = await readBytes(request);
    const problems: string[] = [];
    const push: ReceivedPush = { arrivedAt: Date.now(), verified: false, problems, answered: 0 };
    push.jwt = checkVapid(header(request, "authorization"), vapidPublicKey, subscription.endpoint, problems);
    if (header(request, "content-encoding") !== "aes128gcm") problems.push(`Content-Encoding is ${header(request, "content-encoding")}`);
    const ttl = header(request, "ttl");
    if (ttl === undefined || !/^\d+$/.test(ttl)) problems.push("no TTL");
    else push.ttl = ttl;
    const urgency = header(request, "urgency");
    if (urgency !== undefined) push.urgency = urgency;
    const topic = header(request, "topic");
    if (topic !== undefined) push.topic = topic;
    try {
      const plaintext = ece.decrypt(body, { version: "aes128gcm", privateKey: subscription.ecdh, authSecret: subscription.auth });
      push.payload = JSON.parse(plaintext.toString("utf8")) as Record<string, unknown>;
    } catch (error) {
      problems.push(`decryption failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    push.verified = problems.length === 0;
    if (subscription.pushes.length < subscription.hold) {
      push.held = true;
      subscription.pushes.push(push);
      changed.changed();
      return "held";
    }
    push.answered = subscription.answers[subscription.pushes.length] ?? 201;
    subscription.pushes.push(push);
    changed.changed();
    const headers: Record<string, string> = push.answered === 429 && subscription.retryAfter !== undefined ? { "retry-after": String(subscription.retryAfter) } : {};
    return { status: push.answered, headers };
  };

  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? "/", "http://localhost");
      const push = /^\/push\/([\w-]+)$/.exec(path.pathname);
      if (push !== null && request.method === "POST") {
        const subscription = subscriptions.get(push[1]!);
        if (subscription === undefined) return void response.writeHead(410).end();
        const answer = await receive(subscription, request);
        if (answer === "held") return;
        return void response.writeHead(answer.status, answer.headers).end();
      }
      if (path.pathname === "/__control/subscriptions" && request.method === "POST") {
        const options = JSON.parse((await readBytes(request)).toString("utf8") || "{}") as SubscriptionOptions;
        return sendJson(response, 200, subscribe(options));
      }
      const read = /^\/__control\/subscriptions\/([\w-]+)(\/wait)?$/.exec(path.pathname);
      const subscription = read === null ? undefined : subscriptions.get(read[1]!);
      if (subscription === undefined) return sendJson(response, 404, { error: "no such subscription" });
      if (read![2] === undefined) return sendJson(response, 200, { pushes: subscription.pushes });
      const count = Number(path.searchParams.get("count") ?? "1");
      return answerWhen(response, changed, () => subscription.pushes.length >= count, () => `${count} pushes did not arrive (${subscription.pushes.length} did)`, () => ({ pushes: subscription.pushes }));
    })();
  });
  url = `http://127.0.0.1:${await listen(server)}`;
  return {
    url,
    subscribe,
    pushes: (id) => subscriptions.get(id)?.pushes ?? [],
    until: (check, timeoutMs, message) => changed.until(check, timeoutMs, message),
    close: () => shut(server),
  };
}
