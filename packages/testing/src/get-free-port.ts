import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export async function getFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("Could not read the listening port"));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

function tryPort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * Ports handed out by `getFreeFixedPort`, one file each, named by the port and holding the pid of the
 * process it was given to: shared by every process on the machine (vitest's workers, turbo's packages).
 */
const reservations = join(tmpdir(), "plant-store-fixed-ports");
/** This process's reservations (removed when it exits normally; a killed one's are swept later). */
const mine = new Set<number>();
let prepared = false;

/** Whether the pid a reservation names may still be running (unreadable: assume it is). */
function holderAlive(file: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(file, "utf8"));
  } catch {
    return true;
  }
  // Just created and not yet written: its holder is alive.
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Once per process: makes the directory (writable by all, like /tmp) and removes ended processes' files. */
function prepare(): void {
  if (prepared) return;
  prepared = true;
  try {
    mkdirSync(reservations, { recursive: true });
    chmodSync(reservations, 0o1777);
  } catch {
    // Made by another user, who made it writable by all.
  }
  try {
    for (const name of readdirSync(reservations)) {
      const file = join(reservations, name);
      if (!holderAlive(file)) rmSync(file, { force: true });
    }
  } catch {
    // Another user's files: left to them.
  }
  process.once("exit", () => {
    for (const port of mine) rmSync(join(reservations, String(port)), { force: true });
  });
}

/**
 * Claims `port` for this process until it ends. "taken": a process that is still running has it (this
 * one included); "unreserved": the directory cannot be written, so the port is used without a claim.
 */
function reserve(port: number): "reserved" | "taken" | "unreserved" {
  prepare();
  try {
    writeFileSync(join(reservations, String(port)), String(process.pid), { flag: "wx" });
    mine.add(port);
    return "reserved";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return "taken";
    if (code === "EACCES" || code === "EPERM" || code === "EROFS" || code === "ENOENT") return "unreserved";
    throw error;
  }
}

/**
 * A free loopback port below Linux's ephemeral range (32768 and up): for a test that must listen on a port
 * some time after choosing it. A port from `getFreePort` lies in that range, and any outgoing connection
 * made meanwhile (other tests' HTTP clients) may be given it as its local port (seen: EADDRINUSE).
 *
 * Until the caller listens, the bind check here keeps no one else off the port: so each port given is
 * also reserved, by a file under the temporary directory, for as long as this process lives, and is not
 * given again meanwhile, to this process or any other (another vitest worker, another package's tests
 * run by turbo at the same time).
 */
export async function getFreeFixedPort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const claim = reserve(port);
    if (claim === "taken") continue;
    if (await tryPort(port)) return port;
    // In use by something else: give the claim back.
    if (claim === "reserved") {
      mine.delete(port);
      rmSync(join(reservations, String(port)), { force: true });
    }
  }
  throw new Error("no free port found between 20000 and 32000");
}
