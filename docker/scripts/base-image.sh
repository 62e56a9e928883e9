#!/usr/bin/env bash
# base-image.sh -- makes the local debian:bookworm-slim base image (and its arm64 twin) with debootstrap.
#
#   docker/scripts/base-image.sh [amd64|arm64]...     default: the host's architecture
#
# Where images can be pulled, the Dockerfiles' FROM debian:bookworm-slim simply pulls it and this script is not
# needed. Where no image registry answers (the build machines), a test run builds the base itself, once: a
# debootstrap --variant=minbase of bookworm from the Debian mirror in the machine's apt sources, imported as
#   debian:bookworm-slim             for the host's architecture
#   elastikey/debian-arm64:bookworm  for arm64 on an x86_64 host (its RUN steps run under qemu-user, binfmt_misc)
# A tag that exists already is kept, so later runs cost nothing.
set -euo pipefail

log() { printf 'base-image: %s\n' "$*" >&2; }

host_arch() { case "$(uname -m)" in x86_64) echo amd64 ;; aarch64) echo arm64 ;; *) uname -m ;; esac; }

# The tag a base of this architecture has here: the official name for the host's own architecture.
tag_for() {
  if [ "$1" = "$(host_arch)" ]; then echo "debian:bookworm-slim"; else echo "elastikey/debian-$1:bookworm"; fi
}

# The first Debian mirror in the apt sources (deb822 or one-line format); deb.debian.org when none is found.
mirror() {
  local m
  m=$(sed -n 's/^URIs: *\([^ ]*debian\)\/\?$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$m" ] || m=$(sed -n 's/^deb \(\[[^]]*\] \)\?\([^ ]*debian\)\/\? .*/\2/p' /etc/apt/sources.list 2>/dev/null | head -1)
  echo "${m:-http://deb.debian.org/debian}"
}

make_base() {
  local arch="$1" tag rootfs
  tag=$(tag_for "$arch")
  if docker image inspect "$tag" >/dev/null 2>&1; then
    log "$tag exists"
    return 0
  fi
  if [ "$arch" != "$(host_arch)" ] && ! grep -q enabled "/proc/sys/fs/binfmt_misc/qemu-$( [ "$arch" = arm64 ] && echo aarch64 || echo "$arch")" 2>/dev/null; then
    log "cannot make the $arch base: no qemu-user binfmt_misc handler for it is enabled"
    return 1
  fi
  rootfs=$(mktemp -d /tmp/elastikey-rootfs.XXXXXX)
  trap 'rm -rf "$rootfs"' RETURN
  log "debootstrap --variant=minbase --arch=$arch bookworm from $(mirror) (about 25 s natively, longer under qemu)"
  debootstrap --variant=minbase --arch="$arch" bookworm "$rootfs" "$(mirror)" >"$rootfs.log" 2>&1 ||
    { tail -20 "$rootfs.log" >&2; rm -f "$rootfs.log"; return 1; }
  rm -f "$rootfs.log"
  # Slim it as the official -slim image is: no apt lists, no docs or man pages.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
  if [ "$arch" = "$(host_arch)" ]; then
    tar -C "$rootfs" -c . | docker import --change 'CMD ["bash"]' - "$tag" >/dev/null
  else
    # docker import records the host's architecture (its --platform needs an experimental daemon); a FROM scratch
    # build with --platform records the right one, so the images built on it say linux/arm64.
    tar -C "$rootfs" -c . >"$rootfs.tar"
    printf 'FROM scratch\nADD rootfs.tar /\nCMD ["bash"]\n' >"$rootfs.Dockerfile"
    mkdir "$rootfs.ctx" && mv "$rootfs.tar" "$rootfs.ctx/rootfs.tar"
    if ! docker buildx version >/dev/null 2>&1; then export DOCKER_BUILDKIT=0; fi
    docker build -q --platform "linux/$arch" -t "$tag" -f "$rootfs.Dockerfile" "$rootfs.ctx" >/dev/null
    rm -rf "$rootfs.ctx" "$rootfs.Dockerfile"
  fi
  log "imported $tag"
}

archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=("$(host_arch)")
for a in "${archs[@]}"; do make_base "$a"; done
