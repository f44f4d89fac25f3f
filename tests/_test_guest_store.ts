/**
 * The time-series store's write endpoint as the kernel suites run it inside the guest
 * (which has no other server): responds to every request with 204 and appends each
 * request's body, one line-protocol line a line, to `<database>.lp` in the folder of
 * its first argument (the job folder, so the test reads it after the guest ends), the
 * database being the request's `db` (v1) or `bucket` (v2) parameter. Prints "store
 * listening" once it listens on 127.0.0.1 at the port of its second argument.
 *
 * ```sh
 * deno run -A --cached-only tests/_test_guest_store.ts /tmp/job 8086 &
 * ```
 *
 * @module
 */

const [folder = "/tmp/job", port = "8086"] = Deno.args;
Deno.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  onListen: () => console.log("store listening"),
}, async (request) => {
  let body = request.body ?? new Blob().stream();
  if (request.headers.get("content-encoding") === "gzip") {
    body = body.pipeThrough(new DecompressionStream("gzip"));
  }
  const text = await new Response(body).text();
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const query = new URL(request.url).searchParams;
  const database = (query.get("db") ?? query.get("bucket") ?? "store")
    .replace(/[^\w-]/g, "_");
  if (lines.length > 0) {
    await Deno.writeTextFile(
      `${folder}/${database}.lp`,
      `${lines.join("\n")}\n`,
      { append: true },
    );
  }
  return new Response(null, { status: 204 });
});
