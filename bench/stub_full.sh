#!/usr/bin/env bash
# The runtime stub at full time scale (1 plan ms = 1 real ms), 20 steps each
# without and with freezing, for every generated folder: measured median
# makespans against the predictions (figures for the closing note).
#   bench/stub_full.sh [STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/stub/check.sh "$PWD" "${1:-20}" 1.0 0.05
