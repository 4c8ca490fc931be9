#!/usr/bin/env bash
# Installs the Debian tools the PDF tests use to make real PDFs from text:
#   groff (-Tps, from groff-base) + ghostscript (ps2pdf)  -> text PDFs
#   qpdf                                                   -> encrypted PDFs
# Idempotent: does nothing when every tool is already on PATH. Without root
# or apt it says so and exits 0; tests/markup/pdf_real.rs then skips loudly, or
# fails when TXTFP_REQUIRE_PDF_TOOLS is set (scripts/test.sh sets it).
set -euo pipefail

need=()
command -v groff >/dev/null 2>&1 || need+=(groff-base)
command -v ps2pdf >/dev/null 2>&1 || need+=(ghostscript)
command -v qpdf >/dev/null 2>&1 || need+=(qpdf)

if [[ ${#need[@]} -eq 0 ]]; then
  echo "setup-pdf: groff, ps2pdf and qpdf already installed"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "*** setup-pdf: apt-get not found; install ${need[*]} by hand ***" >&2
  exit 0
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "*** setup-pdf: not root and no sudo; install ${need[*]} by hand ***" >&2
    exit 0
  fi
fi

echo "setup-pdf: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
# An old or missing package list makes `install` fail: refresh it first.
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
for t in groff ps2pdf qpdf; do
  command -v "$t" >/dev/null 2>&1 || { echo "setup-pdf: $t still missing after install" >&2; exit 1; }
done
echo "setup-pdf: done"
