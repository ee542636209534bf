/**
 * A local server that speaks Upstash's documented REST protocol in front of a real redis-server, so
 * that `@upstash/redis` (and every store over it) is tested against real Redis semantics on
 * 127.0.0.1, never against a hosted database:
 *
 * - `POST /` with a command as a JSON array (`["SET", "k", "v", "PX", 100, "NX"]`) answers
 *   `{ "result": ... }`, or `{ "error": "..." }` with 400 when Redis refused the command;
 * - `POST /pipeline` with an array of commands answers an array of `{ result } | { error }` (200);
 * - `POST /multi-exec` runs them in one MULTI/EXEC transaction, answered the same way;
 * - `Authorization: Bearer <token>` on every request, else 401 `{ error: "Unauthorized" }`;
 * - with `Upstash-Encoding: base64` (what `@upstash/redis` asks for by default) every string in a
 *   result is base64, except a top-level `OK` status; nil is `null`, an integer a JSON number;
 * - every answer carries an `upstash-sync-token` header (read-your-writes), a counter per answer.
 *
 * EVAL, EVALSHA and SCRIPT LOAD pass through like any command. Upstash accepts a shebang flag of its
 * own, `#!lua flags=allow-key-locking` (`@upstash/ratelimit`'s scripts carry it), which redis-server
 * refuses: the server drops that flag before Redis sees the script and answers by the SHA-1 of the
 * script as sent, so EVALSHA finds it as it would on Upstash. The server counts round trips (HTTP
 * requests) and the commands in them, and can be told to stall (hold every request unanswered; the
 * commands do not reach Redis while held: on `heal` the held connections are dropped, or run late in
 * the order of arrival or the reverse, as a network may deliver them) or to answer
 * a 5xx, for the outage suites. It talks to Redis over one pipelined RESP connection of its own
 * (commands of one HTTP request are written together, so a MULTI/EXEC is never interleaved), which
 * needs no Redis client library here.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startRedis, type TestRedis } from "./redis-server.ts";

/** One RESP2 reply: a bulk string as bytes, a status, an error, an integer, nil or an array. */
export type RespReply = Buffer | { status: string } | { error: string } | number | null | RespReply[];

/** The largest request body the server reads (a pipeline of many commands fits). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

function isError(reply: RespReply): reply is { error: string } {
  return typeof reply === "object" && reply !== null && !Array.isArray(reply) && "error" in reply;
}

function encodeCommand(args: readonly string[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(arg, "utf8");
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `at`; `undefined` when the buffer does not hold all of it yet. */
function parseReply(buffer: Buffer, at: number): { reply: RespReply; next: number } | undefined {
  const lineEnd = buffer.indexOf("\r\n", at);
  if (lineEnd === -1) return undefined;
  const line = buffer.toString("utf8", at + 1, lineEnd);
  const after = lineEnd + 2;
  switch (String.fromCharCode(buffer[at]!)) {
    case "+":
      return { reply: { status: line }, next: after };
    case "-":
      return { reply: { error: line }, next: after };
    case ":":
      return { reply: Number(line), next: after };
    case "$": {
      const length = Number(line);
      if (length < 0) return { reply: null, next: after };
      if (buffer.length < after + length + 2) return undefined;
      return { reply: buffer.subarray(after, after + length), next: after + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { reply: null, next: after };
      const items: RespReply[] = [];
      let next = after;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, next);
        if (item === undefined) return undefined;
        items.push(item.reply);
        next = item.next;
      }
      return { reply: items, next };
    }
    default:
      throw new Error(`unexpected RESP reply from redis-server: ${JSON.stringify(line)}`);
  }
}

/** One pipelined RESP connection: replies come back in the order the commands were written. */
class RespConnection {
  readonly #socket: Socket;
  readonly #waiting: { resolve(reply: RespReply): void; reject(error: Error): void }[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #failure: Error | undefined;

