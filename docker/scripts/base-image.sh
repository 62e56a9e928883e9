#!/usr/bin/env bash
# base-image.sh -- makes the local base images the Dockerfiles build on, with debootstrap, where none can be pulled.
#
#   docker/scripts/base-image.sh [amd64|arm64]...     default: the host's architecture
#   docker/scripts/base-image.sh --tag ARCH           prints the tag the base of ARCH has here
#
# Where images can be pulled, the Dockerfiles' FROM debian:bookworm-slim simply pulls it and this script is not
# needed. Where no image registry answers (the build machines), a test run builds the base itself, once:
#   debian:bookworm-slim              for the host's architecture: a debootstrap --variant=minbase of bookworm from
#                                     the Debian mirror in the machine's apt sources
#   elastikey/runtime-arm64:bookworm  for arm64 on an x86_64 host: the same minbase plus the runtime packages
#                                     (docker/runtime-packages), unpacked natively (see make_foreign_runtime)
# A tag that exists already is kept, so later runs cost nothing.
set -euo pipefail

log() { printf 'base-image: %s\n' "$*" >&2; }

host_arch() { case "$(uname -m)" in x86_64) echo amd64 ;; aarch64) echo arm64 ;; *) uname -m ;; esac; }

# The tag a base of this architecture has here: the official name for the host's own architecture.
tag_for() {
  if [ "$1" = "$(host_arch)" ]; then echo "debian:bookworm-slim"; else echo "elastikey/runtime-$1:bookworm"; fi
}

# The first Debian mirror in the apt sources (deb822 or one-line format); deb.debian.org when none is found.
mirror() {
  local m
  m=$(sed -n 's/^URIs: *\([^ ]*debian\)\/\?$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$m" ] || m=$(sed -n 's/^deb \(\[[^]]*\] \)\?\([^ ]*debian\)\/\? .*/\2/p' /etc/apt/sources.list 2>/dev/null | head -1)
  echo "${m:-http://deb.debian.org/debian}"
}

