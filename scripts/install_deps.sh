#!/usr/bin/env bash
# Installs, when missing, everything `deno task test` needs on a Debian machine:
# Deno (from the npm registry), and Debian's influxdb, victoria-metrics, chromium, openssl,
# postgresql, mosquitto, apprise, tinyproxy, prometheus (with promtool) and
# prometheus-alertmanager for the real-server, browser and oracle suites, nginx and wrk
# for the proxy benchmark,
# qemu-user-static with the arm64 C libraries and the arm64 Deno of our Deno version (from
# the npm registry, into .cache/aarch64/) for the aarch64 suite, systemd-analyze for
# the unit-file check, and for the kernel suites (tests/kernel_*_test.ts) qemu-system,
# busybox-static, cpio, kmod, bluez, bluez-test-tools, i2c-tools and e2fsprogs, with
# Debian's amd64 kernel unpacked (never installed) in .cache/kernel/, and for the
# aarch64 kernel suite qemu-system-arm with Debian's arm64 kernel and a small arm64
# userland (busybox, bash, bluez's tools, the C and C++ libraries) unpacked the same
# way. Safe to run again:
# it skips what is there.
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
command -v tinyproxy >/dev/null 2>&1 || [ -x /usr/bin/tinyproxy ] || missing+=(tinyproxy) # the outbound proxy suite
command -v npm >/dev/null 2>&1 || missing+=(npm) # fetches Deno and the arm64 Deno below
[ -x /usr/sbin/nginx ] || missing+=(nginx) # the proxy benchmark's speed anchor
command -v wrk >/dev/null 2>&1 || missing+=(wrk) # the load of the proxy against nginx
# The kernel suites: a guest kernel under TCG, its initramfs, and the tools the guest
# script runs from the host's root (shared read-only over 9p).
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
command -v qemu-system-aarch64 >/dev/null 2>&1 || missing+=(qemu-system-arm) # tests/kernel_aarch64_test.ts
# Debian's arm64 kernel leaves out i2c-stub and hci_vhci: built below for it.
command -v aarch64-linux-gnu-gcc-12 >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
command -v make >/dev/null 2>&1 || missing+=(make)
# (the static build: the initramfs holds no C library)
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || missing+=(busybox-static)
command -v cpio >/dev/null 2>&1 || missing+=(cpio)
command -v depmod >/dev/null 2>&1 || [ -x /usr/sbin/depmod ] || [ -x /sbin/depmod ] || missing+=(kmod)
command -v btmgmt >/dev/null 2>&1 || missing+=(bluez)
command -v btvirt >/dev/null 2>&1 || [ -x /usr/bin/btvirt ] || missing+=(bluez-test-tools)
command -v i2cset >/dev/null 2>&1 || [ -x /usr/sbin/i2cset ] || missing+=(i2c-tools)
command -v mkfs.ext4 >/dev/null 2>&1 || [ -x /usr/sbin/mkfs.ext4 ] || [ -x /sbin/mkfs.ext4 ] || missing+=(e2fsprogs)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus) # metrics: promtool, the scrape suite
command -v prometheus-alertmanager >/dev/null 2>&1 || missing+=(prometheus-alertmanager) # the notifier's webhook
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install_deps: installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  # No package's service is started by the install (nginx would take port 80): a
  # policy-rc.d that forbids it, for the install only, unless one is there already.
  own_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee /usr/sbin/policy-rc.d >/dev/null
    as_root chmod +x /usr/sbin/policy-rc.d
    own_policy=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  if [ -n "$own_policy" ]; then as_root rm -f /usr/sbin/policy-rc.d; fi
else
  echo "install_deps: Debian packages already installed (influxdb, victoria-metrics, chromium, openssl, postgresql, mosquitto, apprise, qemu-user-static, libc6-arm64-cross, libstdc++6-arm64-cross, systemd, tinyproxy, nginx, wrk, prometheus, prometheus-alertmanager, npm, qemu-system-x86, qemu-system-arm, gcc-aarch64-linux-gnu, make, busybox-static, cpio, kmod, bluez, bluez-test-tools, i2c-tools, e2fsprogs)"
