#!/usr/bin/env bash
# dist.sh builds skillrun's release archives into dist/ (`make dist`): for
# each platform, the skillrun client and engine (static, stripped, built
# with the bundle's digest and URL) beside the interpreter bundle, so
# `skillrun interpreters install` on a machine with no Go, clang or Debian
# packages installs and verifies the interpreters. Also dist/SHA256SUMS.
#
# Environment: VERSION (default: git describe), DIST_BASE_URL (where the
# release publishes its files), PLATFORMS (default: the four released),
# INTERPRETERS (the interpreters folder to bundle; Python must be
# installed there: make python), GO.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
DIST_BASE_URL=${DIST_BASE_URL:-https://github.com/skillrun/skillrun/releases/download/$VERSION}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64 darwin/arm64 windows/amd64}
OUT=dist
bundle=skillrun-interpreters-$VERSION.tar.gz
dirflag=()
if [ -n "${INTERPRETERS:-}" ]; then dirflag=(--dir "$INTERPRETERS"); fi

rm -rf "$OUT" && mkdir -p "$OUT"
# The interpreters are the same WebAssembly on every platform: one bundle.
# The shell and JavaScript guests are rebuilt from this tree if not current.
digest=$($GO run ./cmd/skillrun interpreters bundle -o "$OUT/$bundle" "${dirflag[@]}")
echo "bundle $bundle sha256 $digest"

pkg=github.com/skillrun/skillrun/internal/interp
ldflags="-s -w -X $pkg.bundleDigest=$digest -X $pkg.bundleURL=$DIST_BASE_URL/$bundle"
for p in $PLATFORMS; do
  os=${p%/*} arch=${p#*/} ext=""
  [ "$os" = windows ] && ext=.exe
  name=skillrun-$VERSION-$os-$arch
  d=$OUT/$name
  mkdir -p "$d"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -ldflags "$ldflags" -o "$d/skillrun-engine$ext" ./cmd/skillrun
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -ldflags "-s -w" -o "$d/skillrun$ext" ./cmd/skillrun-client
  cp "$OUT/$bundle" LICENSE README.md "$d/"
  tar -czf "$OUT/$name.tar.gz" -C "$OUT" "$name"
  rm -rf "$d"
  echo "built $OUT/$name.tar.gz"
done
(cd "$OUT" && sha256sum -- *.tar.gz > SHA256SUMS)
echo "$digest" > "$OUT/BUNDLE-SHA256" # the digest release binaries carry