# As the official -slim image is: no apt lists, no docs or man pages, no downloaded packages.
slim() {
  rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb \
    "$1"/usr/share/doc/* "$1"/usr/share/man/*
}

make_native() { # arch, rootfs, tag
  log "debootstrap --variant=minbase --arch=$1 bookworm from $(mirror) (about 25 s)"
  debootstrap --variant=minbase --arch="$1" bookworm "$2" "$(mirror)" >"$2.log" 2>&1 ||
    { tail -20 "$2.log" >&2; rm -f "$2.log"; return 1; }
  rm -f "$2.log"
  slim "$2"
  tar -C "$2" -c . | docker import --change 'CMD ["bash"]' - "$3" >/dev/null
}

# A foreign architecture's second debootstrap stage and apt-get run every maintainer script under qemu-user, which
# cost 5.5 minutes of each fresh test run here (the JDK's scripts start an emulated JVM to build its CA store).
# Instead, debootstrap --foreign only downloads (natively), every package is unpacked natively with dpkg-deb, and
# this function makes by hand the few things the maintainer scripts would have made that a JVM in a container
# needs: users and groups, the alternatives' links, the CA bundles (architecture-independent, copied from the
# host) and the dynamic linker's cache (the one step that runs under qemu). dpkg's database stays empty: the image
# runs Elastikey; it is not a base to apt-get more packages into.
make_foreign_runtime() { # arch, rootfs, tag
  local arch="$1" rootfs="$2" tag="$3" deb jvm cacerts
  local packages
  packages=$(sed 's/#.*//' "$(dirname "${BASH_SOURCE[0]}")/../runtime-packages" | tr -s ' \n' ',' |
    sed 's/^,//; s/,$//')
  log "debootstrap --foreign --variant=minbase --arch=$arch --include=$packages bookworm from $(mirror) (about 40 s)"
  debootstrap --foreign --variant=minbase --arch="$arch" --include="$packages" bookworm "$rootfs" "$(mirror)" \
    >"$rootfs.log" 2>&1 || { tail -20 "$rootfs.log" >&2; rm -f "$rootfs.log"; return 1; }
  rm -f "$rootfs.log"
  for deb in "$rootfs"/var/cache/apt/archives/*.deb; do
    dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$rootfs" ||
      { log "could not unpack $(basename "$deb")"; return 1; }
  done
  rm -rf "$rootfs/debootstrap" "$rootfs/proc" "${rootfs:?}"/dev/*
  mkdir -p "$rootfs/proc"
  cp "$rootfs/usr/share/base-passwd/passwd.master" "$rootfs/etc/passwd"
  cp "$rootfs/usr/share/base-passwd/group.master" "$rootfs/etc/group"
  printf '/bin/sh\n/usr/bin/sh\n/bin/bash\n/usr/bin/bash\n/bin/dash\n/usr/bin/dash\n' >"$rootfs/etc/shells"
  ln -sf mawk "$rootfs/usr/bin/awk"
  ln -sf which.debianutils "$rootfs/usr/bin/which"
  jvm=$(cd "$rootfs" && echo usr/lib/jvm/java-17-openjdk-*/bin)
  [ -x "$rootfs/$jvm/java" ] || { log "no JVM was unpacked into the $arch base"; return 1; }
  ln -sf "/$jvm/java" "$rootfs/usr/bin/java"
  ln -sf "/$jvm/keytool" "$rootfs/usr/bin/keytool"
  # The JDK's lib/security/cacerts points at ca-certificates-java's store; the host JVM's store (Debian's or its
  # own) resolves to the same kind of file.
  cacerts=$(readlink -f "$(dirname "$(readlink -f "$(command -v java)")")/../lib/security/cacerts")
  mkdir -p "$rootfs/etc/ssl/certs/java"
  cp "$cacerts" "$rootfs/etc/ssl/certs/java/cacerts"
  [ ! -f /etc/ssl/certs/ca-certificates.crt ] || cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
  chroot "$rootfs" /sbin/ldconfig
  chroot "$rootfs" /usr/bin/java -version >/dev/null 2>&1 || { log "the $arch base's JVM does not start"; return 1; }
  slim "$rootfs"
  # docker import records the host's architecture (its --platform needs an experimental daemon); a FROM scratch
  # build with --platform records the right one, so the images built on it say linux/arm64.
  mkdir "$rootfs.ctx"
  tar -C "$rootfs" -c . >"$rootfs.ctx/rootfs.tar"
  printf 'FROM scratch\nADD rootfs.tar /\nCMD ["bash"]\n' >"$rootfs.ctx/Dockerfile"
  if ! docker buildx version >/dev/null 2>&1; then export DOCKER_BUILDKIT=0; fi
  docker build -q --platform "linux/$arch" -t "$tag" "$rootfs.ctx" >/dev/null 2>"$rootfs.log" ||
    { cat "$rootfs.log" >&2; rm -f "$rootfs.log"; return 1; }
  rm -rf "$rootfs.ctx" "$rootfs.log"
}

make_base() {
  local arch="$1" tag rootfs
  tag=$(tag_for "$arch")
  if docker image inspect "$tag" >/dev/null 2>&1; then
    log "$tag exists"
    return 0
  fi
  rootfs=$(mktemp -d /tmp/elastikey-rootfs.XXXXXX)
  trap 'rm -rf "$rootfs" "$rootfs.ctx" "$rootfs.log"' RETURN
  if [ "$arch" = "$(host_arch)" ]; then
    make_native "$arch" "$rootfs" "$tag"
  else
    if ! grep -q enabled "/proc/sys/fs/binfmt_misc/qemu-$( [ "$arch" = arm64 ] && echo aarch64 || echo "$arch")" \
      2>/dev/null; then
      log "cannot make the $arch base: no qemu-user binfmt_misc handler for it is enabled"
      return 1
    fi
    make_foreign_runtime "$arch" "$rootfs" "$tag"
  fi
  log "imported $tag"
}

if [ "${1:-}" = --tag ]; then
  tag_for "${2:?--tag needs an architecture}"
  exit 0
fi
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=("$(host_arch)")
for a in "${archs[@]}"; do make_base "$a"; done
