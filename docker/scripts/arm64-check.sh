#!/usr/bin/env bash
# arm64-check.sh -- the suite on an aarch64 JVM: the linux/arm64 image, run under qemu-user on an x86_64 host (or
# natively on an arm64 one). Proves that it runs, not how fast: emulation makes every figure meaningless.
#
#   docker/scripts/arm64-check.sh          exit 0: every check passed; 77: cannot run here (one line says why)
#
# The host's JVM generates keys into a volume; in the arm64 image the key server opens them (ElasticStore on
# Chronicle, unsealed, signed with ACCP) with the memory governor on (so the aarch64 libscaleup JNI library is
# loaded), and the check reads from its log that BoringSSL, epoll, ACCP and libscaleup loaded. The SKI load generator, on the host's own JVM from the same staged jars (emulated, it took 40 s
# to start), then sends it SKI requests over mutual TLS for a few seconds (answers verified), and the check reads its
# /metrics. Containers use the host's network. Each emulated JVM costs a minute or so of a CI run, so there is no
# more of them than the aarch64 side needs (a JMH run here cost 66 s and checked nothing the key store had not).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE=elastikey:arm64
[ "$(uname -m)" = aarch64 ] && IMAGE=elastikey:latest
PLATFORM=(--platform linux/arm64)
log() { printf 'arm64-check: %s\n' "$*" >&2; }
skip() { printf 'arm64-check: SKIPPED: %s\n' "$*" >&2; exit 77; }
fail() { printf 'arm64-check: FAILED: %s\n' "$*" >&2; exit 1; }

docker info >/dev/null 2>&1 || skip "no Docker engine answers"
if [ "$(uname -m)" != aarch64 ] && ! grep -qs '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
  skip "no qemu-aarch64 binfmt_misc handler with the F flag (apt-get install qemu-user-static binfmt-support)"
fi
# From the jars of this build: the layer cache makes it cheap when only Elastikey's own jars changed.
if [ "$IMAGE" = elastikey:arm64 ]; then
  "$DIR/scripts/build-images.sh" elastikey-arm64 || fail "could not build $IMAGE"
fi

