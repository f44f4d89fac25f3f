/**
 * A throw-away certificate authority and a server certificate for 127.0.0.1, made
 * with `openssl` for suites that need a real https upstream.
 *
 * @module
 */

/** PEM texts of a CA and of a certificate for 127.0.0.1 it signed. */
export interface TestTls {
  /** The CA's certificate, to trust (`Deno.createHttpClient({ caCerts })`). */
  readonly ca: string;
  /** The server's certificate. */
  readonly cert: string;
  /** The server's private key. */
  readonly key: string;
}

/** Makes a fresh CA and a server certificate for `127.0.0.1`, valid for a day. */
export async function makeTestTls(openssl = "openssl"): Promise<TestTls> {
  const dir = await Deno.makeTempDir({ prefix: "homewire-tls-" });
  const run = async (...args: string[]) => {
    const { code, stderr } = await new Deno.Command(openssl, {
      args,
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(
        `openssl ${args[0]} failed: ${new TextDecoder().decode(stderr)}`,
      );
    }
  };
  try {
    await run(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "1",
      "-subj",
      "/CN=homewire test CA",
    );
    await run(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "key.pem",
      "-out",
      "cert.csr",
      "-subj",
      "/CN=127.0.0.1",
    );
    await Deno.writeTextFile(
      `${dir}/ext.cnf`,
      "subjectAltName=IP:127.0.0.1\n",
    );
    await run(
      "x509",
      "-req",
      "-in",
      "cert.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "cert.pem",
      "-days",
      "1",
      "-extfile",
      "ext.cnf",
    );
    const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
    return {
      ca: await read("ca.pem"),
      cert: await read("cert.pem"),
      key: await read("key.pem"),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