  constructor(port: number) {
    this.#socket = connect({ host: "127.0.0.1", port });
    this.#socket.setNoDelay(true);
    this.#socket.on("data", (chunk: Buffer) => this.#read(chunk));
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#failure);
    };
    this.#socket.on("error", fail);
    this.#socket.on("close", () => fail(new Error("the connection to redis-server closed")));
  }

  get broken(): boolean {
    return this.#failure !== undefined;
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    let at = 0;
    for (;;) {
      if (at >= this.#buffer.length) break;
      const parsed = parseReply(this.#buffer, at);
      if (parsed === undefined) break;
      at = parsed.next;
      this.#waiting.shift()?.resolve(parsed.reply);
    }
    this.#buffer = this.#buffer.subarray(at);
  }

  /** Writes every command at once (nothing of another request lands between them); one reply each. */
  send(commands: readonly (readonly string[])[]): Promise<RespReply[]> {
    if (this.#failure) return Promise.reject(this.#failure);
    const replies = commands.map(
      () => new Promise<RespReply>((resolve, reject) => this.#waiting.push({ resolve, reject })),
    );
    this.#socket.write(Buffer.concat(commands.map(encodeCommand)));
    return Promise.all(replies);
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** A reply as Upstash renders it in JSON: strings base64 when asked (a top-level `OK` status stays). */
export function renderResult(reply: RespReply, base64: boolean, top = true): unknown {
  if (reply === null || typeof reply === "number") return reply;
  if (Buffer.isBuffer(reply)) return reply.toString(base64 ? "base64" : "utf8");
  if (Array.isArray(reply)) return reply.map((item) => renderResult(item, base64, false));
  const text = "status" in reply ? reply.status : reply.error;
  if (top && text === "OK") return text;
  return base64 ? Buffer.from(text, "utf8").toString("base64") : text;
}

/** What the server does with the next requests. */
export type UpstashRestMode = { kind: "healthy" } | { kind: "stall" } | { kind: "fail"; status: number };

/** One round trip as the server received it. */
export interface UpstashRoundTrip {
  /** `/`, `/pipeline` or `/multi-exec`. */
  path: string;
  /** The command names (upper case) it carried. */
  commands: string[];
  /** The `upstash-sync-token` the client sent back (read-your-writes), if any. */
  syncToken: string | undefined;
}

/** One command Redis answered, as {@link UpstashRest.observe} reports it. */
export interface ObservedReply {
  /** The command and its arguments as sent. */
  command: string[];
  /** Redis's reply. */
  reply: RespReply;
  /**
   * When Redis ran it, in ms on Redis's own clock (`TIME`, asked right behind the command on the same
   * connection), so a busy test process does not blur the times of several processes' commands.
   */
  at: number;
}

/** A running REST server. */
export interface UpstashRest {
  /** `http://127.0.0.1:<port>`: the `url` of `new Redis({ url, token })`. */
  readonly url: string;
  /** The token every request must carry as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Every round trip since the start (or the last `resetCounts`), in order of arrival. */
  readonly roundTrips: UpstashRoundTrip[];
  /** Forgets the round trips counted so far. */
  resetCounts(): void;
  /**
   * Calls `listener` with every command Redis answers from now on (what a benchmark reads the
   * decisions of several processes from, on one clock); returns the function that stops it.
   */
  observe(listener: (reply: ObservedReply) => void): () => void;
  /** Holds every request from now on unanswered (its commands never reach Redis) until `heal`. */
  stall(): void;
  /** Answers every request from now on with `status` and `{ error }`, running nothing, until `heal`. */
  fail(status?: number): void;
  /**
   * Back to normal. The requests held by a stall are dropped (their commands never ran), or with
   * `late` run now, one after another in the order they arrived (`"in-order"`) or the reverse
   * (`"reversed"`: a network that delivers a later request first), and answered to whoever still waits.
   */
  heal(late?: "in-order" | "reversed"): Promise<void>;
  /** Stops the server (dropping every connection) and its connection to Redis. */
  close(): Promise<void>;
}

/** Options of {@link startUpstashRest}. */
export interface UpstashRestOptions {
  /** The port of the redis-server to front (on 127.0.0.1). */
  redisPort: number;
  /** The bearer token (default: a random one). */
  token?: string;
}

/** Shebang flags Upstash accepts and redis-server does not. */
const UPSTASH_ONLY_FLAGS = new Set(["allow-key-locking"]);

function sha1(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex");
}

/** `script` without the Upstash-only shebang flags, or `undefined` when it has none. */
function withoutUpstashFlags(script: string): string | undefined {
  const header = /^#!lua([^\n]*)/.exec(script);
  const flags = header && /(^|\s)flags=(\S*)/.exec(header[1]!);
  if (!header || !flags) return undefined;
  const all = flags[2]!.split(",").filter(Boolean);
  const kept = all.filter((flag) => !UPSTASH_ONLY_FLAGS.has(flag));
  if (kept.length === all.length) return undefined;
  const rest = header[1]!.replace(flags[0], kept.length > 0 ? `${flags[1]}flags=${kept.join(",")}` : "");
  return `#!lua${rest.trimEnd()}${script.slice(header[0].length)}`;
}

/**
 * Rewrites scripts carrying Upstash-only flags for redis-server, remembering which SHA-1 the client
 * knows each by (`shas`: as sent -> as Redis knows it), and EVALSHA's SHA-1 to Redis's.
 */
function forRedis(command: string[], shas: Map<string, string>): string[] {
  const name = command[0]!.toUpperCase();
  const isScript = name === "EVAL" || name === "EVAL_RO";
  const isLoad = name === "SCRIPT" && command[1]?.toUpperCase() === "LOAD";
  if (isScript || isLoad) {
    const at = isScript ? 1 : 2;
    const rewritten = withoutUpstashFlags(command[at] ?? "");
    if (rewritten === undefined) return command;
    shas.set(sha1(command[at]!), sha1(rewritten));
    return command.map((arg, i) => (i === at ? rewritten : arg));
  }
  if ((name === "EVALSHA" || name === "EVALSHA_RO") && command[1] !== undefined) {
    const known = shas.get(command[1].toLowerCase());
    if (known !== undefined) return command.map((arg, i) => (i === 1 ? known : arg));
  }
  return command;
}

/** A TIME reply (seconds, microseconds) in milliseconds. */
function msOf(reply: RespReply): number {
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected TIME reply: ${String(reply)}`);
  return Number(String(reply[0])) * 1000 + Number(String(reply[1])) / 1000;
}

/** SCRIPT LOAD answers the SHA-1 of the script as the client sent it. */
function asSent(command: string[], reply: RespReply): RespReply {
  const isLoad = command[0]!.toUpperCase() === "SCRIPT" && command[1]?.toUpperCase() === "LOAD";
  return isLoad && Buffer.isBuffer(reply) ? Buffer.from(sha1(command[2] ?? "")) : reply;
}

function commandOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new Error("a command is a non-empty JSON array");
  return value.map((arg) => {
    if (typeof arg === "string") return arg;
    if (typeof arg === "number" || typeof arg === "boolean") return String(arg);
    throw new Error(`a command's arguments are strings or numbers, got ${JSON.stringify(arg)}`);
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Starts the REST server on 127.0.0.1 (ephemeral port) in front of the redis-server on `redisPort`. */
export async function startUpstashRest(options: UpstashRestOptions): Promise<UpstashRest> {
  const token = options.token ?? `test-token-${crypto.randomUUID()}`;
  const roundTrips: UpstashRoundTrip[] = [];
  let mode: UpstashRestMode = { kind: "healthy" };
  /** The requests a stall holds, each with what runs it late. */
  const held = new Map<ServerResponse, () => Promise<void>>();
  let redis: RespConnection | undefined;
  let syncToken = 0;
  const listeners = new Set<(reply: ObservedReply) => void>();
  const shas = new Map<string, string>();
  /**
   * Sends the client's `commands` to Redis (inside MULTI/EXEC when `transaction`); answers one reply
   * per command, and the listeners hear each.
   */
  const send = async (commands: string[][], transaction = false): Promise<RespReply[]> => {
    const translated = commands.map((command) => forRedis(command, shas));
    // While observed, Redis stamps each command with its own clock: a TIME right behind it on the
    // same connection runs the moment it has (nothing on this connection runs between them).
    const observing = listeners.size > 0;
    const stamped = observing ? translated.flatMap((command) => [command, ["TIME"]]) : translated;
    const sent = transaction
      ? [["MULTI"], ...translated, ["EXEC"], ...(observing ? [["TIME"]] : [])]
      : stamped;
    const raw = await connection().send(sent);
    let replies: RespReply[];
    let times: number[] = [];
    if (transaction) {
      const stamp = observing ? raw.pop() : undefined;
      const exec = raw[raw.length - 1]!;
      if (!Array.isArray(exec)) {
        // The transaction was refused: the first refused command says why, else EXEC's own error.
        const refused = raw.slice(1, -1).find(isError) ?? (isError(exec) ? exec : { error: "EXECABORT" });
        throw Object.assign(new Error(refused.error), { refused });
      }
      replies = exec;
      if (stamp !== undefined) times = commands.map(() => msOf(stamp));
    } else if (observing) {
      replies = raw.filter((_, i) => i % 2 === 0);
      times = raw.filter((_, i) => i % 2 === 1).map(msOf);
    } else replies = raw;
    replies = replies.map((reply, i) => asSent(commands[i]!, reply));
    for (const listener of listeners) {
      for (const [i, command] of commands.entries()) listener({ command, reply: replies[i]!, at: times[i]! });
    }
    return replies;
  };
  const connection = () => {
    if (redis === undefined || redis.broken) redis = new RespConnection(options.redisPort);
    return redis;
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "upstash-sync-token": String(++syncToken),
    });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    const body = await readBody(req);
    if (req.headers.authorization !== `Bearer ${token}`) {
      answer(res, 401, { error: "Unauthorized" });
      return;
    }
    if (req.method !== "POST" || !["/", "/pipeline", "/multi-exec"].includes(path)) {
      answer(res, 405, { error: `${req.method} ${path} is not served here` });
      return;
    }
    let commands: string[][];
    try {
      const parsed: unknown = JSON.parse(body);
      commands =
        path === "/"
          ? [commandOf(parsed)]
          : Array.isArray(parsed) && parsed.length > 0
            ? parsed.map(commandOf)
            : (() => {
                throw new Error(`${path} takes a non-empty JSON array of commands`);
              })();
    } catch (error) {
      answer(res, 400, { error: `ERR ${(error as Error).message}` });
      return;
    }
    const sent = req.headers["upstash-sync-token"];
    roundTrips.push({
      path,
      commands: commands.map((c) => c[0]!.toUpperCase()),
      syncToken: typeof sent === "string" && sent !== "" ? sent : undefined,
    });
    const current = mode;
    if (current.kind === "stall") {
      held.set(res, () => execute(req, res, path, commands));
      res.on("close", () => held.delete(res));
      return;
    }
    if (current.kind === "fail") {
      answer(res, current.status, { error: `the REST server answers ${current.status} (test fault)` });
      return;
    }
    await execute(req, res, path, commands);
  }

  /** Runs the commands of one request on Redis and answers it. */
  async function execute(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    commands: string[][],
  ): Promise<void> {
    const base64 = String(req.headers["upstash-encoding"]).toLowerCase() === "base64";
    const item = (reply: RespReply) =>
      isError(reply) ? { error: reply.error } : { result: renderResult(reply, base64) };
    if (path === "/") {
      const [reply] = await send(commands);
      if (isError(reply!)) answer(res, 400, { error: reply.error });
      else answer(res, 200, { result: renderResult(reply!, base64) });
      return;
    }
    if (path === "/pipeline") {
      answer(res, 200, (await send(commands)).map(item));
      return;
    }
    try {
      answer(res, 200, (await send(commands, true)).map(item));
    } catch (error) {
      const refused = (error as { refused?: { error: string } }).refused;
      if (refused === undefined) throw error;
      answer(res, 400, { error: refused.error });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) answer(res, 500, { error: `ERR ${(error as Error).message}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const heal = async (late?: "in-order" | "reversed") => {
    mode = { kind: "healthy" };
    const requests = [...held];
    held.clear();
    if (late === undefined) {
      for (const [res] of requests) res.destroy();
      return;
    }
    if (late === "reversed") requests.reverse();
    for (const [res, run] of requests) {
      await run().catch((error: unknown) => {
        if (!res.headersSent) answer(res, 500, { error: `ERR ${(error as Error).message}` });
      });
    }
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    roundTrips,
    resetCounts: () => void roundTrips.splice(0),
    observe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    stall: () => {
      mode = { kind: "stall" };
    },
    fail: (status = 503) => {
      mode = { kind: "fail", status };
    },
    heal,
    async close() {
      await heal();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      redis?.close();
    },
  };
}

/** A suite's redis-server and the REST server in front of it. */
export interface UpstashRestSuite {
  /** The REST server (inside tests and their hooks only). */
  rest(): UpstashRest;
  /** The redis-server behind it. */
  redis(): TestRedis;
  /** A key prefix no other test, and no other process sharing the server, uses. */
  prefix(): string;
}

/**
 * Registers the hooks of the current `describe` (inside `describe.runIf(redisAvailable(...))`): a
 * redis-server and a REST server in front of it, started before its tests and stopped after them.
 * Each test starts healthy: the mode is reset before it, so a stall never leaks into the next one.
 */
export function useUpstashRest(): UpstashRestSuite {
  let redis: TestRedis | undefined;
  let rest: UpstashRest | undefined;
  let seq = 0;
  beforeAll(async () => {
    redis = await startRedis();
    rest = await startUpstashRest({ redisPort: redis.port });
  });
  beforeEach(async () => {
    await rest?.heal();
  });
  afterAll(async () => {
    await rest?.close();
    await redis?.stop();
  });
  const running = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error("useUpstashRest: the servers run only inside tests and their hooks");
    return value;
  };
  return {
    rest: () => running(rest),
    redis: () => running(redis),
    prefix: () => `test-${process.pid}-${seq++}:`,
  };
}
