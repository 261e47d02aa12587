#!/bin/sh
# Installs a built tree into a temporary prefix and runs the installed binary; then, where
# dpkg-deb is found, packages it with cpack -G DEB, lists the package and runs the binary
# extracted from it. Reuses the build (nothing is compiled). Run by tests/cli/package_test.cc.
# Usage: tests/package.sh BUILD_DIR VERSION [--no-deb]
#   --no-deb: install only (a sanitizer build: its package would only be slow to compress)
set -eu
build=$1
version=$2
no_deb=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case_args="occupancy --threads 256 --regs 64 --smem 40KB --format csv"

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/gpucalc share/gpucalc/hw/a100.toml share/gpucalc/hw/h100.toml share/gpucalc/hw/h200.toml \
  share/man/man1/gpucalc.1 share/bash-completion/completions/gpucalc share/zsh/site-functions/_gpucalc \
  share/fish/vendor_completions.d/gpucalc.fish; do
  [ -f "$tmp/prefix/$f" ] || { echo "installed: $f is missing" >&2; exit 1; }
done
echo "installed: $("$tmp/prefix/bin/gpucalc" $case_args | tail -n 1)"
# The profiles installed for reference read back as --gpu FILE.
echo "installed a100.toml: $("$tmp/prefix/bin/gpucalc" $case_args --gpu "$tmp/prefix/share/gpucalc/hw/a100.toml" | tail -n 1)"

if [ "$no_deb" = --no-deb ]; then
  echo "skipped: --no-deb, no .deb built"
  exit 0
fi
if ! command -v dpkg-deb >/dev/null 2>&1; then
  echo "skipped: dpkg-deb is not installed, no .deb built"
  exit 0
fi
arch=$(dpkg --print-architecture)
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log" >&2; exit 1; }
deb="$tmp/pkg/gpucalc_${version}_${arch}.deb"
[ -f "$deb" ] || { echo "cpack made no $deb:" >&2; ls "$tmp/pkg" >&2; exit 1; }
echo "package: $(basename "$deb")"
dpkg-deb -c "$deb" | awk '{print "contents: " $NF}'
echo "depends: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -x "$deb" "$tmp/root"
echo "extracted: $("$tmp/root/usr/bin/gpucalc" $case_args | tail -n 1)"
if command -v ldd >/dev/null 2>&1; then
  # gpucalc may be fully static (ldd then says it is not dynamic); gpucalc-measure is not.
  for bin in gpucalc gpucalc-measure; do
    [ -f "$tmp/root/usr/bin/$bin" ] || continue
    if ldd "$tmp/root/usr/bin/$bin" >"$tmp/ldd.txt" 2>&1; then
      awk -v bin="$bin" '{print "needs: " bin " " $1}' "$tmp/ldd.txt"
    else
      echo "static: $bin"
    fi
  done
fi
