#!/usr/bin/env bash
# build-images.sh -- builds the Elastikey images from the jars the host's Maven build staged in docker/target/image.
#
#   docker/scripts/build-images.sh [elastikey] [elastikey-arm64] [prometheus] [redis]    default: all but arm64
#
#   elastikey:latest             the suite, for the host's architecture (docker/Dockerfile)
#   elastikey:arm64              the same for linux/arm64, built and run under qemu-user on an x86_64 host
#   elastikey-prometheus:latest  Debian's prometheus with the compose stack's scrape configuration
#   elastikey-redis:latest       Debian's redis-server (compose's Redis-backed key server, the Redis contract test)
#
# Needs `./mvnw -pl docker -am process-test-resources` (or any later phase) first, which stages the jars. Builds use
# the host's network (no Docker network is ever created) for apt-get, and the layer cache: a second run rebuilds
# only what changed, normally the small layer of Elastikey's own jars. Makes the debian:bookworm-slim base with
# debootstrap when it is missing and no registry can be pulled from (scripts/base-image.sh).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$DIR/.." && pwd)"
log() { printf 'build-images: %s\n' "$*" >&2; }

host_arch() { case "$(uname -m)" in x86_64) echo amd64 ;; aarch64) echo arm64 ;; *) uname -m ;; esac; }

# The base for an architecture: the local one base-image.sh makes, or pulled where a registry answers.
base_for() {
  local arch="$1" tag
  tag=$("$DIR/scripts/base-image.sh" --tag "$arch")
  if ! docker image inspect "$tag" >/dev/null 2>&1; then
    if [ "$arch" = "$(host_arch)" ] && docker pull -q "$tag" >/dev/null 2>&1; then
      :
    else
      "$DIR/scripts/base-image.sh" "$arch" >&2
    fi
  fi
  echo "$tag"
}

# docker build with the host's network; the legacy builder when BuildKit (buildx) is not installed.
build() {
  if ! docker buildx version >/dev/null 2>&1; then export DOCKER_BUILDKIT=0; fi
  # Only errors on the terminal: not the image id, nor the legacy builder's deprecation notice.
  { docker build --network host -q "$@" 2>&1 >/dev/null; } |
    { grep -vE '^(DEPRECATED: The legacy builder| +BuildKit is currently disabled| +environment-variable\.|$)' >&2 || true; }
}

stage() {
  [ -d "$DIR/target/image/lib" ] && [ -d "$DIR/target/image/app" ] ||
    { log "no staged jars in docker/target/image: run ./mvnw -pl docker -am -DskipTests verify first"; exit 1; }
  cp "$ROOT/jvm.properties" "$DIR/target/image/jvm.properties"
}

image_elastikey() {
  local arch="$1" tag="elastikey:latest" base
  [ "$arch" = "$(host_arch)" ] || tag="elastikey:$arch"
  stage
  base=$(base_for "$arch")
  log "building $tag (linux/$arch, from $base)"
  build --platform "linux/$arch" --build-arg BASE="$base" --build-arg ARCH="$arch" -t "$tag" -f "$DIR/Dockerfile" "$DIR"
}

image_simple() {
  local name="$1" base
  base=$(base_for "$(host_arch)")
  log "building elastikey-$name:latest"
  build --build-arg BASE="$base" -t "elastikey-$name:latest" -f "$DIR/$name/Dockerfile" "$DIR"
}

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(elastikey prometheus redis)
for w in "${want[@]}"; do
  case "$w" in
    elastikey) image_elastikey "$(host_arch)" ;;
    elastikey-arm64) image_elastikey arm64 ;;
    prometheus|redis) image_simple "$w" ;;
    *) log "unknown image $w"; exit 2 ;;
  esac
done
log "done: ${want[*]}"
