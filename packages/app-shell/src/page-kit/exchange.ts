import { readJson } from "./read-json.js";

/** A sign-in code or a token, posted (never in a URL) to `path` for a session of this tab. */
export async function exchange(path: string, credential: unknown): Promise<string> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(credential),
  });
  const data = (await readJson(response)) as { message?: string; session?: string } | null;
  if (!response.ok) throw new Error(data?.message || `HTTP ${response.status}`);
  return String(data?.session);
}
