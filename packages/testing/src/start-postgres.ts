import { execFile, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { getFreeFixedPort } from "./get-free-port.js";

const run = promisify(execFile);

export interface TestPostgres {
  /**
   * `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth, loopback only), or with the
   * password in it (`postgres://postgres:<password>@...`) when started with one.
   */
  url: string;
  port: number;
  /** A new empty database on this cluster; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /**
   * Stops the server at once (immediate shutdown: no checkpoint, the data is thrown away) and removes
   * its data directory. Open clients see their connection end.
   */
  stop(): Promise<void>;
}

/** The last resort when pg_ctl cannot stop it: its backends exit once they see the postmaster gone. */
function killPostmaster(dataDir: string): void {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, "SIGKILL");
  } catch {
    // No pid file or no such process: the server is already gone.
  }
}

/** Where the PostgreSQL server binaries are: PG_BIN, then PATH, then Debian's layout. */
function pgBin(name: string): string {
  if (process.env.PG_BIN) return join(process.env.PG_BIN, name);
  const which = spawnSync("which", [name], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  for (const version of ["17", "16", "15"]) {
    const candidate = `/usr/lib/postgresql/${version}/bin/${name}`;
    if (spawnSync("test", ["-x", candidate]).status === 0) return candidate;
  }
  throw new Error(`PostgreSQL binary ${name} not found: install postgresql or set PG_BIN`);
}

interface ProcessOptions {
  uid?: number;
  gid?: number;
  env: NodeJS.ProcessEnv;
}

/**
 * A cluster without a password starts from a copy of one initdb made once per machine (per initdb and
 * owner), in the system's temporary folder: initdb is the same seconds of work for every one of the
 * dozens of clusters a test run starts, and its output the same files, while a copy takes a fraction
 * of a second. Each cluster still gets a data directory and a server of its own. Made in a folder of
 * its own, then renamed into place, so that two test processes making it at once never see half of
 * one: the second rename fails and that process uses the first one's.
 */
async function trustTemplate(processOptions: ProcessOptions, uid: number | undefined): Promise<string> {
  const initdb = pgBin("initdb");
  const version = spawnSync(initdb, ["--version"], { encoding: "utf8" }).stdout.trim();
  const key = createHash("sha256")
    .update(JSON.stringify([initdb, version, uid ?? process.getuid?.() ?? 0]))
    .digest("hex")
    .slice(0, 16);
  const template = join(tmpdir(), `plant-pg-template-${key}`);
  if (existsSync(join(template, "ready"))) return join(template, "data");
  const making = mkdtempSync(`${template}-making-`);
  try {
    if (uid !== undefined) chmodSync(making, 0o777);
    await run(
      initdb,
      ["-D", join(making, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
      processOptions,
    );
    writeFileSync(join(making, "ready"), `${version}\n`);
    try {
      renameSync(making, template);
    } catch (error) {
      // Another process made it first (the rename of a folder onto a non-empty one fails): use that one.
      if (!existsSync(join(template, "ready"))) throw error;
    }
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return join(template, "data");
}

export interface StartPostgresOptions {
  /**
   * The `postgres` user's password. With one, TCP connections must give it (scram-sha-256) and the
   * URLs carry it; without, any connection is trusted.
   */
  password?: string;
}

/**
 * Starts a throwaway PostgreSQL cluster on a free loopback port with initdb/pg_ctl.
 * initdb refuses to run as root, so as root the cluster is owned by and run as the
 * `postgres` system user (present wherever Debian's postgresql packages are).
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), "plant-pg-"));
  const dataDir = join(dir, "data");
  // Listened on only once initdb has run (seconds): outside the range outgoing connections take ports from.
  const port = await getFreeFixedPort();
  const asRoot = process.getuid?.() === 0;
  let uid: number | undefined;
  let gid: number | undefined;
  if (asRoot) {
    const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const group = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (id.status !== 0)
      throw new Error("Running as root needs a 'postgres' system user to own the test cluster");
    uid = Number(id.stdout.trim());
    gid = Number(group.stdout.trim());
    chmodSync(dir, 0o777);
  }
  const processOptions = {
    ...(uid === undefined ? {} : { uid }),
    ...(gid === undefined ? {} : { gid }),
    env: { ...process.env, LC_ALL: "C" },
  };
  const { password } = options;
  // The password goes in through a file initdb reads (and that is removed after), never an argument.
  const passwordFile = join(dir, "password");
  if (password !== undefined) writeFileSync(passwordFile, `${password}\n`, { mode: 0o644 });
  if (password === undefined) {
    // cp -a keeps the owner (the postgres user, as root) and the 0700 mode the server insists on.
    await run("cp", ["-a", await trustTemplate(processOptions, uid), dataDir]);
  } else {
    // The password is in the cluster's catalog: a cluster with one gets an initdb of its own.
    try {
      await run(
        pgBin("initdb"),
        [
          ...["-D", dataDir, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256"],
          ...[`--pwfile=${passwordFile}`, "-E", "UTF8", "--no-sync"],
        ],
        processOptions,
      );
    } finally {
      rmSync(passwordFile, { force: true });
    }
  }
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-k ${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  await run(
    pgBin("pg_ctl"),
    ["-D", dataDir, "-o", serverOptions, "-l", join(dir, "server.log"), "-w", "start"],
    processOptions,
  );
  const user = password === undefined ? "postgres" : `postgres:${encodeURIComponent(password)}`;
  const url = `postgres://${user}@127.0.0.1:${port}/postgres`;
  let counter = 0;
  return {
    url,
    port,
    async createDatabase(name = `test_${process.pid}_${++counter}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
      } finally {
        await client.end();
      }
      return `postgres://${user}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      // A fast shutdown writes a checkpoint first, and on a loaded CI machine that once took over the
      // 60 s pg_ctl and the test hook wait. The directory is removed next, so nothing needs it.
      await run(
        pgBin("pg_ctl"),
        ["-D", dataDir, "-m", "immediate", "-w", "-t", "20", "stop"],
        processOptions,
      ).catch(() => killPostmaster(dataDir));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
