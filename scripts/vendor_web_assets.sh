#!/usr/bin/env bash
# Make src/casebuilder/web/static/vendor/ again from the npm registry (a developer's step, never
# run by the tool or CI) and check each file against the digest VENDORED.md records.
set -euo pipefail
cd "$(dirname "$0")/.."
out=src/casebuilder/web/static/vendor/leaflet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent leaflet@1.9.4 >/dev/null && tar xzf leaflet-1.9.4.tgz)
echo "84c65a256e50657896f54c33bd857b6849ebe94c817803be818bf32a3dde0b77  $work/leaflet-1.9.4.tgz" \
    | sha256sum -c --quiet
mkdir -p "$out"
cp "$work/package/dist/leaflet.js" "$work/package/dist/leaflet.css" "$out/"
cp -r "$work/package/dist/images" "$out/"
cp "$work/package/LICENSE" "$out/LICENSE"
(cd "$out" && sha256sum -c --quiet <<SUMS
db49d009c841f5ca34a888c96511ae936fd9f5533e90d8b2c4d57596f4e5641a  leaflet.js
a7837102824184820dfa198d1ebcd109ff6d0ff9a2672a074b9a1b4d147d04c6  leaflet.css
SUMS
)
echo "vendored Leaflet 1.9.4 into $out"
