#!/usr/bin/env bash
# Builds the compiled Python packages that skillrun's WASI CPython carries
# (Pillow with libjpeg-turbo and zlib, lxml with libxml2 and libxslt) for
# wasm32-wasi, as static archives that build-python.sh links into
# python.wasm. WASI has no dlopen: every extension module becomes a
# built-in, registered under its full dotted name ("PIL._imaging") by the
# table this script generates.
#
# Called by build-python.sh (not by hand) with:
#   WORK      its work folder (private APT config in WORK/apt, zlib in
#             WORK/zlib, the CPython source in WORK/src and its
#             configured build in WORK/build: pyconfig.h and Include/)
#   PKG       the folder to fill:
#               PKG/lib/*.a            the archives to link
#               PKG/skillrun_pkgs.c    the built-in table (skillrun_main.c
#                                      extends the inittab with it)
#               PKG/site-packages/     the packages' Python files
#               PKG/tests/             the packages' own test suites
#                                      (pillow/: Pillow's Tests; lxml/:
#                                      lxml's tests and doctests), which
#                                      scripts/packages_suite_test.go runs
#               PKG/PACKAGES           a line per package and C library:
#                                      name, version, Debian source
#                                      (name=version), and the Python
#                                      import ("-" for a C library)
#
# Every source is Debian bookworm's own source package, fetched with
# apt-get source through build-python.sh's private APT configuration and
# its upstream tarball checked against the sha256 below (apt checks every
# file against the signed Sources index; the orig checksum stays the same
# across +debNuN security uploads, so a newer upload still builds).
#
# numpy, pandas, scipy and matplotlib are not here: the Debian archive
# this machine reaches answers 404 for their upstream tarballs (see
# docs/dev/compiled-python-packages.md).
set -euo pipefail
shopt -s inherit_errexit

work=${WORK:?}
pkg=${PKG:?}
. "$work/apt/aptopts.sh"

# Debian source package, its bookworm version and its orig tarball sha256.
JPEG=(libjpeg-turbo 1:2.1.5-2 254f3642b04e309fee775123133c6464181addc150499561020312ec61c1bf7c)
PILLOW=(pillow 9.4.0-1.1+deb12u1 0a58ccfbd002838b32e21773bfdaa954a2de08d1f04b87b63d14e751fec3264d)
XML2=(libxml2 2.9.14+dfsg-1.3~deb12u6 4fe913dec8b1ab89d13b489b419a8203176ea39e931eaa0d25b17eafb9c279e9)
XSLT=(libxslt 1.1.35-1+deb12u4 8247f33e9a872c6ac859aa45018bc4c4d00b97e2feac9eebc10c93ce1f34dd79)
LXML=(lxml 4.9.2-1+deb12u1 2455cfaeb7ac70338b3257f41e21f0724f4b5b0c0e7702da67ee6c3640835b67)

jobs=$(nproc 2>/dev/null || echo 2)
# The build's own Python (build-python.sh's: Debian's python3.11).
python=${BUILD_PYTHON:-/usr/bin/python3.11}
CC=(clang --target=wasm32-wasi)
AR=llvm-ar-14
# Every object: -O2 like the interpreter, with WebAssembly's 128-bit SIMD
# for the loops clang vectorises (wazero compiles it to the machine's
# vector instructions; libjpeg-turbo's and Pillow's hand-written SIMD is
# x86 and Arm only), no host headers (the CPython headers are the WASI
# build's), a setjmp.h whose longjmp ends the run with a message
# (wasi-libc has none, and wazero cannot unwind).
CFLAGS=(-O2 -msimd128 -g0 -D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_PROCESS_CLOCKS -D_WASI_EMULATED_GETPID
  -I"$pkg/include" -Wno-unused-command-line-argument)
PYINC=(-I"$work/build" -I"$work/src/Include" -I"$work/src/Include/internal")