# A loopback port nothing answers on (the containers share the host's network).
free_port() {
  local p
  for p in $(shuf -i 20000-60999 -n 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}
SKI=$(free_port); ADMIN=$(free_port)
VOLUME="elastikey-arm64-check-$$"
NAME="elastikey-arm64-keyserver-$$"
cleanup() { docker rm -f "$NAME" >/dev/null 2>&1 || true; docker volume rm "$VOLUME" >/dev/null 2>&1 || true; }
trap cleanup EXIT
run() { docker run --rm "${PLATFORM[@]}" --network host -v "$VOLUME:/srv/elastikey-data" "$IMAGE" "$@"; }

log "$IMAGE: $(docker run --rm "${PLATFORM[@]}" --entrypoint bash "$IMAGE" -c \
  'echo "$(uname -m), $(java -version 2>&1 | head -1)"')"
# The host's JVM (from the same staged jars) makes the data: keys, KEK and dev PKI, sealed in the ElasticStore
# the aarch64 key server then opens. Made under emulation, the keys and their certificates cost two more emulated
# JVMs, 90 s of a test run, and checked nothing the aarch64 server's opening, unsealing and signing do not.
docker volume create "$VOLUME" >/dev/null
data=$(docker volume inspect -f '{{ .Mountpoint }}' "$VOLUME")
accp="$DIR/target/image/accp/$(case "$(uname -m)" in aarch64) echo arm64 ;; *) echo amd64 ;; esac)"
host_cli() { # shellcheck disable=SC2046 # the flags are one line of words
  java $(sed -n 's/^elastikey\.jvm\.flags=//p' "$DIR/../jvm.properties") \
    -cp "$DIR/target/image/lib/*:$accp/*:$DIR/target/image/app/*" io.elastikey.launcher.Main "$@"
}
log "generating keys on the host's JVM into the volume"
out=$(host_cli keys generate --data "$data" --count 8 --type ec256 --no-warm-start 2>&1) ||
  { echo "$out" >&2; fail "keys generate on the host"; }
out=$(host_cli keys export-public --data "$data" --out "$data/certs.pem" 2>&1) ||
  { echo "$out" >&2; fail "keys export-public on the host"; }
chown -R 10001:10001 "$data" # the image's elastikey user

log "starting the key server (SKI 127.0.0.1:$SKI, admin 127.0.0.1:$ADMIN, memory governor on)"
docker run -d --name "$NAME" "${PLATFORM[@]}" --network host -v "$VOLUME:/srv/elastikey-data" \
  -e ELASTIKEY_ADMIN_LISTEN="127.0.0.1:$ADMIN" "$IMAGE" keyserver --dev --set "listen=127.0.0.1:$SKI" \
  --set keyless.listen=off --set warmup.exercise=0s --set warmup.requests=0s --set store.governor=on \
  --set scaleup.socket=/tmp/no-agent.sock >/dev/null
started=$SECONDS
for _ in $(seq 1 900); do
  curl -fs "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1 && break
  docker inspect -f '{{.State.Running}}' "$NAME" | grep -q true || { docker logs "$NAME" >&2; fail "the key server exited"; }
  sleep 1
done
curl -fs "http://127.0.0.1:$ADMIN/readyz" >/dev/null || { docker logs "$NAME" 2>&1 | tail -20 >&2; fail "not ready"; }
logs=$(docker logs "$NAME" 2>&1)
log "ready after $((SECONDS - started)) s"

check() { # name, pattern that proves it loaded
  if grep -qE "$2" <<<"$logs"; then log "loaded on aarch64: $1"; else log "NOT loaded on aarch64: $1"; return 1; fi
}
ok=true
check "netty-tcnative BoringSSL (the SKI listener's TLS)" 'OpenSslServerContext' || ok=false
check "netty epoll transport" '\(epoll' || ok=false
check "ACCP (AmazonCorrettoCryptoProvider for aarch64)" 'crypto provider: AmazonCorrettoCryptoProvider' || ok=false
check "libscaleup JNI library (NativeScaleUpClient)" 'scale-up client: NativeScaleUpClient' || ok=false
p256=$(grep -oE 'ec256=[^,)]*' <<<"$logs" | head -1)
log "P-256 signer: ${p256:-unknown} (the native libelastikey_p256_jni is built for the build host's architecture only)"
$ok || { grep -E 'crypto provider|scale-up client|listening' <<<"$logs" >&2; fail "a native part did not load"; }

# The key server runs under emulation with a cold JIT: a low rate and a long timeout, since only correctness counts.
log "SKI load generator on the host's JVM: 5 s at 4 requests/s over mutual TLS, every answer verified"
lg=$(host_cli loadgen ski --target "127.0.0.1:$SKI" --pki "$data/pki" --keys "$data/certs.pem" \
  --rate 4 --duration 5s --warmup 1s --verify-sample 1 --timeout-ms 60000 2>&1) || { echo "$lg" >&2; fail "loadgen"; }
grep -E '^(SKI|requests|verified|latency)' <<<"$lg" >&2
grep -qE '^verified +[1-9][0-9]* answers: 0 wrong' <<<"$lg" || fail "the load generator verified no answer"
answered=$(curl -fs "http://127.0.0.1:$ADMIN/metrics" |
  awk '/^elastikey_ski_requests_total\{.*result="ok"\}/ { n += $2 } END { print n + 0 }')
log "the key server's /metrics: $answered SKI requests answered ok"
[ "$answered" -gt 0 ] 2>/dev/null || awk -v n="$answered" 'BEGIN { exit !(n > 0) }' || fail "no SKI request answered ok"

log "passed"