fi
# bluez's bluetoothd is not wanted on the host (the kernel suites start their own, in
# the guest); a package start on a systemd host is undone below with the others.
# The Debian packages start their services; the tests run their own instances on
# free ports, so the system ones are not needed (failures here are harmless).
for service in influxdb victoria-metrics postgresql mosquitto tinyproxy nginx bluetooth prometheus prometheus-alertmanager; do
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
    echo "install_deps: npm pack $package failed (see above): the aarch64 suite is skipped without it, and fails with CI=true; run this script again when the npm registry responds" >&2
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

# Debian's amd64 kernel for the kernel suites, unpacked with dpkg-deb into
# .cache/kernel/amd64/<release>/ (boot/vmlinuz-<release> and lib/modules/<release>/ with
# its depmod index) and never installed on this machine: the release is the one
# linux-image-amd64 depends on today; tests/_test_qemu_guest.ts takes the newest laid here.
kernel_root="$repo/.cache/kernel/amd64"
kernel_release() {
  apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n 1
}
kernel_release="$(kernel_release)"
if [ -z "$kernel_release" ]; then
  as_root apt-get update -qq # a machine whose package lists were never fetched
  kernel_release="$(kernel_release)"
fi
if [ -z "$kernel_release" ]; then
  echo "install_deps: apt-cache names no kernel for linux-image-amd64 (run apt-get update): the kernel suites are skipped without one, and fail with CI=true" >&2
  exit 1
fi
kernel_dir="$kernel_root/$kernel_release"
if [ -e "$kernel_dir/boot/vmlinuz-$kernel_release" ] && [ -e "$kernel_dir/lib/modules/$kernel_release/modules.dep.bin" ]; then
  echo "install_deps: Debian kernel $kernel_release already in $kernel_dir"
else
  echo "install_deps: laying Debian's kernel $kernel_release (apt-get download linux-image-$kernel_release, a 70 MB download) in $kernel_dir"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # apt's _apt user downloads into a folder it can write; then the package is unpacked
  # (not installed) into a partial folder moved in place once complete.
  chmod 0777 "$work"
  (cd "$work" && apt-get download -qq "linux-image-$kernel_release")
  rm -rf "$kernel_dir.partial"
  mkdir -p "$kernel_dir.partial"
  dpkg-deb -x "$work"/linux-image-"$kernel_release"_*.deb "$kernel_dir.partial"
  PATH="$PATH:/usr/sbin:/sbin" depmod -b "$kernel_dir.partial" "$kernel_release"
  rm -rf "$kernel_dir"
  mv "$kernel_dir.partial" "$kernel_dir"
  rm -rf "$work"
  trap - EXIT
fi

