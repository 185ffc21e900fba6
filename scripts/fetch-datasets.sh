#!/bin/sh
# fetch-datasets.sh — the files of logt's loaded datasets, taken out of Debian packages
# (downloaded with apt-get download, unpacked with dpkg -x: nothing is installed) and
# cached in datasets/data/, which git ignores. `make datasets` runs it.
#   digits.csv    python3-sklearn's sklearn/datasets/data/digits.csv.gz, gunzipped
#   fortunes.txt  every fortune file of `fortunes-min` and `fortunes` (the files of
#                 /usr/share/games/fortunes/, not the .dat indexes nor the .u8 links) in
#                 name order, concatenated, tabs made spaces, and every other byte but
#                 newline and ' '..'~' dropped
# Usage: scripts/fetch-datasets.sh [digits] [fortunes]     (no argument: both)
set -eu

out=datasets/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

die() { echo "fetch-datasets: $*" >&2; exit 1; }

# fetch PACKAGE: its files under $tmp/root. An unknown package usually means old
# package lists: root refreshes them once, anyone else is told to.
fetch() {
    pkg=$1
    if ! (cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1); then
        [ "$(id -u)" = 0 ] || die "apt-get download $pkg failed: as root, run apt-get update and retry"
        apt-get update -qq >&2
        (cd "$tmp" && apt-get download "$pkg" >&2) || die "apt-get download $pkg failed (is a Debian mirror reachable?)"
    fi
    deb=$(ls "$tmp/${pkg}_"*.deb)
    dpkg -x "$deb" "$tmp/root"
    echo "fetch-datasets: $pkg $(dpkg-deb -f "$deb" Version)" >&2
}

digits() {
    fetch python3-sklearn
    gz=$(find "$tmp/root" -path '*/sklearn/datasets/data/digits.csv.gz' | head -n 1)
    [ -n "$gz" ] || die "python3-sklearn holds no sklearn/datasets/data/digits.csv.gz"
    gunzip -c "$gz" >"$tmp/digits.csv"
    rows=$(wc -l <"$tmp/digits.csv")
    [ "$rows" -eq 1797 ] || echo "fetch-datasets: warning: digits.csv has $rows rows, not 1797" >&2
    mv -f "$tmp/digits.csv" "$out/digits.csv"
    echo "fetch-datasets: $out/digits.csv, $rows images, sha256 $(sha256sum "$out/digits.csv" | cut -c1-16)..." >&2
}

fortunes() {
    fetch fortunes-min
    fetch fortunes
    dir="$tmp/root/usr/share/games/fortunes"
    [ -d "$dir" ] || die "fortunes-min and fortunes hold no /usr/share/games/fortunes/"
    find "$dir" -maxdepth 1 -type f ! -name '*.dat' | LC_ALL=C sort >"$tmp/list"
    [ -s "$tmp/list" ] || die "fortunes-min and fortunes hold no fortune file in /usr/share/games/fortunes/"
    # shellcheck disable=SC2046
    cat $(cat "$tmp/list") | tr '\t' ' ' | LC_ALL=C tr -cd '\n -~' >"$tmp/fortunes.txt"
    mv -f "$tmp/fortunes.txt" "$out/fortunes.txt"
    echo "fetch-datasets: $out/fortunes.txt, $(wc -l <"$tmp/list") files, $(wc -c <"$out/fortunes.txt") characters" >&2
}

[ $# -gt 0 ] || set -- digits fortunes
for what in "$@"; do
    case $what in
        digits) digits ;;
        fortunes) fortunes ;;
        *) die "unknown dataset file '$what': expected digits or fortunes" ;;
    esac
done
