/** A response's JSON body, or null when it has none. */
export async function readJson(response: Response): Promise<{ message?: string } | null> {
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}
