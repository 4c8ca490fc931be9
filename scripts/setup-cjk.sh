#!/usr/bin/env bash
# Installs what the `japanese` feature's tests need: Debian's mecab-ipadic, the IPADIC
# *source* (CSV + .def, EUC-JP) in /usr/share/mecab/dic/ipadic, which txtfp compiles
# with lindera at run time (cached under $TXTFP_CACHE_DIR, else $XDG_CACHE_HOME/txtfp,
# else ~/.cache/txtfp). Idempotent: does nothing when the source is already there.
# Set TXTFP_IPADIC_DIR to use a source directory elsewhere instead.
set -euo pipefail

dir="${TXTFP_IPADIC_DIR:-/usr/share/mecab/dic/ipadic}"
if [ -f "$dir/matrix.def" ] && [ -f "$dir/unk.def" ] && [ -f "$dir/char.def" ]; then
    echo "setup-cjk: IPADIC source present in $dir"
    exit 0
fi
if [ -n "${TXTFP_IPADIC_DIR:-}" ]; then
    echo "setup-cjk: TXTFP_IPADIC_DIR=$dir has no IPADIC source (matrix.def, char.def, unk.def, *.csv)" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-cjk: no apt-get; install MeCab's IPADIC source and set TXTFP_IPADIC_DIR" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine.
$SUDO apt-get install -y -qq mecab-ipadic >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq mecab-ipadic
}
test -f "$dir/matrix.def" || { echo "setup-cjk: mecab-ipadic installed but $dir/matrix.def is missing" >&2; exit 1; }
echo "setup-cjk: installed mecab-ipadic ($dir)"
