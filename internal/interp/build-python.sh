#!/usr/bin/env bash
# Builds CPython for WASI preview1 (python.wasm plus its standard library)
# from Debian's own python3.11 source package, with Debian's clang, lld,
# wasi-libc and libclang-rt-14-dev-wasm32, and installs it where skillrun
# looks for interpreters:
#
#   $OUT/python.wasm      the interpreter, with zlib (Debian's zlib
#                         source) and skillrun's _skillrun module
#                         (pyext/skillrun_module.c, beside this script as
#                         skillrun_module.c: the exec host function) linked
#                         in. It is linked as a WASI reactor with entry
#                         points of skillrun's own (pyext/skillrun_main.c,
#                         beside this script as skillrun_main.c): _start,
#                         as a command's, and skillrun_init and
#                         skillrun_run, which start runs from a snapshot;
#                         and the compiled packages (build-pypackages.sh:
#                         Pillow, lxml), built in. One build serves every
#                         script: a standard-library script starts as
#                         fast on it as on a build without them
#                         (measured: ratio 1.006, docs/dev/compiled-
#                         python-packages.md)
#   $OUT/lib/python3.11/  the pure-Python standard library, mounted
#                         read-only in the guest at /usr/local/lib/python3.11
#   $OUT/lib/python3.11/dist-packages/
#                         the Python files of the compiled packages
#                         built in (build-pypackages.sh: Pillow, lxml)
#   $OUT/PACKAGES         those packages and their versions
#   $OUT/tests/           their own test suites (make test-packages)
#   $OUT/VERSION          the Debian source version it was built from,
#                         and this script's BUILD
#
# Usage: internal/interp/build-python.sh OUT   (or: make python)
#
# The source is fetched with apt-get source through a private APT
# configuration under the work folder (its own sources list with a deb-src
# entry, lists and cache); the system's APT configuration is not touched.
# The upstream tarball is checked against ORIG_SHA256 below; apt itself
# checks every file against the signed Sources index.
set -euo pipefail

