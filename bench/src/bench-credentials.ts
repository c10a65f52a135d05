import { randomBytes } from "node:crypto";
import { generateWebhookSecret } from "@plant-store/types";

export interface BenchCredentials {
  token: string;
  secret: string;
}

/**
 * Fresh credentials per bench run, handed to child processes in their environment. The token is long
 * enough for the store's admin API, which refuses an operator token under 16 characters.
 */
export function createBenchCredentials(): BenchCredentials {
  return { token: `bench-${randomBytes(12).toString("hex")}`, secret: generateWebhookSecret() };
}

export function credentialsEnv(credentials: BenchCredentials): Record<string, string> {
  return { BENCH_TOKEN: credentials.token, BENCH_SECRET: credentials.secret };
}

export function credentialsFromEnv(): BenchCredentials {
  const token = process.env.BENCH_TOKEN;
  const secret = process.env.BENCH_SECRET;
  if (!token || !secret) throw new Error("BENCH_TOKEN and BENCH_SECRET must be set");
  return { token, secret };
}