# Debian's arm64 kernel and an arm64 userland for tests/kernel_aarch64_test.ts, unpacked
# with dpkg-deb (never installed) into one folder, .cache/kernel/arm64/<release>/, that
# the guest boots with as its root: the kernel's boot/ and lib/modules/<release>/, and
# busybox-static, bash, bluez's btmgmt and btvirt, script(1), and the C and C++
# libraries the arm64 Deno and noble's HCI addon load. apt runs with a configuration of
# its own (arm64 as its only architecture, its package lists and downloads in a
# temporary folder, this machine's sources): the machine's dpkg and apt state are left
# as they are. Debian's arm64 kernel is built without i2c-stub and hci_vhci (amd64's
# has both): they are compiled from Debian's kernel source (linux-source, a 140 MB
# download of which two files are kept) against its arm64 headers, with the cross
# compiler and the host's linux-kbuild, into lib/modules/<release>/updates/.
# A `.homewire-root` file names what was laid; another list lays again.
arm64_packages="busybox-static libc6 libgcc-s1 libstdc++6 bash libtinfo6 bluez bluez-test-tools libreadline8 bsdutils"
arm64_built="drivers/i2c/i2c-stub.c drivers/bluetooth/hci_vhci.c"
arm64_stamp="$arm64_packages; built: $arm64_built"
arm64_root="$repo/.cache/kernel/arm64"
laid_arm64() {
  local dir
  for dir in "$arm64_root"/*-arm64; do
    [ -e "$dir/.homewire-root" ] && [ "$(cat "$dir/.homewire-root")" = "$arm64_stamp" ] && [ -e "$dir/boot/vmlinuz-$(basename "$dir")" ] && {
      echo "$dir"
      return 0
    }
  done
  return 1
}
if dir="$(laid_arm64)"; then
  echo "install_deps: Debian arm64 kernel and userland already in $dir"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  chmod 0777 "$work"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
  chmod 0777 "$work/debs"
  apt_arm64=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Dir::State::status=/dev/null)
  echo "install_deps: fetching the arm64 package lists (apt-get update, in $work only)"
  apt-get -qq "${apt_arm64[@]}" update
  arm64_release="$(apt-cache "${apt_arm64[@]}" depends linux-image-arm64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\([0-9].*-arm64\)$/\1/p' | head -n 1)"
  if [ -z "$arm64_release" ]; then
    echo "install_deps: apt-cache names no kernel for linux-image-arm64:arm64: the aarch64 kernel suite is skipped without one, and fails with CI=true" >&2
    exit 1
  fi
  dir="$arm64_root/$arm64_release"
  version="$(printf '%s' "$arm64_release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')"            # 6.1
  abi="$(printf '%s' "$arm64_release" | sed 's/-arm64$//')"                                  # 6.1.0-56
  kbuild="linux-kbuild-$version"
  dpkg-query -W -f='${Status}' "$kbuild" 2>/dev/null | grep -q 'ok installed' ||
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$kbuild"
  echo "install_deps: laying Debian's arm64 kernel $arm64_release and $arm64_packages (a 65 MB download) in $dir"
  # shellcheck disable=SC2086 # the package list is split on purpose
  (cd "$work/debs" && apt-get -qq "${apt_arm64[@]}" download "linux-image-$arm64_release" $arm64_packages)
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$dir.partial"; done
  echo "install_deps: building $arm64_built for $arm64_release (linux-source-$version and the arm64 headers, a 150 MB download)"
  mkdir -p "$work/src"
  chmod 0777 "$work/src"
  (cd "$work/src" && apt-get -qq "${apt_arm64[@]}" download "linux-source-$version" "linux-headers-$arm64_release" "linux-headers-$abi-common")
  mkdir -p "$work/build/module"
  for deb in "$work"/src/linux-headers-*.deb; do dpkg-deb -x "$deb" "$work/build"; done
  headers="$work/build/usr/src/linux-headers-$arm64_release"
  # The headers name their common half and the kbuild scripts by their installed paths.
  sed -i "s|^include /usr/src/|include $work/build/usr/src/|" "$headers/Makefile"
  mkdir -p "$work/build/usr/lib"
  ln -sfn "/usr/lib/$kbuild" "$work/build/usr/lib/$kbuild"
  sources=()
  for file in $arm64_built; do sources+=("linux-source-$version/$file"); done
  dpkg-deb --fsys-tarfile "$work"/src/linux-source-"$version"_*.deb |
    tar -xO "./usr/src/linux-source-$version.tar.xz" | tar -xJ -C "$work/build" "${sources[@]}"
  objects=""
  for file in $arm64_built; do
    cp "$work/build/linux-source-$version/$file" "$work/build/module/"
    objects="$objects $(basename "$file" .c).o"
  done
  printf 'obj-m +=%s\n' "$objects" >"$work/build/module/Kbuild"
  make -s -C "$headers" M="$work/build/module" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules >"$work/build/make.log" 2>&1 || {
    cat "$work/build/make.log" >&2
    echo "install_deps: building $arm64_built for $arm64_release failed (above)" >&2
    exit 1
  }
  mkdir -p "$dir.partial/lib/modules/$arm64_release/updates"
  cp "$work"/build/module/*.ko "$dir.partial/lib/modules/$arm64_release/updates/"
  PATH="$PATH:/usr/sbin:/sbin" depmod -b "$dir.partial" "$arm64_release"
  printf '%s\n' "$arm64_stamp" >"$dir.partial/.homewire-root"
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
  rm -rf "$work"
  trap - EXIT
fi
