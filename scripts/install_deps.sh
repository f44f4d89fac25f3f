#!/usr/bin/env bash
# Installs, when missing, everything `deno task test` needs on a Debian machine:
# Deno (from the npm registry), and Debian's influxdb, victoria-metrics, chromium, openssl,
# postgresql, mosquitto, apprise, prometheus (with promtool) and prometheus-alertmanager
# for the real-server, browser and oracle suites,
# qemu-user-static with the arm64 C libraries and the arm64 Deno of our Deno version (from
# the npm registry, into .cache/aarch64/) for the aarch64 suite, and systemd-analyze for
# the unit-file check. Safe to run again: it skips what is there.
set -euo pipefail

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "install_deps: need root to run: $*" >&2
    return 1
  fi
}

missing=()
command -v influxd >/dev/null 2>&1 || missing+=(influxdb)
command -v victoria-metrics >/dev/null 2>&1 || [ -x /usr/bin/victoria-metrics ] || missing+=(victoria-metrics)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v openssl >/dev/null 2>&1 || missing+=(openssl) # the proxy's https test
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql) # messages on PostgreSQL
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || missing+=(mosquitto) # collector over MQTT
command -v apprise >/dev/null 2>&1 || missing+=(apprise) # the notifier's oracle
command -v qemu-aarch64-static >/dev/null 2>&1 || missing+=(qemu-user-static) # the aarch64 suite
[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ] || missing+=(libc6-arm64-cross)
[ -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || missing+=(libstdc++6-arm64-cross)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd) # deploy/ unit files
command -v npm >/dev/null 2>&1 || missing+=(npm) # fetches Deno and the arm64 Deno below
command -v promtool >/dev/null 2>&1 || missing+=(prometheus) # metrics: promtool, the scrape suite
command -v prometheus-alertmanager >/dev/null 2>&1 || missing+=(prometheus-alertmanager) # the notifier's webhook
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install_deps: installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  # No package may start its service (prometheus, alertmanager, ...): the tests
  # start their own on free ports. A policy-rc.d refusing every start is laid for
  # the install when the machine has none.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
    as_root chmod 0755 "$policy"
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  if [ -n "$policy" ]; then as_root rm -f "$policy"; fi
else
  echo "install_deps: Debian packages already installed (influxdb, victoria-metrics, chromium, openssl, postgresql, mosquitto, apprise, qemu-user-static, libc6-arm64-cross, libstdc++6-arm64-cross, systemd, npm, prometheus, prometheus-alertmanager)"
fi
# The Debian packages start their services; the tests run their own instances on
# free ports, so the system ones are not needed (failures here are harmless).
for service in influxdb victoria-metrics postgresql mosquitto prometheus prometheus-alertmanager; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
    as_root systemctl stop "$service" || true
  fi
done

# Deno 2 from the npm registry (after the Debian packages: npm comes from there on a
# fresh machine). `deno --version` is read whole, not piped into head: under pipefail
# a reader that quits early makes deno fail on the closed pipe.
deno_version() {
  local said
  said="$(deno --version 2>/dev/null)" || return 0
  printf '%s\n' "$said" | sed -n 's/^deno \([0-9][^ ]*\).*/\1/p'
}
if [ "$(deno_version | cut -d. -f1)" != "2" ]; then
  echo "install_deps: installing Deno 2 from the npm registry (npm install -g deno@2)"
  if [ -w "$(npm prefix -g)/lib" ]; then npm install -g deno@2; else as_root npm install -g deno@2; fi
  hash -r
fi
deno_version="$(deno_version)"
if [ -z "$deno_version" ]; then
  echo "install_deps: \`deno --version\` printed no version (deno is $(command -v deno || echo missing)): install Deno 2 and run again" >&2
  exit 1
fi
echo "install_deps: Deno $deno_version at $(command -v deno)"

# The arm64 Deno the aarch64 suite runs under qemu-aarch64-static: the npm registry's
# build of the very version `deno --version` prints, unpacked in the repository's
# ignored .cache/aarch64/deno-<version>/ (tests/aarch64_test.ts looks there).
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
arm64_dir="$repo/.cache/aarch64/deno-$deno_version"
package="@deno/linux-arm64-glibc@$deno_version"
if [ -x "$arm64_dir/deno" ]; then
  echo "install_deps: arm64 Deno $deno_version already in $arm64_dir"
else
  echo "install_deps: laying the arm64 Deno $deno_version (npm pack $package, a 40 MB download) in $arm64_dir"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # npm prints its own error (registry unreachable, no such version) on stderr; it
  # retries a slow registry itself (fetch-retries, fetch-timeout in .npmrc).
  if ! tarball="$(cd "$work" && npm pack --loglevel=error "$package")"; then
    echo "install_deps: npm pack $package failed (see above): the aarch64 suite is skipped without it, and fails with CI=true; run this script again when the npm registry answers" >&2
    exit 1
  fi
  tar -xzf "$work/$(printf '%s\n' "$tarball" | tail -n 1)" -C "$work"
  mkdir -p "$arm64_dir"
  install -m 0755 "$work/package/deno" "$arm64_dir/deno.partial"
  mv "$arm64_dir/deno.partial" "$arm64_dir/deno"
  rm -rf "$work"
  trap - EXIT
fi
# Older versions' folders are left; they are not used once our Deno is newer.
stale="$(find "$repo/.cache/aarch64" -mindepth 1 -maxdepth 1 -name 'deno-*' ! -name "deno-$deno_version" -printf '%f ' 2>/dev/null || true)"
if [ -n "$stale" ]; then
  echo "install_deps: unused arm64 Deno folders in $repo/.cache/aarch64 (remove them to free space): $stale"
fi
if emulated="$(qemu-aarch64-static -L /usr/aarch64-linux-gnu "$arm64_dir/deno" --version 2>&1)"; then
  echo "install_deps: under qemu-aarch64-static: $(printf '%s\n' "$emulated" | sed -n 1p)"
else
  echo "install_deps: the arm64 Deno in $arm64_dir does not start under qemu-aarch64-static: $emulated" >&2
  exit 1
fi