# source NAME VERSION SHA256: the unpacked Debian source (with Debian's
# patches applied) in $work/pkgsrc/NAME; its folder is printed.
source_pkg() {
  local name=$1 version=$2 sum=$3 dir="$work/pkgsrc/$1"
  if [ ! -f "$dir/.unpacked" ]; then
    echo "== apt-get source $name=$version" >&2
    local dl="$work/pkgdl/$name"
    rm -rf "$dl" "$dir"
    mkdir -p "$dl" "$work/pkgsrc"
    [ -n "$(ls "$work/apt/lists/" 2>/dev/null | grep -v partial)" ] || apt-get "${aptopts[@]}" update -qq >&2
    (cd "$dl" && apt-get "${aptopts[@]}" source --download-only -qq "$name=$version" >&2)
    local orig got
    orig=$(ls "$dl/${name}_"*.orig.tar.* | grep -v -- '-[a-z0-9]*\.tar\.\|\.asc$' | head -1)
    got=$(sha256sum "$orig" | cut -d' ' -f1)
    if [ "$got" != "$sum" ]; then
      echo "build-pypackages.sh: $orig has sha256 $got, want $sum" >&2
      exit 1
    fi
    dpkg-source --no-check -x "$dl"/*.dsc "$dir" >/dev/null
    touch "$dir/.unpacked"
  fi
  echo "$dir"
}

# compile OUT_DIR FLAGS... -- FILES...: one object per file, $jobs at a time.
compile() {
  local out=$1
  shift
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  mkdir -p "$out"
  printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c '
    f={}; o='"$out"'/$(echo "$f" | tr / _ | sed "s/\.c$/.o/")
    exec "$0" "$@" -c "$f" -o "$o"' "${CC[@]}" "${CFLAGS[@]}" "${flags[@]}"
}

mkdir -p "$pkg/lib" "$pkg/include" "$pkg/site-packages" "$pkg/tests"
: >"$pkg/PACKAGES"
: >"$pkg/inittab"

# --- setjmp.h: setjmp returns 0; longjmp, the error path of the C
# libraries that use it (libjpeg through Pillow), prints what failed and
# traps. The run ends with exit 125 and the message, never a hang.
cat >"$pkg/include/setjmp.h" <<'H'
#ifndef SKILLRUN_SETJMP_H
#define SKILLRUN_SETJMP_H
typedef long jmp_buf[1];
#define setjmp(env) ((void)(env), 0)
#ifndef SKILLRUN_LONGJMP_WHO
#define SKILLRUN_LONGJMP_WHO "a C library"
#endif
_Noreturn void skillrun_longjmp(const char *who);
#define longjmp(env, val) ((void)(env), (void)(val), skillrun_longjmp(SKILLRUN_LONGJMP_WHO))
#endif
H
cat >"$pkg/skillrun_longjmp.c" <<'C'
#include <stdio.h>
_Noreturn void skillrun_longjmp(const char *who) {
    fprintf(stderr, "skillrun: %s reported a fatal error (corrupt or unsupported data) through longjmp, "
                    "which WebAssembly here cannot unwind: the run ends\n", who);
    fflush(NULL);
    __builtin_trap();
}
C

# --- libjpeg-turbo: the C path (no SIMD), libjpeg 6.2 API as Debian's
# libjpeg62-turbo, arithmetic coding and memory source/destination on.
jsrc=$(source_pkg "${JPEG[@]}")
jout="$work/pkgbuild/jpeg"
jver=$(sed -n 's/^set(VERSION \([0-9.]*\)).*/\1/p' "$jsrc/CMakeLists.txt")
if [ ! -f "$pkg/lib/libjpeg.a" ]; then
  echo "== libjpeg-turbo" >&2
  mkdir -p "$jout/inc"
  sed -e "s/@JPEG_LIB_VERSION@/62/" -e "s/@VERSION@/$jver/" \
    -e "s/@LIBJPEG_TURBO_VERSION_NUMBER@/$(echo "$jver" | awk -F. '{printf "%d%03d%03d", $1, $2, $3}')/" \
    -e "s/@BITS_IN_JSAMPLE@/8/" \
    -e "s/#cmakedefine C_ARITH_CODING_SUPPORTED 1/#define C_ARITH_CODING_SUPPORTED 1/" \
    -e "s/#cmakedefine D_ARITH_CODING_SUPPORTED 1/#define D_ARITH_CODING_SUPPORTED 1/" \
    -e "s/#cmakedefine MEM_SRCDST_SUPPORTED 1/#define MEM_SRCDST_SUPPORTED 1/" \
    -e "s/#cmakedefine \(.*\)/\/* #undef \1 *\//" "$jsrc/jconfig.h.in" >"$jout/inc/jconfig.h"
  sed -e 's/@BUILD@/skillrun/' -e 's/@INLINE@/inline __attribute__((always_inline))/' -e 's/@THREAD_LOCAL@//' \
    -e 's/@CMAKE_PROJECT_NAME@/libjpeg-turbo/' -e "s/@VERSION@/$jver/" -e 's/@SIZE_T@/4/' \
    -e 's/#cmakedefine HAVE_BUILTIN_CTZL/#define HAVE_BUILTIN_CTZL/' -e 's/#cmakedefine \(.*\)/\/* #undef \1 *\//' \
    "$jsrc/jconfigint.h.in" >"$jout/inc/jconfigint.h"
  sed -e 's/@COPYRIGHT_YEAR@/1991-2023/' "$jsrc/jversion.h.in" >"$jout/inc/jversion.h"
  files=()
  for f in $(sed -n '/^set(JPEG_SOURCES/,/)/p' "$jsrc/CMakeLists.txt" | tr -d '()' | sed 's/setJPEG_SOURCES//'); do
    files+=("$jsrc/$f")
  done
  files+=("$jsrc/jaricom.c" "$jsrc/jcarith.c" "$jsrc/jdarith.c" "$jsrc/jsimd_none.c")
  compile "$jout/obj" -I"$jout/inc" -I"$jsrc" -- "${files[@]}"
  mkdir -p "$pkg/include/jpeg"
  cp "$jout/inc/jconfig.h" "$jsrc/jpeglib.h" "$jsrc/jmorecfg.h" "$jsrc/jerror.h" "$pkg/include/jpeg/"
  $AR rcs "$pkg/lib/libjpeg.a" "$jout/obj"/*.o
fi
echo "libjpeg-turbo	$jver	${JPEG[0]}=${JPEG[1]}	-" >>"$pkg/PACKAGES"

# ext NAME SYMBOL [BEFORE]: registers the built-in NAME, whose init
# function the package's C calls PyInit_<last part>, renamed at compile
# time to SYMBOL (two packages' extensions may share a last part);
# BEFORE, a C function of the package's archive, runs first.
ext() { echo "$1 $2 ${3:-}" >>"$pkg/inittab"; }

# --- Pillow: PIL._imaging (zlib and libjpeg-turbo codecs), _imagingmath,
# _imagingmorph. Left out: _imagingft (FreeType), _imagingcms (lcms2),
# _webp, _imagingtk, and the TIFF and JPEG 2000 codecs.
psrc=$(source_pkg "${PILLOW[@]}")
pout="$work/pkgbuild/pillow"
pver=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$psrc/src/PIL/_version.py")
if [ ! -f "$pkg/lib/libpillow.a" ]; then
  echo "== Pillow $pver" >&2
  # METH_NOARGS methods defined with one parameter: CPython calls them
  # with two, which C on a native machine tolerates and WebAssembly traps
  # on ("indirect call type mismatch"). Pillow 10 fixed its own; here the
  # definitions get the second, unused parameter.
  "$python" - "$psrc/src"/*.c <<'PY'
import re, sys
for path in sys.argv[1:]:
    src = open(path).read()
    names = set(re.findall(r'\(PyCFunction\)\s*(\w+)\s*,\s*METH_NOARGS', src))
    fixed = src
    for name in names:
        fixed = re.sub(r'^(%s\(\s*\w+\s*\*\s*\w+)\)' % re.escape(name),
                       r'\1, PyObject *Py_UNUSED(unused))', fixed, flags=re.M)
    if fixed != src:
        open(path, "w").write(fixed)
PY
  files=("$psrc/src/_imaging.c" "$psrc/src/_imagingmath.c" "$psrc/src/_imagingmorph.c")
  for f in $(sed -n 's/^_IMAGING = (\(.*\))/\1/p' "$psrc/setup.py" | tr -d '",'); do files+=("$psrc/src/$f.c"); done
  for f in $(sed -n '/^_LIB_IMAGING = (/,/^)/p' "$psrc/setup.py" | sed '1d;$d' | tr -d '",'); do files+=("$psrc/src/libImaging/$f.c"); done
  compile "$pout/obj" "${PYINC[@]}" -I"$psrc/src/libImaging" -I"$pkg/include/jpeg" -I"$work/zlib" \
    -DHAVE_LIBJPEG -DHAVE_LIBZ -DPILLOW_VERSION="\"$pver\"" -DSKILLRUN_LONGJMP_WHO='"Pillow (libjpeg)"' \
    -DPyInit__imaging=skillrun_PyInit_PIL__imaging -DPyInit__imagingmath=skillrun_PyInit_PIL__imagingmath \
    -DPyInit__imagingmorph=skillrun_PyInit_PIL__imagingmorph -Wno-implicit-function-declaration -- "${files[@]}" "$pkg/skillrun_longjmp.c"
  $AR rcs "$pkg/lib/libpillow.a" "$pout/obj"/*.o
fi
ext PIL._imaging skillrun_PyInit_PIL__imaging
ext PIL._imagingmath skillrun_PyInit_PIL__imagingmath
ext PIL._imagingmorph skillrun_PyInit_PIL__imagingmorph
preimport="PIL.Image"
rm -rf "$pkg/site-packages/PIL" "$pkg/tests/pillow"
cp -r "$psrc/src/PIL" "$pkg/site-packages/PIL"
cp -r "$psrc/Tests" "$pkg/tests/pillow"
echo "Pillow	$pver	${PILLOW[0]}=${PILLOW[1]}	PIL" >>"$pkg/PACKAGES"

# autotools_static NAME SRC OUT CONFIGURE_ARGS...: a static library built
# with the package's own configure for wasm32-wasi, installed under OUT
# (DIRS, if set, the only folders made: the libraries, not the tools).
autotools_static() {
  local name=$1 src=$2 out=$3
  shift 3
  if [ ! -f "$out/.built" ]; then
    echo "== $name" >&2
    local b="$work/pkgbuild/$name"
    rm -rf "$b" "$out"
    mkdir -p "$b"
    # CPython's config.sub knows wasm32-wasi; these releases' do not.
    cp "$work/src/config.sub" "$work/src/config.guess" "$src/"
    # Debian's patches touch Makefile.am files of tests and docs only: keep
    # the release's generated files rather than need automake.
    find "$src" \( -name aclocal.m4 -o -name configure -o -name Makefile.in -o -name config.h.in \) -exec touch {} +
    (cd "$b" && CC="${CC[*]}" AR=$AR RANLIB=llvm-ranlib-14 CFLAGS="${CFLAGS[*]}" \
      CPPFLAGS="-I$work/zlib ${EXTRA_CPPFLAGS:-}" LDFLAGS="-L$work/zlib" \
      PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= \
      "$src/configure" --host=wasm32-unknown-wasi --build="$("$src/config.guess")" --prefix="$out" \
        --disable-shared --enable-static --disable-maintainer-mode "$@" >configure.log 2>&1 || { tail -30 configure.log >&2; exit 1; }
     for d in ${DIRS:-.}; do
       make -C "$d" -j"$jobs" >>make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
       make -C "$d" install >>install.log 2>&1 || { tail -30 install.log >&2; exit 1; }
     done)
    touch "$out/.built"
  fi
}

# --- libxml2 and libxslt: no threads, no network (no HTTP or FTP), no
# modules; libxml2's own entity-amplification and depth limits as built.
xsrc=$(source_pkg "${XML2[@]}")
xml="$work/pkgbuild/libxml2-install"
# WASI has no dup: libxml2 uses it only to gzip-read standard input or
# write standard output ("-"), which then fails as an unopenable file.
echo '#define dup(fd) (-1)' >"$pkg/include/skillrun_nodup.h"
EXTRA_CPPFLAGS="-include $pkg/include/skillrun_nodup.h" autotools_static libxml2 "$xsrc" "$xml" --without-threads --without-thread-alloc --without-python \
  --without-http --without-ftp --without-modules --without-lzma --without-readline --without-history \
  --without-debug --with-zlib --without-icu
cp "$xml/lib/libxml2.a" "$pkg/lib/"
echo "libxml2	$(sed -n 's/^Version: //p' "$xml/lib/pkgconfig/libxml-2.0.pc")	${XML2[0]}=${XML2[1]}	-" >>"$pkg/PACKAGES"
tsrc=$(source_pkg "${XSLT[@]}")
xslt="$work/pkgbuild/libxslt-install"
DIRS="libxslt libexslt" autotools_static libxslt "$tsrc" "$xslt" --with-libxml-prefix="$xml" --without-python --without-crypto \
  --without-plugins --without-debug --without-debugger
cp "$xslt/lib/libxslt.a" "$xslt/lib/libexslt.a" "$pkg/lib/"
echo "libxslt	$(sed -n 's/^#define LIBXSLT_DOTTED_VERSION "\(.*\)"/\1/p' "$xslt/include/libxslt/xsltconfig.h")	${XSLT[0]}=${XSLT[1]}	-" >>"$pkg/PACKAGES"

# --- lxml: lxml.etree and lxml.objectify from the C that Cython 0.29.32
# generated for the release (in the upstream tarball); the rest of lxml
# has pure-Python fallbacks (builder, sax, _elementpath, html).
lsrc=$(source_pkg "${LXML[@]}")
lout="$work/pkgbuild/lxml"
lver=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$lsrc/src/lxml/__init__.py")
if [ ! -f "$pkg/lib/liblxml.a" ]; then
  echo "== lxml $lver" >&2
  # Encoding names that libxml2 hands to iconv, where wasi-libc's
  # (musl's) differs from glibc's, which Debian's lxml uses: "UTF16" and
  # "UCS-2" without a byte order mean big-endian to musl and the
  # machine's order (with a BOM for UTF16) to glibc. They go to libxml2's
  # own little-endian handlers, as on the machines lxml is used on.
  mkdir -p "$lout"
  cat >"$lout/aliases.c" <<'C'
#include <libxml/encoding.h>
void skillrun_lxml_before(void) {
    xmlAddEncodingAlias("UTF-16", "UTF16");
    xmlAddEncodingAlias("UTF-16LE", "UCS-2");
    xmlAddEncodingAlias("UTF-16LE", "UCS2");
}
C
  compile "$lout/obj" "${PYINC[@]}" -I"$lsrc/src/lxml/includes" -I"$lsrc/src/lxml" \
    -I"$xml/include/libxml2" -I"$xslt/include" -DLIBXML_STATIC -DLIBXSLT_STATIC -DLIBEXSLT_STATIC \
    -DCYTHON_CLINE_IN_TRACEBACK=0 -DPyInit_etree=skillrun_PyInit_lxml_etree \
    -DPyInit_objectify=skillrun_PyInit_lxml_objectify -Wno-implicit-function-declaration \
    -- "$lsrc/src/lxml/etree.c" "$lsrc/src/lxml/objectify.c" "$lout/aliases.c"
  $AR rcs "$pkg/lib/liblxml.a" "$lout/obj"/*.o
fi
ext lxml.etree skillrun_PyInit_lxml_etree skillrun_lxml_before
ext lxml.objectify skillrun_PyInit_lxml_objectify
preimport="$preimport lxml.etree"
rm -rf "$pkg/site-packages/lxml" "$pkg/tests/lxml"
mkdir -p "$pkg/site-packages/lxml"
(cd "$lsrc/src/lxml" && find . \( -name tests -prune \) -o \( -name '*.py' -o -name '*.rng' -o -name '*.xsl' \) -print |
  xargs cp --parents -t "$pkg/site-packages/lxml")
# The tests find their doctests three folders up (../../../doc):
# tests/lxml/src/suite/lxmltests (a package not named lxml) and
# tests/lxml/doc.
mkdir -p "$pkg/tests/lxml/src/suite" "$pkg/tests/lxml/doc"
cp -r "$lsrc/src/lxml/tests" "$pkg/tests/lxml/src/suite/lxmltests"
cp "$lsrc/doc"/*.txt "$pkg/tests/lxml/doc/"
echo "lxml	$lver	${LXML[0]}=${LXML[1]}	lxml" >>"$pkg/PACKAGES"

# --- The built-in table: each module's init wrapped so that a
# single-phase module (Pillow's) is created under its full dotted name, as
# CPython's loader of a shared module does (through _Py_PackageContext).
site=/usr/local/lib/python3.11/dist-packages # the packages' folder in the guest
{
  echo '/* Generated by build-pypackages.sh: the compiled packages built into python.wasm. */'
  echo '#include "Python.h"'
  echo '#include <stdlib.h>'
  n=0
  while read -r name sym before; do
    echo "PyMODINIT_FUNC $sym(void);"
    [ -z "$before" ] || echo "void $before(void);"
    echo "static PyObject *init$n(void) {"
    [ -z "$before" ] || echo "    $before();"
    echo "    const char *old = _Py_PackageContext;"
    echo "    _Py_PackageContext = \"$name\";"
    echo "    PyObject *m = $sym();"
    echo "    _Py_PackageContext = old;"
    # Where the shared library would be: code that reports a module's
    # file (PIL.features.pilinfo, python -m PIL) finds one, as natively.
    echo "    if (m != NULL && PyModule_Check(m) && PyModule_AddStringConstant(m, \"__file__\", \"$site/$(echo "$name" | tr . /).cpython-311-wasm32-wasi.so\") < 0) {"
    echo "        Py_DECREF(m);"
    echo "        return NULL;"
    echo "    }"
    echo "    return m;"
    echo "}"
    n=$((n + 1))
  done <"$pkg/inittab"
  echo 'struct _inittab skillrun_packages[] = {'
  n=0
  while read -r name sym before; do
    echo "    {\"$name\", init$n},"
    n=$((n + 1))
  done <"$pkg/inittab"
  echo '    {NULL, NULL},'
  echo '};'
  echo '/* What skillrun_init imports into the snapshot besides the standard library:'
  echo '   the main modules of the packages, so that a run finds them imported. */'
  echo "const char skillrun_packages_preimport[] = \"import $(echo $preimport | tr ' ' ',')\\n\";"
  echo '/* Before main (a command) or skillrun_init (a reactor): the table must be in'
  echo '   place before the interpreter initialises. */'
  echo '__attribute__((constructor)) static void skillrun_add_packages(void) {'
  echo '    if (skillrun_packages[0].name != NULL && PyImport_ExtendInittab(skillrun_packages) != 0) {'
  echo '        abort();'
  echo '    }'
  echo '}'
} >"$pkg/skillrun_pkgs.c"
echo "== packages: $(cut -f1,2 "$pkg/PACKAGES" | tr '\t\n' ' ,')" >&2
