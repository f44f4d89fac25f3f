/**
 * nginx (Debian's package) as the proxy's speed anchor: started by the benchmark on
 * a free port with a generated configuration equivalent to the proxy's route (the
 * path mapping, the added query parameter and header, the CORS headers, keep-alive
 * to the upstream), never as the system service.
 *
 * @module
 */
import { type BenchProcess, spawn, waitForHttp } from "./_runner.ts";

/** Where Debian installs nginx. */
export const NGINX = "/usr/sbin/nginx";

/** What the generated configuration maps. */
export interface NginxRoute {
  /** The proxy's route name: `/NAME/rest` is relayed. */
  name: string;
  /** The upstream's `host:port`. */
  upstream: string;
  /** The base path on the upstream (`/api`). */
  basePath: string;
  /** The query parameter added to every request, `name=value`. */
  query: string;
  /** The header added to every request. */
  header: [string, string];
}

/** The nginx configuration of `route`, listening on `port`, temp files in `dir`. */
export function nginxConfig(
  route: NginxRoute,
  options: { port: number; dir: string; workers: number | "auto" },
): string {
  const { dir } = options;
  return `daemon off;
worker_processes ${options.workers};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream bench_upstream {
    server ${route.upstream};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${options.port};
    location ~ ^/${route.name}/(.*)$ {
      proxy_pass http://bench_upstream${route.basePath}/$1?${route.query}&$args;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header ${route.header[0]} "${route.header[1]}";
      proxy_hide_header Access-Control-Allow-Origin;
      add_header Access-Control-Allow-Origin * always;
      add_header Access-Control-Expose-Headers * always;
    }
  }
}
`;
}

/** Starts nginx on `port` with the configuration of `route`; resolves once it responds. */
export async function startNginx(
  route: NginxRoute,
  options: { port: number; workers: number | "auto" },
): Promise<BenchProcess> {
  const dir = Deno.makeTempDirSync({ prefix: "homewire-bench-nginx-" });
  Deno.chmodSync(dir, 0o755);
  const config = `${dir}/nginx.conf`;
  Deno.writeTextFileSync(config, nginxConfig(route, { ...options, dir }));
  const nginx = spawn(NGINX, ["-e", "stderr", "-p", dir, "-c", config]);
  await waitForHttp(`http://127.0.0.1:${options.port}/${route.name}/`);
  return nginx;
}