DEB_VERSION=${DEB_VERSION:-3.11.2-6+deb12u8}
# BUILD counts changes to what this script installs from the same source;
# VERSION is "$DEB_VERSION+skillrun$BUILD", so a bump makes `make python`
# rebuild.
BUILD=8
ORIG_SHA256=${ORIG_SHA256:-2411c74bda5bbcfcddaf4531f66d1adc73f247f529aee981b029513aefdbf849}
# zlib, built for wasm32-wasi and linked in: zlib, gzip and zipfile's
# deflate (docx, xlsx and pptx are zip files) need it.
ZLIB_DEB_VERSION=${ZLIB_DEB_VERSION:-1:1.2.13.dfsg-1}
ZLIB_ORIG_SHA256=${ZLIB_ORIG_SHA256:-71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

out=${1:?usage: build-python.sh OUT}
# skillrun_module.c: beside this script where skillrun writes it, or in
# pyext/ of the source tree.
module_c=${SKILLRUN_MODULE_C:-$(dirname "$0")/skillrun_module.c}
[ -f "$module_c" ] || module_c=$(dirname "$0")/pyext/skillrun_module.c
[ -f "$module_c" ] || { echo "build-python.sh: $module_c is missing (skillrun's _skillrun module)" >&2; exit 1; }
module_c=$(cd "$(dirname "$module_c")" && pwd)/$(basename "$module_c")
main_c=${SKILLRUN_MAIN_C:-$(dirname "$module_c")/skillrun_main.c}
pkgs_sh=$(dirname "$0")/build-pypackages.sh
[ -f "$pkgs_sh" ] || { echo "build-python.sh: $pkgs_sh is missing (the compiled packages' build)" >&2; exit 1; }
pkgs_sh=$(cd "$(dirname "$pkgs_sh")" && pwd)/$(basename "$pkgs_sh")
[ -f "$main_c" ] || { echo "build-python.sh: $main_c is missing (skillrun's entry points)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

need=()
command -v clang >/dev/null || need+=(clang)
command -v wasm-ld >/dev/null || need+=(lld)
[ -e /usr/lib/wasm32-wasi/libc.a ] || need+=(wasi-libc)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
# The build runs a Python of the same series at build time; Debian's own
# first (a pyenv shim earlier in PATH may be another patch release).
build_python=${BUILD_PYTHON:-$(command -v /usr/bin/python3.11 || command -v python3.11 || true)}
[ -n "$build_python" ] || need+=(python3.11)
command -v xz >/dev/null || need+=(xz-utils)
if [ ${#need[@]} -gt 0 ]; then
  echo "build-python.sh: missing ${need[*]}; install the Debian packages: clang lld wasi-libc libclang-rt-14-dev-wasm32 dpkg-dev python3.11 xz-utils" >&2
  exit 1
fi

# A private APT configuration: only deb-src lines, own lists and cache.
apt="$work/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" "$apt/preferences.d"
cat >"$apt/sources.list" <<SRC
deb-src [signed-by=$KEYRING] $MIRROR bookworm main
deb-src [signed-by=$KEYRING] $MIRROR bookworm-updates main
deb-src [signed-by=$KEYRING] $SECURITY bookworm-security main
SRC
aptopts=(
  -o "Dir::Etc::sourcelist=$apt/sources.list"
  -o "Dir::Etc::sourceparts=$apt/sources.list.d"
  -o "Dir::Etc::preferencesparts=$apt/preferences.d"
  -o "Dir::State::Lists=$apt/lists"
  -o "Dir::Cache=$apt/cache"
  -o "APT::Sandbox::User=$(id -un)"
  -o "Debug::NoLocking=1"
)
declare -p aptopts >"$apt/aptopts.sh" # for build-pypackages.sh

src="$work/src"
if [ ! -f "$src/configure" ]; then
  echo "== apt-get source python3.11=$DEB_VERSION (private APT config in $apt)"
  apt-get "${aptopts[@]}" update -qq >/dev/null
  dl="$work/dl"
  mkdir -p "$dl"
  (cd "$dl" && apt-get "${aptopts[@]}" source --download-only -qq "python3.11=$DEB_VERSION")
  orig=$(ls "$dl"/python3.11_*.orig.tar.*)
  got=$(sha256sum "$orig" | cut -d' ' -f1)
  if [ "$got" != "$ORIG_SHA256" ]; then
    echo "build-python.sh: $orig has sha256 $got, want $ORIG_SHA256" >&2
    exit 1
  fi
  rm -rf "$src"
  dpkg-source --no-check -x "$dl"/python3.11_*.dsc "$src" >/dev/null
fi
# Built-in modules with dotted names (the compiled packages' extensions,
# "PIL._imaging"): 3.11.2's BuiltinImporter refuses any name found with a
# package path. CPython 3.12 dropped that check (gh-102700); the frozen
# importlib is regenerated from this file by the build.
python_bootstrap="$src/Lib/importlib/_bootstrap.py"
if grep -q '^        if path is not None:$' "$python_bootstrap"; then
  "$build_python" - "$python_bootstrap" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = """    def find_spec(cls, fullname, path=None, target=None):
        if path is not None:
            return None
        if _imp.is_builtin(fullname):"""
new = """    def find_spec(cls, fullname, path=None, target=None):
        if _imp.is_builtin(fullname):"""
assert s.count(old) == 1, "BuiltinImporter.find_spec changed"
open(p, "w").write(s.replace(old, new))
PY
fi

zsrc="$work/zlib-src"
zlib="$work/zlib"
if [ ! -f "$zlib/libz.a" ]; then
  echo "== apt-get source zlib=$ZLIB_DEB_VERSION; build it for wasm32-wasi"
  zdl="$work/zdl"
  mkdir -p "$zdl" "$zlib"
  [ -n "$(ls "$apt/lists/" 2>/dev/null | grep -v partial)" ] || apt-get "${aptopts[@]}" update -qq >/dev/null
  (cd "$zdl" && apt-get "${aptopts[@]}" source --download-only -qq "zlib=$ZLIB_DEB_VERSION")
  zorig=$(ls "$zdl"/zlib_*.orig.tar.*)
  got=$(sha256sum "$zorig" | cut -d' ' -f1)
  if [ "$got" != "$ZLIB_ORIG_SHA256" ]; then
    echo "build-python.sh: $zorig has sha256 $got, want $ZLIB_ORIG_SHA256" >&2
    exit 1
  fi
  rm -rf "$zsrc"
  dpkg-source --no-check -x "$zdl"/zlib_*.dsc "$zsrc" >/dev/null
  for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate inftrees trees uncompr zutil; do
    clang --target=wasm32-wasi -O2 -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN -c "$zsrc/$f.c" -o "$zlib/$f.o"
  done
  llvm-ar-14 rcs "$zlib/libz.a" "$zlib"/*.o
  cp "$zsrc/zlib.h" "$zsrc/zconf.h" "$zlib/"
fi

echo "== configure (wasm32-wasi, clang $(clang -dumpversion))"
bld="$work/build"
mkdir -p "$bld"
cd "$bld"
if [ ! -f Makefile ]; then
  CONFIG_SITE="$src/Tools/wasm/config.site-wasm32-wasi" \
  CC="clang --target=wasm32-wasi" CPP="clang --target=wasm32-wasi -E" \
  AR=llvm-ar-14 RANLIB=llvm-ranlib-14 \
  LDFLAGS="-Wl,--strip-debug" PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= \
  ZLIB_CFLAGS="-I$zlib" ZLIB_LIBS="-L$zlib -lz" \
  ac_cv_header_lzma_h=no ac_cv_header_bzlib_h=no \
  ac_cv_header_uuid_h=no ac_cv_header_uuid_uuid_h=no ac_cv_header_sqlite3_h=no \
  ac_cv_header_ffi_h=no ac_cv_header_gdbm_h=no ac_cv_header_readline_readline_h=no \
    "$src/configure" -C \
      --host=wasm32-unknown-wasi --build="$("$src/config.guess")" \
      --with-build-python="$build_python" \
      --disable-ipv6 --disable-test-modules --without-ensurepip \
      --prefix=/usr/local >configure.log 2>&1 || { tail -40 configure.log >&2; exit 1; }
fi
# skillrun's _skillrun module and entry points, built in statically (WASI
# has no shared modules): Setup.local is read after configure, by
# makesetup.
cp "$module_c" "$src/Modules/_skillrunmodule.c"
cp "$main_c" "$src/Modules/_skillrunmain.c"
# The compiled packages: archives, their built-in table and Python files.
pkg="$work/pkgs"
WORK="$work" PKG="$pkg" BUILD_PYTHON="$build_python" bash "$pkgs_sh"
cp "$pkg/skillrun_pkgs.c" "$src/Modules/_skillrunpkgs.c"
# Linked after python.o and before zlib: the packages' archives in
# dependency order (lxml needs libxslt and libxml2; Pillow libjpeg).
libs="$(sed -n 's/^LIBS=[[:space:]]*//p' Makefile)"
pkglibs="$libs"
for a in liblxml libexslt libxslt libxml2 libpillow libjpeg; do
  pkglibs="$pkglibs $pkg/lib/$a.a"
done
printf '*static*\n_skillrun _skillrunmodule.c _skillrunmain.c _skillrunpkgs.c\n' >Modules/Setup.local
echo "== make -j$jobs"
# A reactor, so that skillrun_init's work survives its return (a
# command's exports run its constructors and destructors around every
# call); __stack_pointer exported, so that a snapshot can save and
# restore it. _start is skillrun_main.c's.
rm -f python.wasm
make -j"$jobs" python.wasm LIBS="$pkglibs" LINKFORSHARED="-mexec-model=reactor -Wl,--export=__stack_pointer" >make.log 2>&1 || { tail -40 make.log >&2; exit 1; }
# A call through a mismatched declaration links as a trap, with only a
# warning: refuse the build instead.
if grep -q "signature mismatch" make.log; then
  grep "signature mismatch" make.log >&2
  echo "build-python.sh: the link found calls with mismatched signatures (they would trap at run time)" >&2
  exit 1
fi

echo "== install into $out"
tmp="$out.tmp"
rm -rf "$tmp"
mkdir -p "$tmp/lib"
cp python.wasm "$tmp/python.wasm"
cp -r "$src/Lib" "$tmp/lib/python3.11"
# The build-time sysconfig data the guest imports at startup.
cp build/lib.wasi-wasm32-3.11/_sysconfigdata__wasi_wasm32-wasi.py "$tmp/lib/python3.11/" 2>/dev/null || true
# dist-packages: the folder Debian's site.py adds to sys.path.
mkdir -p "$tmp/lib/python3.11/dist-packages"
cp -r "$pkg/site-packages/." "$tmp/lib/python3.11/dist-packages/"
cp "$pkg/PACKAGES" "$tmp/PACKAGES"
cp -r "$pkg/tests" "$tmp/tests"
find "$tmp/lib/python3.11" -depth \( -name __pycache__ -o -name test -o -name tests -o -name idlelib -o -name tkinter -o -name turtledemo -o -name ensurepip \) -type d -exec rm -rf {} +
# Bytecode for the standard library. It is mounted read-only, so without
# it every run compiles every module it imports (1.25 s instead of 0.31 s
# for examples/py-csv-report). checked-hash: valid whatever the files'
# times, and checked against the source, so a changed file is never run
# from stale bytecode.
"$build_python" -m compileall -q -j0 --invalidation-mode checked-hash -d /usr/local/lib/python3.11 "$tmp/lib/python3.11" >/dev/null
echo "$DEB_VERSION+skillrun$BUILD" >"$tmp/VERSION"
rm -rf "$out"
mv "$tmp" "$out"
echo "== done: $out/python.wasm ($(du -h "$out/python.wasm" | cut -f1))"
