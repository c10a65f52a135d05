/** A minimal client of the Plant Store's admin API (documented in apps/sender/admin-openapi.json). */
export class StoreAdminError extends Error {
  readonly code = "ERR_STORE_ADMIN";
  override readonly name = "StoreAdminError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface StoreAdminClient {
  addEndpoint(input: { url: string; token: string; secret: string }): Promise<{ id: number | string }>;
  removeEndpoint(id: number | string): Promise<void>;
  addPlant(input: {
    name: string;
    tag?: string;
  }): Promise<{ id: number; name: string; tag?: string; webhookId: string }>;
}

export function createStoreAdminClient(baseUrl: string, adminToken: string): StoreAdminClient {
  async function post<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(new URL(path, baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new StoreAdminError(`POST ${path} answered ${response.status}: ${text}`, response.status);
    return JSON.parse(text) as T;
  }
  return {
    async addEndpoint(input) {
      return (await post<{ endpoint: { id: number | string } }>("/endpoints", input)).endpoint;
    },
    async removeEndpoint(id) {
      const path = `/endpoints/${id}`;
      const response = await fetch(new URL(path, baseUrl), {
        method: "DELETE",
        headers: { authorization: `Bearer ${adminToken}` },
      });
      if (!response.ok)
        throw new StoreAdminError(
          `DELETE ${path} answered ${response.status}: ${await response.text()}`,
          response.status,
        );
    },
    async addPlant(input) {
      return (
        await post<{ plant: { id: number; name: string; tag?: string; webhookId: string } }>("/plants", input)
      ).plant;
    },
  };
}
