import { readFile } from "node:fs/promises";
import type { WebhookDocument } from "@plant-store/types";
import { parse as parseYaml } from "yaml";
import { DocumentReadError } from "./errors.js";

/** An OpenAPI document from a `.json`, `.yaml` or `.yml` file (by its extension; JSON otherwise). */
export async function readDocument(path: string): Promise<WebhookDocument> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new DocumentReadError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new DocumentReadError(
      `${path} is not valid ${/\.ya?ml$/i.test(path) ? "YAML" : "JSON"}: ${(error as Error).message}`,
    );
  }
  if (document === null || typeof document !== "object" || Array.isArray(document))
    throw new DocumentReadError(`${path} does not hold an OpenAPI document (an object)`);
  return document as WebhookDocument;
}
