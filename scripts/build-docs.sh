#!/usr/bin/env bash
# Builds the StressKit API reference (DocC) from the catalog in
# Sources/StressKit/StressKit.docc and prints its warnings.
#
# StressKit re-exports StressCore and StressRunner, where most of the public
# API lives. `swift package generate-documentation` documents only the
# symbols a target declares itself, so it would show StressTest alone; the
# symbol graph is therefore extracted here with the re-exported modules
# allowed in, from the debug build `swift build` (or `swift test`) leaves,
# and handed to `docc convert`. Takes seconds after a debug build.
#
#   scripts/build-docs.sh [OUTPUT]   (default: .build/StressKit.doccarchive)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/StressKit.doccarchive}
modules=.build/debug/Modules
[ -d "$modules" ] && [ -e "$modules/StressKit.swiftmodule" ] || swift build --target StressKit 2>&1 | tail -n 1
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
# The C modules' maps (generated ones in the build folder, the checked-out
# packages' and our own), so that the extractor can load what the Swift modules import.
maps=()
while IFS= read -r map; do maps+=(-Xcc "-fmodule-map-file=$PWD/$map"); done < <(
    { ls .build/debug/*.build/module.modulemap 2>/dev/null
      find .build/checkouts Sources -path '*/include/module.modulemap' 2>/dev/null; } | sort -u)
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
swift-symbolgraph-extract -module-name StressKit -target "$triple" -I "$modules" "${maps[@]}" \
    -output-dir "$graphs" -minimum-access-level public \
    -experimental-allowed-reexported-modules=StressCore,StressRunner
rm -rf "$out"
docc convert Sources/StressKit/StressKit.docc --additional-symbol-graph-dir "$graphs" --output-path "$out" \
    --fallback-display-name StressKit --fallback-bundle-identifier StressKit 2>&1 | tee "$graphs/docc.log"
echo "DocC: $(grep -c '^warning:' "$graphs/docc.log" || true) warning(s); the archive is $out"
