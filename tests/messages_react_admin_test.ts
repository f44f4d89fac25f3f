/**
 * react-admin's `ra-data-json-server` data provider as a real client of the
 * `messages` role through `main.ts`: list with paging, sorting and search, one,
 * many, create, update and delete.
 */
import assert from "node:assert/strict";
import jsonServer from "ra-data-json-server";
import { startMain } from "./_test_helpers.ts";

const RESOURCE = "message/resource";

interface Stored {
  id: number;
  author: string;
  message: string;
}

/** The part of react-admin's DataProvider this suite calls. */
interface DataProvider {
  getList(resource: string, params: {
    pagination: { page: number; perPage: number };
    sort: { field: string; order: "ASC" | "DESC" };
    filter: Record<string, unknown>;
  }): Promise<{ data: Stored[]; total?: number }>;
  getOne(resource: string, params: { id: number }): Promise<{ data: Stored }>;
  getMany(
    resource: string,
    params: { ids: number[] },
  ): Promise<{ data: Stored[] }>;
  create(
    resource: string,
    params: { data: Omit<Stored, "id"> },
  ): Promise<{ data: Stored }>;
  update(resource: string, params: {
    id: number;
    data: Stored;
    previousData: Stored;
  }): Promise<{ data: unknown }>;
  delete(
    resource: string,
    params: { id: number; previousData: Stored },
  ): Promise<unknown>;
}

// The package is CommonJS with an ES-module default: Deno hands over the
// module object, whose `default` is the factory.
const module = jsonServer as unknown as {
  default: (apiUrl: string) => DataProvider;
};
const jsonServerProvider = module.default;

Deno.test("ra-data-json-server reads and writes the messages role", async (t) => {
  const main = startMain(["messages"], {
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: "0",
      MESSAGES_DB: ":memory:",
    },
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/);
  const origin = /http:\/\/\S+/.exec(line)![0];
  const provider = jsonServerProvider(`${origin}/api`);
  try {
    await t.step("create", async () => {
      for (let i = 1; i <= 23; i++) {
        const { data } = await provider.create(RESOURCE, {
          data: {
            author: i % 2 ? "Ada" : "Bob",
            message: `note ${i}${i % 5 === 0 ? " urgent" : ""}`,
          },
        });
        assert.deepEqual(data, {
          id: i,
          author: i % 2 ? "Ada" : "Bob",
          message: `note ${i}${i % 5 === 0 ? " urgent" : ""}`,
        });
      }
    });

    await t.step("getList with pagination and sort", async () => {
      const page = await provider.getList(RESOURCE, {
        pagination: { page: 2, perPage: 10 },
        sort: { field: "id", order: "DESC" },
        filter: {},
      });
      assert.equal(page.total, 23);
      assert.deepEqual(
        page.data.map((r) => r.id),
        [13, 12, 11, 10, 9, 8, 7, 6, 5, 4],
      );
      const byAuthor = await provider.getList(RESOURCE, {
        pagination: { page: 1, perPage: 5 },
        sort: { field: "author", order: "DESC" },
        filter: {},
      });
      assert.equal(byAuthor.total, 23);
      assert.deepEqual(byAuthor.data.map((r) => r.id), [2, 4, 6, 8, 10]);
    });

    await t.step("getList with a q filter and a field filter", async () => {
      const urgent = await provider.getList(RESOURCE, {
        pagination: { page: 1, perPage: 25 },
        sort: { field: "id", order: "ASC" },
        filter: { q: "URGENT" },
      });
      assert.equal(urgent.total, 4);
      assert.deepEqual(urgent.data.map((r) => r.id), [5, 10, 15, 20]);
      const ada = await provider.getList(RESOURCE, {
        pagination: { page: 2, perPage: 5 },
        sort: { field: "id", order: "ASC" },
        filter: { author: "Ada", q: "urgent" },
      });
      assert.equal(ada.total, 2);
      assert.deepEqual(ada.data, []);
    });

    await t.step("getOne and getMany", async () => {
      const { data } = await provider.getOne(RESOURCE, { id: 7 });
      assert.deepEqual(data, { id: 7, author: "Ada", message: "note 7" });
      const many = await provider.getMany(RESOURCE, { ids: [3, 9, 21] });
      assert.deepEqual(many.data.map((r) => r.id), [3, 9, 21]);
      assert.equal(many.data[2]!.message, "note 21");
    });

    await t.step("update (PUT)", async () => {
      const { data } = await provider.update(RESOURCE, {
        id: 7,
        data: { id: 7, author: "Cy", message: "edited" },
        previousData: { id: 7, author: "Ada", message: "note 7" },
      });
      assert.deepEqual(data, { author: "Cy", message: "edited" });
      const again = await provider.getOne(RESOURCE, { id: 7 });
      assert.deepEqual(again.data, { id: 7, author: "Cy", message: "edited" });
    });

    await t.step("delete", async () => {
      await provider.delete(RESOURCE, {
        id: 7,
        previousData: { id: 7, author: "Cy", message: "edited" },
      });
      await assert.rejects(
        () => provider.getOne(RESOURCE, { id: 7 }),
        (error: { status?: number }) => error.status === 404,
      );
      const list = await provider.getList(RESOURCE, {
        pagination: { page: 1, perPage: 100 },
        sort: { field: "id", order: "ASC" },
        filter: {},
      });
      assert.equal(list.total, 22);
      assert.ok(!list.data.some((r) => r.id === 7));
    });
  } finally {
    assert.equal(await main.stop(), 0);
  }
});
